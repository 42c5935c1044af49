/**
 * The log-consumer compliance suite with real processes
 * (test/helpers/consumer-probe-server.ts): a consumer killed with SIGKILL
 * resumes after its saved checkpoint (nothing at or below it handed twice,
 * nothing skipped); on a shared PostgreSQL log a leader-only consumer runs on
 * exactly one of two servers, and the other takes over within 15 s of the
 * leader's SIGKILL, resuming from the checkpoint the store keeps.
 */
import { expect } from 'chai';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PostgresRecordStore } from '../../storage/postgres/index.js';
import { clusterOrSkip, freshDatabase } from '../helpers/postgres-test-support.js';
import type { ThrowawayCluster } from '../../storage/postgres/throwaway-cluster.js';
import { get, mapLimit, newThread, postJson, recordInput } from '../helpers/http-server.js';

const SCRIPT = resolve(fileURLToPath(new URL('.', import.meta.url)), '../helpers/consumer-probe-server.js');

interface ProbeProcess {
  readonly url: string;
  readonly child: ChildProcess;
  kill(): Promise<void>;
  stop(): Promise<void>;
}

async function startProbe(env: Record<string, string>): Promise<ProbeProcess> {
  const child = spawn(process.execPath, [SCRIPT], { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, ...env } });
  let err = '';
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  const url = await new Promise<string>((done, fail) => {
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
      err = (err + chunk).slice(-20_000);
      const match = /listening on (http:\/\/[^\s]+)/.exec(err);
      if (match) done(match[1]!);
    });
    child.once('exit', (code) => fail(new Error(`probe server exited with ${code}:\n${err}`)));
  });
  const end = async (signal: NodeJS.Signals) => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    await exited;
  };
  return { url, child, kill: () => end('SIGKILL'), stop: () => end('SIGTERM') };
}

/** The lines a probe wrote: sequence and record id of each handled record, in order. */
async function handled(file: string): Promise<Array<{ sequence: number; id: string }>> {
  const text = await readFile(file, 'utf8').catch(() => '');
  return text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => {
      const [sequence, id] = line.split(' ');
      return { sequence: Number(sequence), id: id! };
    });
}

