/**
 * Every global fold of the reference server, after a restart from its
 * checkpoint and after a rebuild from the log (checkpoints deleted), equals
 * the value built incrementally while the records arrived: on both drivers,
 * over tasks, claims, verdicts, corrections, cancellations and a dispatch.
 * Trust reads the clock, so the server runs on a fixed one.
 */
import { expect } from 'chai';
import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { get, newThread, recordInput, request, startServer, type StartedServer } from '../helpers/http-server.js';

const NOW = Date.UTC(2026, 10, 1);

for (const storage of ['sqlite', 'level'] as const) {
  describe(`global folds across a restart (${storage})`, function () {
    this.timeout(60_000);
    let server: StartedServer | null = null;
    const clocks = new Map<string, number>();

    after(async () => {
      await server?.stop();
    });

    const same = (actual: Record<string, unknown>, expected: Record<string, unknown>) => {
      for (const name of Object.keys(expected)) expect(actual[name], name).to.deep.equal(expected[name]);
      expect(Object.keys(actual)).to.deep.equal(Object.keys(expected));
    };

    const write = async (thread: string, actor: string, act: string, body: Record<string, unknown>, judgedBy: string | null = null) => {
      const key = `${actor} ${thread}`;
      const clock = clocks.get(key) ?? 0;
      clocks.set(key, clock + 1);
      const answer = await request(server!.url, 'POST', '/v1/records', { json: { ...recordInput({ thread, actor, clock, body }), act, judged_by: judgedBy } });
      expect(answer.status, answer.text).to.equal(201);
      return answer.json.id as string;
    };

    const globalFolds = async () => {
      const list = (await get(server!.url, '/v1/folds')).json.data as Array<{ name: string; scope: string }>;
      const values: Record<string, unknown> = {};
      for (const { name, scope } of list) {
        if (scope !== 'global') continue;
        const answer = await get(server!.url, `/v1/folds/${name}`);
        expect(answer.status, `${name}: ${answer.text}`).to.equal(200);
        // The grant fold says when it was read (its expiries are checked against the wall clock), not a fact of the log.
        const { as_of: _readAt, ...value } = answer.json.value as Record<string, unknown>;
        values[name] = name === 'grant' ? value : answer.json.value;
      }
      return values;
    };

    it('restarted from checkpoints and rebuilt from the log, every global fold equals the incremental one', async () => {
      server = await startServer({ storage, clock: () => NOW, keepDataDir: true });
      const dataDir = server.dataDir;
      for (let t = 0; t < 6; t++) {
        const thread = newThread(`restart-${storage}-${t}`);
        const worker = `did:sync:agent:w${t % 2}`;
        const task = await write(thread, 'did:sync:user:alice', 'INTEND', { task: true, goal: `goal ${t}`, assigned_to: worker, domain: t % 2 ? 'code' : 'docs' });
        await write(thread, worker, 'DO', { tool: 'edit' });
        const claim = await write(thread, worker, 'KNOW', { fulfills: task, summary: 'done' });
        const verdict = await write(thread, 'did:sync:user:rita', 'KNOW', { fulfills: task, verdict: t % 3 ? 'accept' : 'reject' }, claim);
        if (t === 1) await write(thread, 'did:sync:user:rita', 'KNOW', { topic: 'correction', supersedes: verdict, verdict: 'reject', reason: 'tests fail' });
        if (t === 2) await write(thread, 'did:sync:user:alice', 'KNOW', { topic: 'correction', supersedes: task, goal: 'goal 2, corrected' });
        if (t === 3) await write(thread, 'did:sync:user:alice', 'DO', { cancels: task, reason: 'dropped' });
        if (t === 4) {
          const dispatched = await request(server!.url, 'POST', '/v1/dispatch', { json: { actor_did: worker, goal: 'follow up', thread_id: thread } });
          expect(dispatched.status, dispatched.text).to.be.oneOf([200, 201]);
        }
      }
      const incremental = await globalFolds();
      expect(Object.keys(incremental)).to.include.members(['trust', 'task_list', 'rollup', 'graph', 'actor_directory', 'dispatches']);
      await server!.stop();
      expect(await readdir(join(dataDir, 'folds'))).to.include.members(['trust.ckpt', 'task_list.ckpt', 'rollup.ckpt', 'graph.ckpt', 'actor_directory.ckpt', 'dispatches.ckpt']);

      server = await startServer({ storage, clock: () => NOW, dataDir, keepDataDir: true });
      same(await globalFolds(), incremental);
      const trust = (await get(server!.url, '/v1/trust')).json;
      const actors = (await get(server!.url, '/v1/actors')).json;
      await server!.stop();

      // Every checkpoint loading after the server listens: reads wait for their fold (the reader's, and a plugin
      // route's synchronous read, run again once it loaded), and answer the same.
      server = await startServer({ storage, clock: () => NOW, dataDir, keepDataDir: true, lazyFoldCheckpointBytes: 0 });
      const [lazyTrust, lazyActors, lazyFolds] = await Promise.all([get(server!.url, '/v1/trust'), get(server!.url, '/v1/actors'), globalFolds()]);
      expect(lazyTrust.json).to.deep.equal(trust);
      expect(lazyActors.json).to.deep.equal(actors);
      same(lazyFolds, incremental);
      expect(server!.loom.engine.folds.loadingFolds()).to.deep.equal([]);
      await server!.stop();

      await rm(join(dataDir, 'folds'), { recursive: true });
      server = await startServer({ storage, clock: () => NOW, dataDir });
      same(await globalFolds(), incremental);
      await server!.stop();
      server = null;
    });
  });
}
