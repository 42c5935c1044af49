/**
 * Batch ingest (issue 19): records/s through POST /v1/records/batch (100
 * records per request) ÷ records/s through POST /v1/records (one per
 * request), the same full Loom server (SQLite, durability full, auth off),
 * measured in the same run, one server process each. Target ≥ 5.
 */
import { fmt, forkChild, log, main, ratioCheck, round, SCALE, type Check } from './support/harness.js';
import { CONNECTIONS, load, loomServer, nextBody } from './support/http-load.js';

const DURATION_S = Math.max(3, Math.round(10 * SCALE));
const WARMUP_S = Math.max(1, Math.round(2 * SCALE));
const BATCH = 100;
const BATCH_CONNECTIONS = Number(process.env["BENCH_BATCH_CONNECTIONS"] ?? 8);

const batchBody = () => '[' + Array.from({ length: BATCH }, nextBody).join(',') + ']';

async function measure(label: string, path: string, body: () => string, connections: number, perRequest: number) {
  const child = forkChild(import.meta.url, ['--phase', 'loom'], `server ${label}`, { BENCH_PHASE_PAYLOAD: JSON.stringify({ durability: 'full', storage: 'sqlite' }) });
  const { url } = await child.message<{ kind: 'ready'; url: string }>('ready', 60_000);
  await load(url, WARMUP_S, {}, path, connections, body);
  const result = await load(url, DURATION_S, {}, path, connections, body);
  child.send({ kind: 'stop' });
  const { value } = await child.message<{ kind: 'phase-result'; value: { stored: number } }>('phase-result', 60_000);
  await child.exited;
  const requests = result['2xx'] / result.duration;
  return { label, reqPerSec: round(requests, 1), recordsPerSec: Math.round(requests * perRequest), p99Ms: result.latency.p99, non2xx: result.non2xx, errors: result.errors, stored: value.stored };
}

async function run() {
  const single = await measure('single', '/v1/records', nextBody, CONNECTIONS, 1);
  log(`    POST /v1/records [baseline], ${CONNECTIONS} connections: ${fmt(single.recordsPerSec)} records/s, p99 ${single.p99Ms} ms, non-2xx ${single.non2xx}`);
  const batch = await measure('batch', '/v1/records/batch', batchBody, BATCH_CONNECTIONS, BATCH);
  log(`    POST /v1/records/batch (${BATCH} per request), ${BATCH_CONNECTIONS} connections: ${fmt(batch.reqPerSec)} req/s = ${fmt(batch.recordsPerSec)} records/s, p99 ${batch.p99Ms} ms, non-2xx ${batch.non2xx}; ${fmt(batch.stored)} records stored`);
  const ratio = batch.recordsPerSec / single.recordsPerSec;
  log(`    RATIO batch ÷ single, records/s: ${ratio.toFixed(2)} (target ≥ 5)`);
  const checks: Check[] = [ratioCheck('records/s through POST /v1/records/batch ÷ POST /v1/records', ratio, '>=', 5, `${fmt(batch.recordsPerSec)} vs ${fmt(single.recordsPerSec)} records/s`)];
  return { figures: { single, batch, ratio: round(ratio, 2) }, checks };
}

main(import.meta.url, {
  name: 'batch-ingest',
  title: 'records/s through the batch route ÷ single-record ingest',
  phases: { loom: loomServer as never },
  run,
});