async function until(what: string, check: () => Promise<boolean>, timeoutMs: number): Promise<number> {
  const started = Date.now();
  while (!(await check())) {
    if (Date.now() - started > timeoutMs) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return Date.now() - started;
}

async function write(url: string, count: number, thread = newThread('consumer-proc')): Promise<string[]> {
  return mapLimit([...Array(count).keys()], 8, async (i) => {
    const answer = await postJson(url, '/v1/records', recordInput({ thread, actor: `did:sync:agent:w${i % 8}`, clock: Math.floor(i / 8), body: { i } }));
    expect(answer.status, answer.text).to.equal(201);
    return answer.json.id as string;
  });
}

/** Nothing at or below `checkpoint` handled twice; every id in `expected` handled. */
function expectResumed(lines: Array<{ sequence: number; id: string }>, checkpoint: number, expected: readonly string[]): void {
  const counts = new Map<number, number>();
  for (const { sequence } of lines) counts.set(sequence, (counts.get(sequence) ?? 0) + 1);
  const twice = [...counts].filter(([sequence, n]) => sequence <= checkpoint && n > 1);
  expect(twice, 'handled twice at or below the saved checkpoint').to.deep.equal([]);
  const ids = new Set(lines.map((line) => line.id));
  expect(expected.filter((id) => !ids.has(id)), 'skipped').to.deep.equal([]);
}

describe('log consumers (kernel compliance, real processes)', function () {
  this.timeout(120_000);

  it('after kill -9, resumes after the saved checkpoint: nothing it saved handled twice, nothing skipped (sqlite)', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'loom-consumer-'));
    const file = join(dataDir, 'handled.txt');
    const env = { PROBE_DATA_DIR: dataDir, PROBE_FILE: file, PROBE_BATCH: '5', PROBE_BATCH_MS: '15' };
    let server = await startProbe(env);
    try {
      const first = await write(server.url, 200);
      await until('some batches handled', async () => (await handled(file)).length >= 40, 20_000);
      await server.kill();
      const checkpointFile = join(dataDir, 'plugins', 'probe', 'probe-checkpoint.json');
      const checkpoint = (JSON.parse(await readFile(checkpointFile, 'utf8')) as { after: number }).after;
      const before = await handled(file);
      expect(before.length, 'killed mid-way').to.be.below(first.length);
      expect(checkpoint).to.be.at.least(before[0]!.sequence);

      server = await startProbe(env);
      const second = await write(server.url, 20);
      await until('everything handled after the restart', async () => new Set((await handled(file)).map((l) => l.id)).size >= first.length + second.length, 30_000);
      const lines = await handled(file);
      expectResumed(lines, checkpoint, [...first, ...second]);
      // The restart began right after the checkpoint: the first line it wrote is the record after it.
      const firstAfter = lines[before.length]!;
      expect(firstAfter.sequence).to.be.above(checkpoint);
      expect(lines.slice(before.length).map((l) => l.sequence)).to.deep.equal(lines.slice(before.length).map((l) => l.sequence).sort((a, b) => a - b));
    } finally {
      await server.stop();
      await rm(dataDir, { recursive: true, force: true });
    }
  });

  describe('on one PostgreSQL database', () => {
    let cluster: ThrowawayCluster;
    before(async function () {
      cluster = await clusterOrSkip(this);
    });

    it('a leader-only consumer runs on exactly one of two servers; the other takes over within 15 s of the leader\'s kill -9', async () => {
      const databaseUrl = await freshDatabase(cluster, 'consumers');
      const dirs = [await mkdtemp(join(tmpdir(), 'loom-consumer-a-')), await mkdtemp(join(tmpdir(), 'loom-consumer-b-'))];
      const files = dirs.map((dir) => join(dir, 'handled.txt'));
      const servers = await Promise.all(
        dirs.map((dir, i) => startProbe({ PROBE_STORAGE: 'postgres', PROBE_DATABASE_URL: databaseUrl, PROBE_DATA_DIR: dir, PROBE_FILE: files[i]!, PROBE_LEADER_ONLY: '1', PROBE_BATCH: '5', PROBE_BATCH_MS: '10' })),
      );
      try {
        const consumerOf = async (url: string) => ((await get(url, '/health')).json.consumers as Array<{ name: string; state: string; checkpoint: number | null }>).find((c) => c.name === 'probe.probe')!;
        let states: string[] = [];
        await until('one server running the consumer, one standing by', async () => {
          states = await Promise.all(servers.map(async (s) => (await consumerOf(s.url)).state));
          return states.filter((s) => s === 'standby').length === 1;
        }, 15_000);
        const leader = states.findIndex((s) => s !== 'standby');
        const follower = 1 - leader;
        const first = await write(servers[follower]!.url, 150);
        await until('the leader handles records', async () => (await handled(files[leader]!)).length >= 30, 20_000);
        expect(await handled(files[follower]!), 'the follower handles nothing').to.deep.equal([]);

        await servers[leader]!.kill();
        const killedAt = Date.now();
        const store = new PostgresRecordStore({ connectionString: databaseUrl, poolSize: 1 });
        let checkpoint: number | null = null;
        try {
          await store.open();
          checkpoint = (await store.readCheckpoint!('probe.probe')) ?? null;
        } catch {
          checkpoint = null;
        } finally {
          await store.close().catch(() => undefined);
        }
        const second = await write(servers[follower]!.url, 20);
        await until('the follower takes over', async () => (await handled(files[follower]!)).length > 0, 15_000 - (Date.now() - killedAt));
        const tookOverMs = Date.now() - killedAt;
        expect(tookOverMs).to.be.below(15_000);
        await until('everything handled', async () => {
          const ids = new Set([...(await handled(files[0]!)), ...(await handled(files[1]!))].map((l) => l.id));
          return [...first, ...second].every((id) => ids.has(id));
        }, 30_000);
        const lines = [...(await handled(files[leader]!)), ...(await handled(files[follower]!))];
        expectResumed(lines, checkpoint ?? -1, [...first, ...second]);
        expect((await consumerOf(servers[follower]!.url)).state).to.not.equal('standby');
      } finally {
        for (const server of servers) await server.stop();
        for (const dir of dirs) await rm(dir, { recursive: true, force: true });
      }
    });
  });
});
