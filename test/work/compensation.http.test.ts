/**
 * The compensation review doors over real HTTP (spec §4.8) on SQLite and
 * LevelDB: runs of four members written by hand in the run-record
 * vocabulary, compensated by a cancel, a rejecting verdict, a cancellation
 * of a deliverable and a retry on the same source thread; the operator
 * reads the per-member breakdowns and the anomaly scores against the fleet
 * median, the top of them, and the same after a restart; a credential
 * without admin is refused with 403 SCOPE_FORBIDDEN.
 */
import { expect } from 'chai';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { JsonObject } from '../../core/records/json.js';
import { KIND_LOOP_CANCEL, KIND_LOOP_OUTCOME, KIND_RUN, KIND_TURN } from '../../plugins/members/index.js';
import { bearer, bootstrapAdmin, createAccount, type Credential } from '../helpers/auth.js';
import { expectEnvelope, newThread, recordInput, request, startServer, type HttpAnswer, type StartedServer } from '../helpers/http-server.js';

const A = 'did:sync:agent:alpha-0123456789abcdef';
const B = 'did:sync:agent:beta-0123456789abcdef';
const C = 'did:sync:agent:gamma-0123456789abcdef';
const D = 'did:sync:agent:delta-0123456789abcdef';
const JUDGE = 'did:sync:user:judge';
const OTHER = 'did:sync:user:other';
const DEFINITION = 'd'.repeat(64);

const seams = (cancel = 0, rejected = 0, corrected = 0, retried = 0) => ({ cancel, rejected, corrected, retried });

