/**
 * Evals over real HTTP (spec §2.6, §4.15) on SQLite and LevelDB: a member
 * defined through POST /v1/actors/define, its runs written as records in the
 * run-record vocabulary (by a credential allowed to write as the member, and
 * by the admin acting as it with X-Service-Actor), scored by a suite into
 * one grade citing exactly the runs it judged; the same suite twice gives
 * the same scores; self-judgment and every other refusal write nothing; the
 * evals answer compares two definition versions; all of it across a restart.
 */
import { expect } from 'chai';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { evalsThreadId, KIND_SUITE } from '../../plugins/members/index.js';
import { bearer, bootstrapAdmin, createAccount, type Credential } from '../helpers/auth.js';
import { expectEnvelope, newThread, recordInput, request, startServer, type HttpAnswer, type StartedServer } from '../helpers/http-server.js';
import { memberToolsPlugin, TOOL_ADMIN, TOOL_READ, TOOL_WRITE } from './member-tools-plugin.js';
import { DELIVERABLE, passingRun, step, type RunStep } from './run-fixture.js';

const REVIEW_CASE = { id: 'review', expected_tools: [TOOL_READ, TOOL_WRITE], trajectory: 'strict', forbidden_tools: [TOOL_ADMIN] };

for (const storage of ['sqlite', 'level'] as const) {
  describe(`evals over HTTP (${storage})`, function () {
    this.timeout(60_000);
    let dataDir: string;
    let server: StartedServer;
    let admin: Credential;
    let owner: Credential;
    let judge: Credential;
    let runner: Credential;
    let member: string;
    let v1: string;
    let suite: string;
    /** The opening record ids of the ended runs under v1, in the order written. */
    const endedV1: string[] = [];

    const start = async () => {
      server = await startServer({ storage, dataDir, keepDataDir: true, auth: { required: true }, plugins: [memberToolsPlugin] });
    };
    const call = (method: string, path: string, who: Credential, json?: unknown, headers: Record<string, string> = {}): Promise<HttpAnswer> =>
      request(server.url, method, path, { headers: { ...bearer(who), ...headers }, ...(json === undefined ? {} : { json }) });
    const head = () => server.loom.engine.store.watermark();
    const refused = async (status: number, code: string, send: () => Promise<HttpAnswer>) => {
      const before = await head();
      expectEnvelope(await send(), status, code);
      expect(await head(), `${code} wrote nothing`).to.equal(before);
    };
    const score = (who: Credential, body: unknown, headers: Record<string, string> = {}) => call('POST', '/v1/evals/score', who, body, headers);

    /** Writes a run's records as the member; returns its opening record id. */
    async function writeRun(steps: readonly RunStep[], who: Credential = runner, headers: Record<string, string> = {}): Promise<string> {
      const thread = newThread('run');
      const clocks = new Map<string, number>();
      let opening = '';
      for (const s of steps) {
        const actor = s.actor ?? member;
        const clock = clocks.get(actor) ?? 0;
        clocks.set(actor, clock + 1);
        const answer = await call('POST', '/v1/records', who, recordInput({ thread, actor, act: s.act, body: s.body, clock }), headers);
        expect(answer.status, answer.text).to.equal(201);
        opening ||= answer.json.id;
      }
      return opening;
    }
    async function writeSuite(body: Record<string, unknown>): Promise<string> {
      const answer = await call('POST', '/v1/records', judge, recordInput({ thread: newThread('suites'), actor: judge.did, act: 'KNOW', body }));
      expect(answer.status, answer.text).to.equal(201);
      return answer.json.id;
    }
    const withoutResult = (definition: string) => passingRun(definition).filter((s) => !(s.body['kind'] === 'core.work.tool_result.v1' && s.body['call_id'] === 'c2'));

    before(async () => {
      dataDir = await mkdtemp(join(tmpdir(), 'loom-evals-'));
      await start();
      admin = await bootstrapAdmin(server.url);
      owner = await createAccount(server.url, admin, 'owner', ['records:read', 'records:write']);
      judge = await createAccount(server.url, admin, 'judge', ['records:read', 'records:write']);
      const defined = await call('POST', '/v1/actors/define', owner, { label: 'Reviewer', declares_kinds: [DELIVERABLE], work_loop: { model: 'claude-sonnet-4-6', tools: [TOOL_READ, TOOL_WRITE], max_turns: 5 } });
      expect(defined.status, defined.text).to.equal(201);
      member = defined.json.actor_did;
      v1 = defined.json.definition;
      runner = await createAccount(server.url, admin, 'runner', ['records:read', 'records:write'], [member]);
      suite = await writeSuite({ kind: KIND_SUITE, name: 'review basics', cases: [REVIEW_CASE] });
    });
    after(async () => {
      await server?.stop();
      await rm(dataDir, { recursive: true, force: true });
    });

    it('scores the ended runs under a definition into ONE grade by the judge, citing exactly the runs it judged', async () => {
      endedV1.push(await writeRun(passingRun(v1)));
      endedV1.push(await writeRun(passingRun(v1), admin, { 'x-service-actor': member }));
      endedV1.push(await writeRun(withoutResult(v1)));
      await writeRun(passingRun(v1).slice(0, 5)); // still running: no outcome, not judged
      const before = await head();
      const answer = await score(judge, { suite, actor: member, definition: v1 });
      expect(answer.status, answer.text).to.equal(201);
      expect(await head(), 'one record written').to.equal(before + 1);
      const grade = answer.json;
      expect(grade).to.include({ object: 'grade', judge: judge.did, actor: member, definition: v1, definition_version: 1, suite, runs_scored: 3, runs_open: 1, capped: false, scan_ceiling: 5000 });
      expect(grade).to.include({ substance_scored: false, substance_score: null, grader_model: null });
      // 3 runs × 7 checks, one failed (the unanswered call): the score is explained by the counts.
      expect(grade.structure_score).to.equal(20 / 21);
      expect(grade.checks.calls_answered).to.deep.equal({ passed: 2, total: 3 });
      expect(grade.checks.outcome_completed).to.deep.equal({ passed: 3, total: 3 });
      expect(grade.cases).to.deep.equal([{ id: 'review', weight: 1, runs: 3, passed: 20, total: 21, score: 20 / 21 }]);
      expect(grade.runs.map((r: { run: string }) => r.run)).to.deep.equal(endedV1);
      expect(grade.runs[2].failed).to.deep.equal(['review/calls_answered']);
      const record = await call('GET', `/v1/records/${grade.id}`, admin);
      expect(record.json).to.include({ act: 'KNOW', actor: judge.did, thread: evalsThreadId(member) });
      expect(record.json.parents).to.deep.equal([...endedV1].sort());
      expect(record.json.body).to.include({ kind: 'core.eval.grade.v1', judge: judge.did, actor: member, structure_score: 20 / 21, substance_scored: false, substance_score: null });
      expect(record.json.body.runs.map((r: { through: string }) => r.through)).to.have.length(3);
    });

    it('gives the same scores when the same suite is scored twice over the same runs', async () => {
      const first = await score(judge, { suite, actor: member, definition: v1 });
      const second = await score(judge, { suite, actor: member, definition: v1 });
      expect(first.status).to.equal(201);
      expect(second.status).to.equal(201);
      expect(second.json.id).to.not.equal(first.json.id);
      const scores = ({ id: _id, at: _at, ...rest }: Record<string, unknown>) => rest;
      expect(scores(second.json)).to.deep.equal(scores(first.json));
    });

    it('refuses a judge who proposed the definition, and the member grading itself, writing nothing', async () => {
      await refused(400, 'VERDICT_SELF_JUDGMENT', () => score(owner, { suite, actor: member, definition: v1 }));
      await refused(400, 'VERDICT_SELF_JUDGMENT', () => score(admin, { suite, actor: member, definition: v1 }, { 'x-service-actor': owner.did }));
      await refused(400, 'VERDICT_SELF_JUDGMENT', () => score(runner, { suite, actor: member, definition: v1 }, { 'x-service-actor': member }));
    });

    it('refuses a missing field, an unknown suite, member or definition, a suite without cases and a definition without ended runs, writing nothing', async () => {
      await refused(400, 'MISSING_FIELD', () => score(judge, { actor: member, definition: v1 }));
      await refused(400, 'MISSING_FIELD', () => score(judge, { suite, actor: '  ', definition: v1 }));
      await refused(400, 'MISSING_FIELD', () => score(judge, { suite, actor: member }));
      await refused(422, 'INVALID_BODY', () => score(judge, { suite, actor: member, definition: v1, extra: 1 }));
      await refused(422, 'INVALID_BODY', () => score(judge, { suite: 'not-an-id', actor: member, definition: v1 }));
      await refused(404, 'NOT_FOUND', () => score(judge, { suite: 'f'.repeat(64), actor: member, definition: v1 }));
      await refused(404, 'NOT_FOUND', () => score(judge, { suite: endedV1[0], actor: member, definition: v1 }));
      const empty = await writeSuite({ kind: KIND_SUITE, name: 'empty', cases: [] });
      await refused(400, 'NO_CASES', () => score(judge, { suite: empty, actor: member, definition: v1 }));
      const absent = await writeSuite({ kind: KIND_SUITE, name: 'no cases at all' });
      await refused(400, 'NO_CASES', () => score(judge, { suite: absent, actor: member, definition: v1 }));
      await refused(404, 'ACTOR_UNKNOWN', () => score(judge, { suite, actor: 'did:sync:agent:nobody-0000000000000000', definition: v1 }));
      await refused(404, 'VERSION_UNKNOWN', () => score(judge, { suite, actor: member, definition: 'e'.repeat(64) }));
      const other = await call('POST', '/v1/actors/define', owner, { label: 'Other' });
      await refused(404, 'VERSION_UNKNOWN', () => score(judge, { suite, actor: member, definition: other.json.definition }));
      await refused(400, 'NO_RUNS_UNDER_DEFINITION', () => score(judge, { suite, actor: other.json.actor_did, definition: other.json.definition }));
      // Runs selected by a tag no run carries: nothing to judge either.
      const tagged = await writeSuite({ kind: KIND_SUITE, name: 'triage only', cases: [{ ...REVIEW_CASE, select: { tag: 'triage' } }] });
      await refused(400, 'NO_RUNS_UNDER_DEFINITION', () => score(judge, { suite: tagged, actor: member, definition: v1 }));
    });

    it('keeps malformed suites and forged grades out of the log', async () => {
      const post = (body: Record<string, unknown>) => () => call('POST', '/v1/records', judge, recordInput({ thread: newThread('suites'), actor: judge.did, act: 'KNOW', body }));
      await refused(400, 'INVALID_SHAPE', post({ kind: KIND_SUITE, name: 'bad', cases: [{ id: 'a', trajectory: 'sideways' }] }));
      await refused(400, 'INVALID_SHAPE', post({ kind: KIND_SUITE, name: 'twice', cases: [{ id: 'a' }, { id: 'a' }] }));
      await refused(400, 'INVALID_SHAPE', post({ kind: KIND_SUITE, cases: [{ id: 'a' }] }));
      await refused(403, 'FORBIDDEN', post({ kind: 'core.eval.grade.v1', actor: member, definition: v1, structure_score: 1 }));
    });

    it('answers the evals with grades newest first and each definition compared with its predecessor', async () => {
      const patched = await call('PATCH', `/v1/actors/${member}/definition`, owner, { max_turns: 6 });
      expect(patched.status, patched.text).to.equal(200);
      const v2 = patched.json.definition_record_id as string;
      await refused(400, 'NO_RUNS_UNDER_DEFINITION', () => score(judge, { suite, actor: member, definition: v2 }));
      await writeRun(passingRun(v2));
      await writeRun(passingRun(v2));
      const graded = await score(judge, { suite, actor: member, definition: v2 });
      expect(graded.status, graded.text).to.equal(201);
      expect(graded.json).to.include({ structure_score: 1, definition_version: 2, runs_scored: 2 });
      const evals = await call('GET', `/v1/actors/${member}/evals`, admin);
      expect(evals.status, evals.text).to.equal(200);
      expect(evals.json).to.include({ object: 'actor_evals', actor: member, thread: evalsThreadId(member), scan_ceiling: 5000, capped: false });
      expect(evals.json.grades).to.have.length(4);
      expect(evals.json.grades[0].id).to.equal(graded.json.id);
      expect(evals.json.grades.map((g: { definition_version: number }) => g.definition_version)).to.deep.equal([2, 1, 1, 1]);
      expect(evals.json.grades[0]).to.not.have.property('runs');
      expect(evals.json.comparisons).to.have.length(1);
      const [comparison] = evals.json.comparisons;
      expect(comparison).to.include({ suite, definition: v2, version: 2, predecessor: v1, predecessor_version: 1, grade: graded.json.id, predecessor_grade: evals.json.grades[1].id });
      expect(comparison.structure).to.deep.equal({ score: 1, predecessor_score: 20 / 21, delta: 1 - 20 / 21 });
      expect(comparison.substance).to.deep.equal({ substance_scored: false, score: null, predecessor_score: null, delta: null });
      await refused(404, 'ACTOR_UNKNOWN', () => call('GET', '/v1/actors/did:sync:agent:nobody-0000000000000000/evals', admin));
      const elsewhere = await createAccount(server.url, admin, 'elsewhere', [`thread:${newThread('elsewhere')}:read`]);
      const hidden = await call('GET', `/v1/actors/${member}/evals`, elsewhere);
      expect(hidden.status, hidden.text).to.equal(200);
      expect(hidden.json.grades).to.deep.equal([]);
    });

    it('says substance grading is absent, and keeps grades and the run index across a restart', async () => {
      const capabilities = await call('GET', '/v1/capabilities', admin);
      expect(capabilities.json.capabilities).to.include({ 'members.evals': true });
      expect(capabilities.json.capabilities).to.not.have.property('members.evals.substance');
      expect(capabilities.json.conventions.evals).to.deep.equal({ score_path: '/v1/evals/score', substance_grading: 'absent', grader_model: null });
      const before = await call('GET', `/v1/actors/${member}/evals`, admin);
      await server.stop();
      await start();
      const after = await call('GET', `/v1/actors/${member}/evals`, admin);
      expect(after.json).to.deep.equal(before.json);
      const again = await score(judge, { suite, actor: member, definition: v1 });
      expect(again.status, again.text).to.equal(201);
      expect(again.json).to.include({ structure_score: 20 / 21, runs_scored: 3, runs_open: 1 });
    });
  });
}
