/**
 * Read path (issue 19): requests/s for a thread page of 100 records
 * (GET /v1/threads/{id}/records?limit=100) ÷ requests/s for one record by id
 * (GET /v1/records/{id}), the same reference server (SQLite, auth off, 20,000
 * records in 100 threads of 200), 10 connections, measured in the same run,
 * two interleaved rounds of each. Target ≥ 0.3: a page of 100 records should
 * cost far less than 100 single reads.
 */
import autocannon, { type Result } from 'autocannon';
import { fmt, forkChild, log, main, ratioCheck, round, SCALE, sendToParent, messageFromParent, makeTempDir, type Check } from './support/harness.js';
import { actorDid, BENCH_ACTS, bodyFor, threadId } from './support/records.js';

const DURATION_S = Math.max(3, Math.round(10 * SCALE));
const WARMUP_S = Math.max(1, Math.round(2 * SCALE));
const CONNECTIONS = 10;
const THREADS = 100;
const PER_THREAD = 200;
const PAGE = 100;

type Ready = {
  readonly kind: 'ready';
  readonly url: string;
  readonly ids: string[];
  readonly threads: string[];
};

/** The server phase: a reference server seeded through the ingestor, serving until `stop`. */
async function readServer(): Promise<{ stored: number }> {
  await import('reflect-metadata');
  const { createReferenceLoom } = await import('../server/reference-loom.js');
  const { silentLogger } = await import('../core/plugin/logger.js');
  const { SYSTEM } = await import('../core/access/caller.js');
  const loom = await createReferenceLoom({ dataDir: makeTempDir('read-path'), port: 0, logger: silentLogger, storage: 'sqlite', durability: 'normal', auth: { required: false }, fleet: { heartbeat: false } });
  const url = await loom.start();
  const ids: string[] = [];
  const total = THREADS * PER_THREAD;
  for (let start = 0; start < total; start += 1000) {
    const inputs = Array.from({ length: 1000 }, (_, i) => {
      const n = start + i;
      return { parents: [], thread: threadId(n % THREADS), actor: actorDid(`reader-${n % 16}`), act: BENCH_ACTS[n % BENCH_ACTS.length]!, body: bodyFor(n), clock: n, data_type: 'SCALAR', judged_by: null };
    });
    for (const outcome of await loom.engine.ingestor.ingestMany({ caller: SYSTEM, via: 'engine' }, inputs)) {
      if (outcome instanceof Error) throw outcome;
      if (ids.length < 2000 && outcome.stored.sequence % 7 === 0) ids.push(outcome.stored.record.id);
    }
  }
  await sendToParent({ kind: 'ready', url, ids, threads: Array.from({ length: THREADS }, (_, i) => threadId(i)) } as never);
  await messageFromParent('stop');
  const stored = await loom.engine.store.watermark();
  await loom.stop();
  return { stored };
}

function loadPaths(url: string, duration: number, paths: () => string): Promise<Result> {
  return Promise.resolve(
    autocannon({
      url,
      connections: CONNECTIONS,
      duration,
      timeout: 30,
      method: 'GET',
      requests: [
        {
          setupRequest: (request) => {
            request.path = paths();
            return request;
          },
        },
      ],
    }),
  );
}

async function run() {
  const child = forkChild(import.meta.url, ['--phase', 'server'], 'read server');
  const ready = await child.message<Ready>('ready', 120_000);
  let g = 0;
  let p = 0;
  const byId = () => `/v1/records/${ready.ids[g++ % ready.ids.length]}`;
  const page = () => `/v1/threads/${ready.threads[p++ % ready.threads.length]}/records?limit=${PAGE}`;
  // A page must really hold 100 records.
  const sample = (await (await fetch(ready.url + page())).json()) as { data: unknown[] };
  if (sample.data.length !== PAGE) throw new Error(`a thread page holds ${sample.data.length} records, not ${PAGE}`);
  await loadPaths(ready.url, WARMUP_S, byId);
  await loadPaths(ready.url, WARMUP_S, page);
  const gets: number[] = [];
  const pages: number[] = [];
  const p99 = { get: 0, page: 0 };
  for (let round = 0; round < 2; round++) {
    const get = await loadPaths(ready.url, DURATION_S, byId);
    const list = await loadPaths(ready.url, DURATION_S, page);
    if (get.non2xx > 0 || list.non2xx > 0) throw new Error(`non-2xx answers: ${get.non2xx} gets, ${list.non2xx} pages`);
    gets.push(get['2xx'] / get.duration);
    pages.push(list['2xx'] / list.duration);
    p99.get = Math.max(p99.get, get.latency.p99);
    p99.page = Math.max(p99.page, list.latency.p99);
  }
  child.send({ kind: 'stop' });
  await child.message('phase-result', 60_000);
  await child.exited;
  const getRate = gets.reduce((a, b) => a + b, 0) / gets.length;
  const pageRate = pages.reduce((a, b) => a + b, 0) / pages.length;
  const ratio = pageRate / getRate;
  log(`    GET /v1/records/{id} [baseline], ${CONNECTIONS} connections: ${gets.map((r) => fmt(r)).join(', ')} req/s (p99 ≤ ${p99.get} ms)`);
  log(`    GET /v1/threads/{id}/records?limit=${PAGE}: ${pages.map((r) => fmt(r)).join(', ')} req/s = ${fmt(pageRate * PAGE)} records/s (p99 ≤ ${p99.page} ms)`);
  log(`    RATIO page ÷ get-by-id, req/s: ${ratio.toFixed(3)} (target ≥ 0.3)`);
  const checks: Check[] = [ratioCheck(`thread page of ${PAGE} req/s ÷ get-by-id req/s`, ratio, '>=', 0.3, `${fmt(pageRate)} vs ${fmt(getRate)} req/s`)];
  return { figures: { getPerSec: round(getRate, 1), pagePerSec: round(pageRate, 1), ratio: round(ratio, 3), gets, pages }, checks };
}

main(import.meta.url, {
  name: 'read-path',
  title: 'thread page of 100 req/s ÷ get-by-id req/s',
  phases: { server: readServer as never },
  run,
});
