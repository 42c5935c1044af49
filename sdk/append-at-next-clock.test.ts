/** appendAtNextClock against a live server (127.0.0.1:0, temporary SQLite). */
import { expect } from 'chai';
import { startServer, type StartedServer } from '../test/helpers/start-server.js';
import { appendAtNextClock, createLoomClient, newThreadNonce, taskThreadId, type LoomClient, type NextClockClient, type RecordDraft } from './index.js';

const ALICE = 'did:sync:agent:alice';
const BOB = 'did:sync:agent:bob';

const draft = (thread: string, actor: string, body: { [key: string]: unknown } = {}): RecordDraft => ({ thread, actor, act: 'DO', body, data_type: 'SCALAR', parents: [] });

/** The client, except that its first thread-state read forgets every clock: the write that follows races a record already there. */
function staleOnce(client: LoomClient): NextClockClient {
  let stale = true;
  return {
    ingestRecord: client.ingestRecord,
    getThreadState: (async (options: Parameters<LoomClient['getThreadState']>[0]) => {
      const result = await client.getThreadState(options);
      if (stale && result.data) {
        stale = false;
        return { ...result, data: { ...result.data, value: { ...result.data.value, actor_clocks: {} } } };
      }
      return result;
    }) as NextClockClient['getThreadState'],
  };
}

describe('appendAtNextClock (SDK, against a live server)', () => {
  let server: StartedServer;
  let loom: LoomClient;

  before(async () => {
    server = await startServer();
    loom = createLoomClient({ baseUrl: server.url });
  });

  after(async () => {
    await server?.stop();
  });

  it("writes an actor's first record on a thread at clock 0, the next ones after its own highest", async () => {
    const thread = taskThreadId('next-clock', newThreadNonce());
    const first = await appendAtNextClock(loom, draft(thread, ALICE, { n: 1 }));
    expect(first.response.status).to.equal(201);
    expect(first.data?.clock).to.equal(0);
    expect((await appendAtNextClock(loom, draft(thread, BOB))).data?.clock).to.equal(0);
    const second = await appendAtNextClock(loom, draft(thread, ALICE, { n: 2 }));
    expect(second.data).to.include({ clock: 1, actor: ALICE, thread });
  });

  it('lands every one of several concurrent writes by one actor, each at its own clock', async () => {
    const thread = taskThreadId('next-clock', newThreadNonce());
    const results = await Promise.all([0, 1, 2, 3].map((i) => appendAtNextClock(loom, draft(thread, ALICE, { i }))));
    for (const result of results) expect(result.error).to.equal(undefined);
    expect(results.map((result) => result.data!.clock).sort()).to.deep.equal([0, 1, 2, 3]);
  });

  it('writes at the clock after a record that took its clock first (a 409 DUPLICATE_CLOCK), or hands the 409 back when out of attempts', async () => {
    const thread = taskThreadId('next-clock', newThreadNonce());
    await appendAtNextClock(loom, draft(thread, ALICE, { n: 1 }));
    const retried = await appendAtNextClock(staleOnce(loom), draft(thread, ALICE, { n: 2 }));
    expect(retried.response.status).to.equal(201);
    expect(retried.data?.clock).to.equal(1);
    const refused = await appendAtNextClock(staleOnce(loom), draft(thread, ALICE, { n: 3 }), { attempts: 1 });
    expect(refused.response.status).to.equal(409);
    expect(refused.error?.code).to.equal('DUPLICATE_CLOCK');
  });

  it("hands back the thread state's refusal when the clock cannot be read", async () => {
    const result = await appendAtNextClock(loom, draft('th_not-a-thread', ALICE));
    expect(result.data).to.equal(undefined);
    expect(result.response.status).to.equal(400);
  });
});