for (const storage of ['sqlite', 'level'] as const) {
  describe(`compensation review over HTTP (${storage})`, function () {
    this.timeout(60_000);
    let dataDir: string;
    let server: StartedServer;
    let admin: Credential;
    let reader: Credential;
    const clocks = new Map<string, number>();

    const start = async () => {
      server = await startServer({ storage, dataDir, keepDataDir: true, auth: { required: true } });
    };
    const call = (method: string, path: string, who: Credential, json?: unknown, headers: Record<string, string> = {}): Promise<HttpAnswer> =>
      request(server.url, method, path, { headers: { ...bearer(who), ...headers }, ...(json === undefined ? {} : { json }) });
    /** Writes one record as `actor` (the admin acting as it); returns its id. */
    async function write(thread: string, actor: string, act: string, body: JsonObject): Promise<string> {
      const clock = clocks.get(actor) ?? 0;
      clocks.set(actor, clock + 1);
      const answer = await call('POST', '/v1/records', admin, recordInput({ thread, actor, act, body, clock }), { 'x-service-actor': actor });
      expect(answer.status, answer.text).to.equal(201);
      return answer.json.id;
    }
    /** A run of `actor` on a new thread: opening, one turn, an optional deliverable, then the outcome (unless null). */
    async function run(actor: string, outcome: string | null, options: { source?: string; deliverable?: boolean; before?: (thread: string) => Promise<void> } = {}) {
      const thread = newThread('run');
      await write(thread, actor, 'DO', { kind: KIND_RUN, schema_version: '1.0.0', definition: DEFINITION, goal: 'do it', source_thread: options.source ?? null, tools: [] });
      await write(thread, actor, 'DO', { kind: KIND_TURN, turn: 1, resolution_path: 'provider:fake/m', input_tokens: 10, output_tokens: 5, cost_usd: 0.01, stop_reason: 'end_turn' });
      const deliverable = options.deliverable ? await write(thread, actor, 'KNOW', { kind: 'acme.note.v1', text: 'done' }) : null;
      await options.before?.(thread);
      if (outcome !== null) await write(thread, actor, 'KNOW', { kind: KIND_LOOP_OUTCOME, outcome, success: outcome === 'completed', turns: 1, spent_usd: 0.01, budget_kind: null, summary: null });
      return { thread, deliverable };
    }

    before(async () => {
      dataDir = await mkdtemp(join(tmpdir(), 'loom-compensation-'));
      await start();
      admin = await bootstrapAdmin(server.url);
      reader = await createAccount(server.url, admin, 'reader', ['records:read', 'records:write']);
      const source = newThread('source');
      // A: 4 runs, 3 compensations (cancel, rejected, retried): rate 0.75.
      await run(A, 'cancelled', { before: (thread) => write(thread, OTHER, 'DO', { kind: KIND_LOOP_CANCEL, reason: 'wrong repository' }).then(() => undefined) });
      const judged = await run(A, 'completed', { deliverable: true });
      await write(newThread('review'), JUDGE, 'KNOW', { verdict: 'rejected', fulfills: judged.deliverable!, reason: 'tests were not run' });
      await run(A, 'failed', { source });
      await run(A, 'completed');
      // B: 2 runs, one of them taking up A's failed source thread: rate 0.
      await run(B, 'completed', { source });
      await run(B, 'completed');
      // C: 2 runs, one deliverable cancelled by someone else: rate 0.5.
      const cancelled = await run(C, 'completed', { deliverable: true });
      await write(newThread('cleanup'), OTHER, 'DO', { cancels: cancelled.deliverable!, reason: 'duplicate of an earlier note' });
      await run(C, 'completed');
      // D: 1 run, still running: rate 0.
      await run(D, null);
    });
    after(async () => {
      await server?.stop();
      await rm(dataDir, { recursive: true, force: true });
    });

    const checkReview = async () => {
      const answer = await call('GET', '/v1/work/compensation/review', admin);
      expect(answer.status, answer.text).to.equal(200);
      const review = answer.json;
      // Rates 0.75, 0, 0.5, 0: the median is 0.25, so A scores 3 and C 2.
      expect(review).to.deep.include({ object: 'compensation_review', fleet_actors: 4, fleet_runs: 9, fleet_compensations: 4, fleet_median: 0.25, baseline: 0.25, baseline_kind: 'median' });
      expect(review.fleet_rate).to.be.closeTo(4 / 9, 1e-12);
      expect(review.watermark).to.be.a('number').above(0);
      expect(review.data.map((row: { actor: string }) => row.actor)).to.deep.equal([A, C, B, D]);
      expect(review.data[0]).to.deep.equal({
        actor: A,
        runs: 4,
        compensations: 3,
        rate: 0.75,
        by_seam: seams(1, 1, 0, 1),
        by_assumption: { 'tests were not run': 1, unstated: 1, 'wrong repository': 1 },
        anomaly: 3,
      });
      expect(review.data[1]).to.deep.equal({ actor: C, runs: 2, compensations: 1, rate: 0.5, by_seam: seams(0, 0, 1), by_assumption: { 'duplicate of an earlier note': 1 }, anomaly: 2 });
      expect(review.data[2]).to.deep.include({ actor: B, runs: 2, compensations: 0, rate: 0, anomaly: 0, by_assumption: {} });
      expect(review.data[3]).to.deep.include({ actor: D, runs: 1, compensations: 0, anomaly: 0 });

      const one = (await call('GET', `/v1/work/compensation/review?actor=${encodeURIComponent(C)}`, admin)).json;
      expect(one.data.map((row: { actor: string }) => row.actor)).to.deep.equal([C]);
      expect(one.fleet_median).to.equal(0.25);

      const top = await call('GET', '/v1/work/compensation/review/top', admin);
      expect(top.status, top.text).to.equal(200);
      expect(top.json.data.map((row: { actor: string; anomaly: number }) => [row.actor, row.anomaly])).to.deep.equal([[A, 3], [C, 2]]);
      expect((await call('GET', '/v1/work/compensation/review/top?limit=1', admin)).json.data.map((row: { actor: string }) => row.actor)).to.deep.equal([A]);
      expect((await call('GET', '/v1/work/compensation/review/top?min_runs=3', admin)).json.data.map((row: { actor: string }) => row.actor)).to.deep.equal([A]);
    };

    it('the operator sees per-member compensations by seam and by violated assumption, and the anomaly against the fleet median', checkReview);

    it('a credential without admin is refused with 403 SCOPE_FORBIDDEN, and none with 401 AUTH_REQUIRED', async () => {
      expectEnvelope(await call('GET', '/v1/work/compensation/review', reader), 403, 'SCOPE_FORBIDDEN');
      expectEnvelope(await call('GET', '/v1/work/compensation/review/top', reader), 403, 'SCOPE_FORBIDDEN');
      expectEnvelope(await request(server.url, 'GET', '/v1/work/compensation/review'), 401, 'AUTH_REQUIRED');
    });

    it('clamps a limit out of bounds (spec §8); refuses an unknown parameter with 400 INVALID_SHAPE; flags the capability', async () => {
      expect((await call('GET', '/v1/work/compensation/review/top?limit=0', admin)).json.data).to.have.length(1);
      expect((await call('GET', '/v1/work/compensation/review/top?limit=100000', admin)).json.data).to.have.length(2);
      expectEnvelope(await call('GET', '/v1/work/compensation/review?offset=1', admin), 400, 'INVALID_SHAPE');
      expect((await call('GET', '/v1/capabilities', admin)).json.capabilities).to.include({ 'work.compensation': true });
    });

    it('answers the same after a restart', async () => {
      await server.stop();
      await start();
      await checkReview();
    });
  });
}
