/**
 * verifyFold against a live server (auth on, so the credentials thread, a
 * system thread, holds records the folds must not see): every verifiable
 * fold recomputes to the server's value, for an admin and for a
 * thread-grained reader; a tampered answer is caught with the path of the
 * difference; folds that cannot be verified are refused with
 * FoldVerificationError.
 */
import { expect } from 'chai';
import type { AnyFold } from '../core/folds/fold.js';
import { bootstrapAdmin, createAccount, type Credential } from '../test/helpers/auth.js';
import { newThread } from '../test/helpers/http-server.js';
import { startServer, type StartedServer } from '../test/helpers/start-server.js';
import { createLoomClient, FoldVerificationError, verifyFold, type LoomClient } from './index.js';

const ALICE = 'did:sync:user:alice';
const BOB = 'did:sync:agent:bob';
const CAROL = 'did:sync:user:carol';

/** A fetch that rewrites the value of answers whose path matches, as a lying server (or proxy) would. */
function tamperingFetch(path: RegExp, tamper: (value: any) => void): typeof fetch {
  return async (input, init) => {
    const response = await fetch(input, init);
    const url = new URL(input instanceof Request ? input.url : String(input));
    if (!path.test(url.pathname) || response.status !== 200) return response;
    const answer = (await response.json()) as { value: any };
    tamper(answer.value);
    return new Response(JSON.stringify(answer), { status: 200, headers: response.headers });
  };
}

describe('sdk verifyFold: offline-verifiable folds against a live server', function () {
  this.timeout(60_000);
  let server: StartedServer;
  let admin: Credential;
  let loom: LoomClient;
  let reader: LoomClient;
  const A = newThread('verify-a');
  const B = newThread('verify-b');
  const clocks = new Map<string, number>();

  const write = async (thread: string, actor: string, act: 'INTEND' | 'DO' | 'KNOW' | 'LEARN', body: Record<string, unknown>): Promise<string> => {
    const key = `${actor} ${thread}`;
    const clock = (clocks.get(key) ?? -1) + 1;
    clocks.set(key, clock);
    const { data, error } = await loom.ingestRecord({ body: { thread, actor, act, body: body as never, clock, data_type: 'SCALAR' } });
    expect(error, JSON.stringify(error)).to.equal(undefined);
    return data!.id;
  };

  before(async () => {
    server = await startServer({ auth: { required: true } });
    admin = await bootstrapAdmin(server.url);
    loom = createLoomClient({ baseUrl: server.url, token: admin.token });
    await write('th_namespace_registry', admin.did, 'LEARN', { namespace_id: 'acme' });
    const task = await write(A, ALICE, 'INTEND', { task: true, goal: 'Draft the plan', assigned_to: BOB, labels: ['q3'] });
    await write(A, ALICE, 'KNOW', { topic: 'correction', supersedes: task, goal: 'Draft the Q3 plan', reason: 'scope' });
    const done = await write(A, BOB, 'KNOW', { fulfills: task, summary: 'drafted' });
    const verdict = await write(A, CAROL, 'KNOW', { fulfills: done, verdict: 'reject', summary: 'thin' });
    await write(A, CAROL, 'DO', { cancels: verdict, reason: 'misread' });
    await write(A, BOB, 'DO', { tool: 'editor', dispatch_handled: true });
    const other = await write(B, CAROL, 'INTEND', { task: true, goal: 'Hidden work', namespace: 'acme' });
    // A thread holds records of one namespace: the rest of thread B is in acme too.
    await write(B, CAROL, 'DO', { cancels: other, namespace: 'acme' });
    for (let i = 0; i < 5; i++) await write(B, BOB, 'KNOW', { observation: `note ${i}`, namespace: 'acme' });
    const grained = await createAccount(server.url, admin, 'thread reader', [`thread:${A}:read`]);
    reader = createLoomClient({ baseUrl: server.url, token: grained.token });
  });
  after(async () => server?.stop());

  const cases: Array<[string, string | undefined]> = [
    ['thread_state', A],
    ['turn', A],
    ['frame', A],
    ['frame', B],
    ['task_list', undefined],
    ['rollup', undefined],
    ['namespace_registry', undefined],
  ];
  for (const [name, key] of cases) {
    it(`${name}${key === A ? ' (thread a)' : key === B ? ' (thread b)' : ''}: the recomputed value equals the server's`, async () => {
      const result = await verifyFold(loom, name, key, { pageSize: 3 });
      expect(result.differences).to.deep.equal([]);
      expect(result).to.include({ ok: true, fold_name: name, key: key ?? null });
      expect(result.records).to.be.greaterThan(0);
      expect(result.local_value).to.deep.equal(result.server_value);
    });
  }

  it('leaves out the system threads a global fold ignores (the credentials thread holds records)', async () => {
    const result = await verifyFold(loom, 'rollup');
    expect(result.ok).to.equal(true);
    expect((result.server_value as { records: number }).records).to.equal(13);
    expect(result.records).to.equal(13);
  });

  it('a thread-grained reader verifies the folds as it is served them, over its own records', async () => {
    for (const [name, key] of [['task_list', undefined], ['rollup', undefined], ['frame', A]] as const) {
      const result = await verifyFold(reader, name, key);
      expect(result.ok, `${name}: ${JSON.stringify(result.differences)}`).to.equal(true);
      expect(JSON.stringify(result.server_value)).not.to.include(B);
    }
    expect((await verifyFold(reader, 'rollup')).records).to.equal(6);
    const hidden = await verifyFold(reader, 'turn', B);
    expect(hidden).to.deep.include({ ok: true, records: 0 });
    expect(hidden.server_value).to.deep.include({ record_count: 0, turns: [] });
  });

  it('detects a tampered answer and says where the values differ', async () => {
    const lying = createLoomClient({
      baseUrl: server.url,
      token: admin.token,
      fetch: tamperingFetch(/^\/v1\/folds\/task_list$/, (value) => (value.tasks[0].state = 'approved')),
    });
    const result = await verifyFold(lying, 'task_list');
    expect(result.ok).to.equal(false);
    expect(result.differences).to.deep.equal([{ path: '/tasks/0/state', server: 'approved', local: 'done' }]);

    const hiding = createLoomClient({ baseUrl: server.url, token: admin.token, fetch: tamperingFetch(/^\/v1\/folds\/frame\//, (value) => (value.participants = [])) });
    const frame = await verifyFold(hiding, 'frame', A);
    expect(frame.ok).to.equal(false);
    expect(frame.differences.map((d) => d.path)).to.include('/participants/0');
  });

  it('refuses what it cannot verify with FoldVerificationError', async () => {
    const refusal = async (run: () => Promise<unknown>) => {
      try {
        await run();
      } catch (error) {
        expect(error).to.be.instanceOf(FoldVerificationError);
        return error as FoldVerificationError;
      }
      throw new Error('expected a FoldVerificationError');
    };
    await refusal(() => verifyFold(loom, 'trust'));
    await refusal(() => verifyFold(loom, 'turn'));
    await refusal(() => verifyFold(loom, 'rollup', A));
    const clockFold: AnyFold = { name: 'clocked', scope: 'global', description: 'reads the time', readsRealTime: true, initial: () => 0, apply: (s) => s, value: () => Date.now() };
    await refusal(() => verifyFold(loom, 'clocked', undefined, { folds: [clockFold] }));
    const missing: AnyFold = { ...clockFold, name: 'not_on_server', readsRealTime: false };
    expect((await refusal(() => verifyFold(loom, 'not_on_server', undefined, { folds: [missing] }))).code).to.equal('NOT_FOUND');
  });
});
