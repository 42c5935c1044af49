/**
 * verifyRun against a live server: runs written by hand as the member (a
 * finished one, a running one with someone else's records on its thread,
 * one written after the other's rows were read) recompute to the server's
 * rows from their records up to each row's watermark; a tampered row is
 * caught with the path of the difference; a thread with no run is refused
 * with the server's code.
 */
import { expect } from 'chai';
import { bootstrapAdmin, type Credential } from '../test/helpers/auth.js';
import { newThread } from '../test/helpers/http-server.js';
import { passingRun, step, type RunStep } from '../test/members/run-fixture.js';
import { startServer, type StartedServer } from '../test/helpers/start-server.js';
import { createLoomClient, FoldVerificationError, verifyRun, type LoomClient } from './index.js';

const MEMBER = 'did:sync:agent:reviewer-0123456789abcdef';
const OTHER = 'did:sync:user:other';
const DEFINITION = 'd'.repeat(64);

/** A fetch that rewrites the JSON answers whose path matches, as a lying server (or proxy) would. */
function tamperingFetch(path: RegExp, tamper: (answer: any) => void): typeof fetch {
  return async (input, init) => {
    const response = await fetch(input, init);
    const url = new URL(input instanceof Request ? input.url : String(input));
    if (!path.test(url.pathname) || response.status !== 200) return response;
    const answer = await response.json();
    tamper(answer);
    return new Response(JSON.stringify(answer), { status: 200, headers: response.headers });
  };
}

describe('sdk verifyRun: run rows recomputed from their records', function () {
  this.timeout(60_000);
  let server: StartedServer;
  let admin: Credential;
  let loom: LoomClient;
  const clocks = new Map<string, number>();
  let done: string;
  let running: string;

  async function writeRun(steps: readonly RunStep[], thread = newThread('verify-run')): Promise<string> {
    for (const s of steps) {
      const actor = s.actor ?? MEMBER;
      const clock = clocks.get(actor) ?? 0;
      clocks.set(actor, clock + 1);
      const { error } = await loom.ingestRecord({ body: { thread, actor, act: s.act, body: s.body as never, clock, data_type: 'SCALAR' }, headers: { 'x-service-actor': actor } });
      expect(error, JSON.stringify(error)).to.equal(undefined);
    }
    return thread;
  }

  before(async () => {
    server = await startServer({ auth: { required: true } });
    admin = await bootstrapAdmin(server.url);
    loom = createLoomClient({ baseUrl: server.url, token: admin.token });
    done = await writeRun(passingRun(DEFINITION));
    running = await writeRun([step.open({ definition: DEFINITION }), step.turn(1, 0.25), { ...step.turn(2, 9), actor: OTHER }, step.call('c1', 'read_thread', { thread: 'th_x' }), step.result('c1', false)]);
  });
  after(async () => server?.stop());

  it('a finished run and a running one verify, over every record of their threads up to the watermark', async () => {
    const finished = await verifyRun(loom, done, { pageSize: 2 });
    expect(finished).to.deep.include({ ok: true, thread: done, records: 9, differences: [] });
    expect(finished.local_row).to.deep.equal(finished.server_row);
    expect(finished.server_row).to.deep.include({ turns: 2, tool_calls_ok: 2, spent_usd: 0.02, outcome: 'completed', state: 'done' });
    const open = await verifyRun(loom, running);
    expect(open).to.deep.include({ ok: true, records: 5 });
    expect(open.server_row).to.deep.include({ turns: 1, spent_usd: 0.25, tool_calls_failed: 1, state: 'running' });
  });

  it('reads exactly up to the watermark: records written after the row was read are not folded', async () => {
    const lateRow = (await loom.getRun({ path: { thread: running } })).data!;
    await writeRun([step.turn(2, 0.5), step.outcome('completed', 2, 0.75)], running);
    // A server answering the older row (as a cache would) still verifies: its watermark says what it covers.
    const stale = createLoomClient({ baseUrl: server.url, token: admin.token, fetch: tamperingFetch(new RegExp(`^/v1/runs/${running}$`), (row) => Object.assign(row, lateRow)) });
    expect(await verifyRun(stale, running)).to.deep.include({ ok: true, records: 5 });
    const fresh = await verifyRun(loom, running);
    expect(fresh).to.deep.include({ ok: true, records: 7 });
    expect(fresh.server_row).to.deep.include({ turns: 2, spent_usd: 0.75, state: 'done' });
  });

  it('detects a tampered row and says where it differs', async () => {
    const lying = createLoomClient({ baseUrl: server.url, token: admin.token, fetch: tamperingFetch(new RegExp(`^/v1/runs/${done}$`), (row) => (row.turns = 7)) });
    const result = await verifyRun(lying, done);
    expect(result.ok).to.equal(false);
    expect(result.differences).to.deep.equal([{ path: '/turns', server: 7, local: 2 }]);
    const inventing = createLoomClient({ baseUrl: server.url, token: admin.token, fetch: tamperingFetch(new RegExp(`^/v1/runs/${done}$`), (row) => (row.watermark = 1)) });
    const early = await verifyRun(inventing, done);
    expect(early).to.deep.include({ ok: false, local_row: null, records: 0 });
  });

  it('refuses what it cannot compare with FoldVerificationError: no run there, a row without a watermark', async () => {
    const refusal = async (client: LoomClient, thread: string) => {
      try {
        await verifyRun(client, thread);
      } catch (error) {
        expect(error).to.be.instanceOf(FoldVerificationError);
        return error as FoldVerificationError;
      }
      throw new Error('expected a refusal');
    };
    expect((await refusal(loom, newThread('nothing'))).code).to.equal('NOT_FOUND');
    const old = createLoomClient({ baseUrl: server.url, token: admin.token, fetch: tamperingFetch(/^\/v1\/runs\//, (row) => delete row.watermark) });
    expect((await refusal(old, done)).code).to.equal(null);
  });
});
