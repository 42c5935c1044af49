/**
 * Member actors at scale (issue 32): 10,000 members with 20 definition
 * versions each (200,000 records on th_actor_registry, loaded through the
 * ingestor as a replay, as an import would), then over HTTP on one
 * reference server (createReferenceLoom, SQLite, auth off, silent logger):
 *
 * - GET /v1/actors/roster (a page of 100 after a random member) p95 < 20 ms;
 * - GET /v1/actors/{did}/history (20 versions, a random member) p95 < 10 ms;
 * - POST /v1/actors/define p50 ÷ POST /v1/records p50, one request at a
 *   time, alternating, same server, same run: ≤ 1.5.
 *
 * Both answer from the member_registry fold (and, for history, 21 record
 * reads by id), never a log scan, so neither grows with the log.
 */
import { ingestAs } from './support/members-load.js';
import { fmt, log, main, makeTempDir, percentile, round, SCALE, scaled, type Check } from './support/harness.js';

const MEMBERS = scaled(10_000, 200);
const VERSIONS = 20;
const SAMPLES = Math.max(100, Math.round(400 * SCALE));

async function timed(url: string, method: string, path: string, body?: unknown): Promise<number> {
  const started = performance.now();
  const response = await fetch(url + path, { method, ...(body !== undefined ? { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) } : {}) });
  const text = await response.text();
  const ms = performance.now() - started;
  if (response.status >= 300) throw new Error(`${method} ${path} answered ${response.status}: ${text.slice(0, 300)}`);
  return ms;
}

async function run() {
  await import('reflect-metadata');
  const { createReferenceLoom } = await import('../server/reference-loom.js');
  const { silentLogger } = await import('../core/plugin/logger.js');
  const { memberDid } = await import('../plugins/members/index.js');
  const loom = await createReferenceLoom({ dataDir: makeTempDir('members'), host: '127.0.0.1', port: 0, logger: silentLogger, durability: 'normal', auth: { required: false }, fleet: { heartbeat: false } });
  const url = await loom.start();
  const owner = 'did:sync:user:operator';
  const loadStarted = performance.now();
  const dids = await ingestAs(loom, owner, MEMBERS, VERSIONS);
  const loadS = round((performance.now() - loadStarted) / 1000, 1);
  log(`    ${fmt(MEMBERS)} members × ${VERSIONS} versions = ${fmt(MEMBERS * VERSIONS)} definition records loaded in ${loadS} s`);
  const random = (n: number) => Math.floor(Math.random() * n);

  for (let i = 0; i < 20; i++) await timed(url, 'GET', '/v1/actors/roster');
  const roster: number[] = [];
  for (let i = 0; i < SAMPLES; i++) roster.push(await timed(url, 'GET', `/v1/actors/roster?after=${encodeURIComponent(dids[random(dids.length)]!)}`));
  const history: number[] = [];
  for (let i = 0; i < SAMPLES; i++) history.push(await timed(url, 'GET', `/v1/actors/${dids[random(dids.length)]}/history`));

  const define: number[] = [];
  const ingest: number[] = [];
  const thread = `th_${'b'.repeat(64)}`;
  for (let i = 0; i < SAMPLES; i++) {
    define.push(await timed(url, 'POST', '/v1/actors/define', { label: `bench-new-${i}`, work_loop: { model: 'claude-haiku-4-5', max_turns: 5 } }));
    ingest.push(await timed(url, 'POST', '/v1/records', { thread, actor: 'did:sync:user:bench', act: 'KNOW', body: { n: i }, clock: i, data_type: 'SCALAR', parents: [], judged_by: null }));
  }
  await loom.stop();
  if (memberDid(owner, 'bench-0') !== dids[0]) throw new Error('the loaded members are not the DIDs define derives');

  const rosterP95 = round(percentile(roster, 95), 2);
  const historyP95 = round(percentile(history, 95), 2);
  const defineP50 = round(percentile(define, 50), 2);
  const ingestP50 = round(percentile(ingest, 50), 2);
  const checks: Check[] = [
    { label: `roster page of 100 at ${fmt(MEMBERS)} members, p95 (ms)`, ratio: rosterP95, target: '< 20 ms', pass: rosterP95 < 20, detail: `p50 ${round(percentile(roster, 50), 2)} ms over ${SAMPLES} requests` },
    { label: `history of ${VERSIONS} versions, p95 (ms)`, ratio: historyP95, target: '< 10 ms', pass: historyP95 < 10, detail: `p50 ${round(percentile(history, 50), 2)} ms over ${SAMPLES} requests` },
    { label: 'define p50 ÷ plain ingest p50', ratio: round(defineP50 / ingestP50, 3), target: '≤ 1.5', pass: defineP50 / ingestP50 <= 1.5, detail: `define p50 ${defineP50} ms, POST /v1/records [baseline] p50 ${ingestP50} ms, ${SAMPLES} each, alternating` },
  ];
  return { figures: { members: MEMBERS, versions: VERSIONS, load_s: loadS, roster_p95_ms: rosterP95, history_p95_ms: historyP95, define_p50_ms: defineP50, ingest_p50_ms: ingestP50 }, checks };
}

main(import.meta.url, { name: 'members', title: `roster and history at ${MEMBERS} members × ${VERSIONS} versions; define ÷ plain ingest`, run });
