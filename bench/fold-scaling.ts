/**
 * Folds, the graph and start-up at scale. Two coordination logs, of 10k and
 * of 1M records (threads of 10 records: a task INTEND assigned to an agent,
 * six messages, the agent's completion claim, a reviewer's verdict judged by
 * the claim, a note; 100 threads interleaved at a time, 10 requesters, 40
 * agents, 10 reviewers), loaded into SQLite through store.appendMany, each
 * served by a real `loom serve` process on 127.0.0.1.
 * - start: spawn → first 200 from GET /health. Cold: no fold checkpoints yet
 *   (every global fold replays the log). Warm: after a clean stop wrote the
 *   checkpoints (median of 3). Target: warm start at 1M ÷ at 10k ≤ 2.
 *   Large checkpoints load after the listener opens, so the first GET
 *   /v1/folds/rollup (which waits for its fold) is timed from spawn too.
 * - settle: after the last start, until the find index has caught up (it
 *   loads its snapshot, or indexes the log, in the background).
 * - fold read (on settled servers): GET /v1/folds/thread_state/{random thread} and GET
 *   /v1/folds/rollup, one request at a time, rounds alternating between the
 *   two servers. Target: mean latency at 1M ÷ at 10k ≤ 1.5.
 * - graph: GET /v1/graph/query?op=neighborhood&node=thread:{random}&k=2.
 *   Target ≤ 1.5.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fmt, log, main, makeTempDir, mean, percentile, ratioCheck, round, scaled, seededRandom, type Check } from './support/harness.js';
import { threadId } from './support/records.js';
import { loadCoordinationLog } from './support/coordination-log.js';

const SMALL = 10_000;
const LARGE = Math.max(SMALL * 2, scaled(1_000_000, 20_000));
const REQUESTS = scaled(2_000, 200);
const ROUNDS = 10;
const LOOM = fileURLToPath(new URL('../bin/loom.js', import.meta.url));

class Server {
  private child: ChildProcess | null = null;
  constructor(
    readonly dir: string,
    readonly port: number,
  ) {}
  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }
  /** Ms from the last spawn until GET /v1/folds/rollup answered (it waits for rollup's checkpoint to load). */
  foldReadMs = 0;
  /** Spawns the server and answers the ms until GET /health answered 200. */
  async start(): Promise<number> {
    const began = performance.now();
    this.child = spawn(process.execPath, [LOOM, 'serve', '--data-dir', this.dir, '--port', String(this.port), '--insecure-localhost', '--log-level', 'warn'], { stdio: ['ignore', 'ignore', 'inherit'] });
    for (;;) {
      if (this.child.exitCode !== null) throw new Error(`server on ${this.dir} exited with ${this.child.exitCode}`);
      try {
        const response = await fetch(`${this.url}/health`);
        if (response.status === 200) {
          const health = performance.now() - began;
          await timed(`${this.url}/v1/folds/rollup`);
          this.foldReadMs = performance.now() - began;
          return health;
        }
      } catch {
        // not listening yet
      }
      await new Promise((r) => setTimeout(r, 5));
    }
  }
  /**
   * Waits until the find index has caught up with the log (restored from its
   * snapshot or rebuilt) and answers the ms it took: reads are measured on a
   * settled server, not against an index being built beside them.
   */
  async settle(): Promise<number> {
    const began = performance.now();
    for (;;) {
      const response = await fetch(`${this.url}/v1/search/stats`);
      const find = ((await response.json()) as { find?: { pending_records: number; rebuilding: unknown } }).find;
      if (!find || (find.pending_records === 0 && find.rebuilding === null)) return performance.now() - began;
      if (performance.now() - began > 20 * 60_000) throw new Error(`the find index of ${this.dir} did not catch up in 20 minutes`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  async stop(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await exited;
  }
}

async function timed(url: string): Promise<number> {
  const began = performance.now();
  const response = await fetch(url);
  await response.arrayBuffer();
  if (response.status !== 200) throw new Error(`GET ${url} answered ${response.status}`);
  return performance.now() - began;
}

interface Latency {
  meanMs: number;
  p50Ms: number;
  p99Ms: number;
}
const latency = (samples: number[]): Latency => ({ meanMs: round(mean(samples), 3), p50Ms: round(percentile(samples, 50), 3), p99Ms: round(percentile(samples, 99), 3) });

main(import.meta.url, {
  name: 'fold-scaling',
  title: 'Folds, graph and start-up at 10k vs 1M records (real loom serve processes)',
  async run() {
    const sizes = [SMALL, LARGE] as const;
    const servers: Server[] = [];
    const threads: number[] = [];
    const cold: number[] = [];
    for (const [index, n] of sizes.entries()) {
      const dir = makeTempDir(`fold-scaling-${n}`);
      log(`${fmt(n)} records:`);
      threads.push(await loadCoordinationLog(join(dir, 'loom.sqlite'), n));
      const server = new Server(dir, 19_300 + index);
      cold.push(await server.start());
      log(`  cold start (every global fold replays the log): ${fmt(cold[index]!)} ms`);
      await server.stop();
      servers.push(server);
    }
    const warm: number[][] = [[], []];
    const warmFoldRead: number[][] = [[], []];
    for (let attempt = 0; attempt < 3; attempt++) {
      for (const [index, server] of servers.entries()) {
        warm[index]!.push(await server.start());
        warmFoldRead[index]!.push(server.foldReadMs);
        if (attempt < 2) await server.stop();
      }
    }
    const warmMedian = warm.map((samples) => percentile(samples, 50));
    log(`warm start (from checkpoints): ${warmMedian.map((ms) => `${fmt(ms)} ms`).join(' vs ')}`);
    const foldReadMedian = warmFoldRead.map((samples) => percentile(samples, 50));
    log(`first rollup read after a warm start (its checkpoint loaded): ${foldReadMedian.map((ms) => `${fmt(ms)} ms`).join(' vs ')}`);
    const settled: number[] = [];
    for (const server of servers) settled.push(await server.settle());
    log(`find index caught up after the last start: ${settled.map((ms) => `${fmt(ms)} ms`).join(' vs ')}`);

    const random = seededRandom(7);
    const samples = { fold: [[], []] as number[][], rollup: [[], []] as number[][], graph: [[], []] as number[][] };
    // Warm-up: the first requests of each kind pay for lazy initialisation.
    for (const [index, server] of servers.entries()) {
      for (let k = 0; k < 50; k++) {
        const t = threadId(Math.floor(random() * threads[index]!));
        await timed(`${server.url}/v1/folds/thread_state/${t}`);
        await timed(`${server.url}/v1/graph/query?op=neighborhood&node=thread:${t}&k=2`);
      }
      await timed(`${server.url}/v1/folds/rollup`);
    }
    for (let round_ = 0; round_ < ROUNDS; round_++) {
      for (const [index, server] of servers.entries()) {
        for (let k = 0; k < REQUESTS / ROUNDS; k++) {
          const t = threadId(Math.floor(random() * threads[index]!));
          samples.fold[index]!.push(await timed(`${server.url}/v1/folds/thread_state/${t}`));
          samples.graph[index]!.push(await timed(`${server.url}/v1/graph/query?op=neighborhood&node=thread:${t}&k=2`));
          if (k % 10 === 0) samples.rollup[index]!.push(await timed(`${server.url}/v1/folds/rollup`));
        }
      }
    }
    for (const server of servers) await server.stop();

    const figures = {
      records: sizes,
      cold_start_ms: cold.map((ms) => round(ms, 0)),
      warm_start_ms: warm.map((list) => list.map((ms) => round(ms, 0))),
      find_settled_after_start_ms: settled.map((ms) => round(ms, 0)),
      warm_first_rollup_read_ms: warmFoldRead.map((list) => list.map((ms) => round(ms, 0))),
      thread_fold: samples.fold.map(latency),
      rollup: samples.rollup.map(latency),
      graph_neighborhood_k2: samples.graph.map(latency),
    };
    const ratio = (pair: number[][]) => mean(pair[1]!) / mean(pair[0]!);
    const checks: Check[] = [
      ratioCheck('warm start 1M ÷ 10k', warmMedian[1]! / warmMedian[0]!, '<=', 2, `${fmt(warmMedian[0]!)} ms vs ${fmt(warmMedian[1]!)} ms (cold: ${fmt(cold[0]!)} vs ${fmt(cold[1]!)} ms)`),
      ratioCheck('thread fold read 1M ÷ 10k', ratio(samples.fold), '<=', 1.5, `mean ${figures.thread_fold[0]!.meanMs} vs ${figures.thread_fold[1]!.meanMs} ms`),
      ratioCheck('rollup read 1M ÷ 10k', ratio(samples.rollup), '<=', 1.5, `mean ${figures.rollup[0]!.meanMs} vs ${figures.rollup[1]!.meanMs} ms`),
      ratioCheck('graph neighborhood k=2 1M ÷ 10k', ratio(samples.graph), '<=', 1.5, `mean ${figures.graph_neighborhood_k2[0]!.meanMs} vs ${figures.graph_neighborhood_k2[1]!.meanMs} ms`),
    ];
    return {
      figures,
      checks,
      notes: [`${REQUESTS} requests of each kind per size, one at a time, ${ROUNDS} rounds alternating between the servers; list-shaped folds (task_list, trust) grow with their content and are not in the ratio.`],
    };
  },
});
