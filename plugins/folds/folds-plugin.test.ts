/**
 * The named folds over loopback HTTP, on both drivers: task_list, turn,
 * frame and rollup through the ledger's generic fold routes and
 * GET /v1/folds/rollup; system threads never reach them; a thread-grained
 * caller's answers never mention a thread it cannot read; after a restart
 * the folds equal the ones built incrementally.
 */
import { expect } from 'chai';
import { bearer, bootstrapAdmin, createAccount, type Credential } from '../../test/helpers/auth.js';
import { expectEnvelope, get, newThread, recordInput, request, startServer, type StartedServer } from '../../test/helpers/http-server.js';

const ALICE = 'did:sync:user:alice';
const BOB = 'did:sync:agent:bob';
const CAROL = 'did:sync:user:carol';

for (const storage of ['sqlite', 'level'] as const) {
  describe(`folds plugin: named folds over HTTP (${storage})`, function () {
    this.timeout(60_000);
    let server: StartedServer;
    let url: string;
    let admin: Credential;
    let reader: Credential;
    const A = newThread('folds-a');
    const B = newThread('folds-b');
    const clocks = new Map<string, number>();
    const ids: Record<string, string> = {};

    const write = async (name: string, thread: string, actor: string, act: string, body: Record<string, unknown>) => {
      const key = `${actor} ${thread}`;
      const clock = (clocks.get(key) ?? -1) + 1;
      clocks.set(key, clock);
      const answer = await request(url, 'POST', '/v1/records', { json: recordInput({ thread, actor, act, body, clock }), headers: bearer(admin) });
      expect(answer.status, answer.text).to.equal(201);
      ids[name] = answer.json.id as string;
    };
    const fold = async (path: string, who: Credential = admin) => {
      const answer = await get(url, path, bearer(who));
      expect(answer.status, answer.text).to.equal(200);
      return answer.json;
    };

    before(async () => {
      server = await startServer({ storage, auth: { required: true }, keepDataDir: true });
      url = server.url;
      admin = await bootstrapAdmin(url);
      // A record on a reserved thread: configuration, never coordination work.
      const declared = await request(url, 'POST', '/v1/records', {
        json: { thread: 'th_namespace_registry', actor: admin.did, act: 'LEARN', body: { namespace_id: 'acme' }, clock: 0, data_type: 'SCALAR' },
        headers: bearer(admin),
      });
      expect(declared.status, declared.text).to.equal(201);
      await write('task', A, ALICE, 'INTEND', { task: true, goal: 'Write the notes', assigned_to: BOB });
      await write('fix', A, ALICE, 'KNOW', { topic: 'correction', supersedes: ids['task']!, reason: 'scope', goal: 'Write the release notes' });
      await write('done', A, BOB, 'KNOW', { fulfills: ids['task']!, summary: 'written' });
      await write('verdict', A, CAROL, 'KNOW', { fulfills: ids['done']!, verdict: 'accept' });
      await write('secret', B, CAROL, 'INTEND', { task: true, goal: 'Secret plan' });
      await write('cancel', B, CAROL, 'DO', { cancels: ids['secret']!, reason: 'dropped' });
      reader = await createAccount(url, admin, 'thread reader', [`thread:${A}:read`]);
    });
    after(async () => {
      await server?.stop();
      await import('node:fs/promises').then(({ rm }) => rm(server.dataDir, { recursive: true, force: true }));
    });

    it('lists the named folds with their scopes', async () => {
      const scopes = Object.fromEntries((await fold('/v1/folds')).data.map((f: { name: string; scope: string }) => [f.name, f.scope]));
      expect(scopes).to.include({ task_list: 'global', rollup: 'global', turn: 'thread', frame: 'thread' });
    });

    it('task_list: every task with its state after corrections and cancellations', async () => {
      const answer = await fold('/v1/folds/task_list');
      expect(answer.fold_name).to.equal('task_list');
      const tasks = answer.value.tasks.map((t: any) => [t.id, t.goal, t.state, t.corrected_by]);
      expect(tasks).to.deep.equal([
        [ids['task'], 'Write the release notes', 'approved', ids['fix']],
        [ids['secret'], 'Secret plan', 'cancelled', null],
      ]);
      expect(answer.value.counts).to.deep.include({ total: 2, approved: 1, cancelled: 1, corrected: 1 });
    });

    it('turn and frame of a thread', async () => {
      const turn = (await fold(`/v1/folds/turn/${A}`)).value;
      expect(turn.turns.map((t: any) => [t.actor, t.records.length])).to.deep.equal([[ALICE, 2], [BOB, 1], [CAROL, 1]]);
      expect(turn.turns[0].records[0]).to.deep.include({ id: ids['task'], text: 'Write the release notes', corrected_by: ids['fix'] });
      const frame = await fold(`/v1/folds/frame/${A}`);
      expect(frame.fold_name).to.equal('frame');
      expect(frame.value).to.deep.include({ title: 'Write the release notes', status: 'closed', opened_by: ALICE, record_count: 4, corrections: 1 });
      expect(frame.value.participants.map((p: any) => [p.actor, p.roles])).to.deep.equal([[ALICE, ['opener']], [BOB, ['worker']], [CAROL, ['reviewer']]]);
      expect(frame.value.last_verdict).to.deep.include({ record: ids['verdict'], verdict: 'accept' });
      expect(frame.value.tasks.counts).to.deep.include({ approved: 1, open: 0 });
    });

    it('rollup: a digest of the coordination records, reserved and system threads left out', async () => {
      const answer = await fold('/v1/folds/rollup');
      expect(answer.fold_name).to.equal('rollup');
      expect(answer.value).to.deep.include({ records: 6, threads: 2, corrections: 1, cancellations: 1 });
      expect(answer.value.records_by_act).to.deep.equal({ INTEND: 2, KNOW: 3, DO: 1 });
      expect(answer.value.tasks).to.deep.include({ total: 2, approved: 1, cancelled: 1 });
      expect(answer.value.busiest_threads).to.deep.equal([{ thread: A, records: 4 }, { thread: B, records: 2 }]);
      expect(await fold('/v1/folds/rollup?root=%E2%8A%A4')).to.deep.equal(answer);
    });

    it('rollup refuses another root with 400 INVALID_SHAPE, and answers 304 to its own ETag', async () => {
      expectEnvelope(await get(url, '/v1/folds/rollup?root=did:web:peer.example', bearer(admin)), 400, 'INVALID_SHAPE');
      const first = await get(url, '/v1/folds/rollup', bearer(admin));
      expect(first.headers.get('etag')).to.equal(`"${first.json.cache_key}"`);
      const again = await get(url, '/v1/folds/rollup', { ...bearer(admin), 'if-none-match': first.headers.get('etag')! });
      expect(again.status).to.equal(304);
    });

    it('a thread-grained caller is answered over its thread only: nothing of the other thread is mentioned', async () => {
      const tasks = await fold('/v1/folds/task_list', reader);
      expect(tasks.value.tasks.map((t: any) => t.id)).to.deep.equal([ids['task']]);
      const rollup = await fold('/v1/folds/rollup', reader);
      expect(rollup.value).to.deep.include({ records: 4, threads: 1 });
      for (const answer of [tasks, rollup]) {
        const text = JSON.stringify(answer);
        for (const hidden of [B, ids['secret']!, ids['cancel']!, 'Secret plan']) expect(text).not.to.include(hidden);
      }
      expect((await fold(`/v1/folds/frame/${B}`, reader)).value).to.deep.include({ record_count: 0, title: null, participants: [] });
      expect((await fold(`/v1/folds/turn/${B}`, reader)).value).to.deep.include({ record_count: 0, turns: [] });
    });

    it('after a restart, the folds equal the ones built incrementally', async () => {
      const paths = ['/v1/folds/task_list', '/v1/folds/rollup', `/v1/folds/frame/${A}`, `/v1/folds/turn/${A}`];
      const before = await Promise.all(paths.map((path) => fold(path)));
      await server.stop();
      server = await startServer({ storage, auth: { required: true }, dataDir: server.dataDir, keepDataDir: true });
      url = server.url;
      const after = await Promise.all(paths.map((path) => fold(path)));
      expect(after.map((a) => a.value)).to.deep.equal(before.map((b) => b.value));
    });
  });
}
