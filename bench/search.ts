/**
 * Search (issue 18), three measurements, each against a baseline of the same run:
 *
 * 1. Ingest with embedding on ÷ off: req/s of POST /v1/records on a full
 *    Loom (SQLite, durability full, auth off) under 64 connections, once
 *    with no embedding provider and once with a provider pointing at a local
 *    server speaking Ollama's /api/embed (384 dimensions, its own process,
 *    as a real embedding server would be). Target ≥ 0.9. Also reported: how
 *    far the background embedder had got when the load stopped, and how long
 *    it took to drain.
 * 2. Vector search at 100k × 384: p95 of the nearest-10 search (HNSW graph
 *    plus exact re-scoring, as the plugin runs it) over clustered unit
 *    vectors, and its recall@10 against exact search of the same vectors.
 *    Targets: p95 < 20 ms, recall ≥ 0.95. Baseline: exact search, same run.
 * 3. Find at 100k records: p95 of GET /v1/find's work (BM25 over the index,
 *    visibility through the reader, snippets) in process, over 1–3-word
 *    queries drawn like the corpus's words (Zipf). Target < 20 ms. Baseline:
 *    the bare index query (top 20) of the same words, same run. Also reported:
 *    the index's rebuild time from the log at start.
 */
import { fmt, log, main, makeTempDir, messageFromParent, peakRssMb, percentile, ratioCheck, round, SCALE, scaled, seededRandom, sendToParent, type Check } from './support/harness.js';
import { CONNECTIONS, describe, measureServer, type Measured, type ServerReport } from './support/http-load.js';
import { nodeSha256Hex } from '../core/engine/native-hash.js';
import { computeRecordId } from '../core/records/record-id.js';
import { makeRecord, type RecordFields } from '../core/records/record.js';
import type { PreparedRecord } from '../storage/contract/stored-record.js';
import { threadId } from './support/records.js';

const DURATION_S = Math.max(3, Math.round(10 * SCALE));
const WARMUP_S = Math.max(1, Math.round(2 * SCALE));
const VECTORS = scaled(100_000, 2_000);
const DIMS = 384;
const FIND_RECORDS = scaled(100_000, 2_000);
const QUERIES = 300;

// ------------------------------------------------------------------ phases (child processes)

async function ollamaPhase(): Promise<ServerReport> {
  const { startOllamaProtocolServer } = await import('../test/helpers/ollama-protocol-server.js');
  const server = await startOllamaProtocolServer({ models: { 'nomic-embed-text': DIMS } });
  await sendToParent({ kind: 'ready', url: server.url });
  await messageFromParent('stop');
  const inputs = server.inputs;
  await server.close();
  return { peakRssMb: peakRssMb(), stored: inputs };
}

async function loomPhase(): Promise<ServerReport> {
  await import('reflect-metadata');
  const { createReferenceLoom } = await import('../server/reference-loom.js');
  const { silentLogger } = await import('../core/plugin/logger.js');
  const loom = await createReferenceLoom({ dataDir: makeTempDir('search-loom'), port: 0, logger: silentLogger, durability: 'full', storage: 'sqlite', auth: { required: false }, fleet: { heartbeat: false } });
  const url = await loom.start();
  await sendToParent({ kind: 'ready', url });
  await messageFromParent('stop');
  const stored = await loom.engine.store.watermark();
  await loom.stop();
  return { peakRssMb: peakRssMb(), stored };
}

// ------------------------------------------------------------------ 1. ingest with embedding ÷ without

async function semanticStats(url: string): Promise<any> {
  return ((await (await fetch(`${url}/v1/search/stats`)).json()) as { semantic: any }).semantic;
}

async function ingestRatio(checks: Check[]) {
  const { forkChild } = await import('./support/harness.js');
  const ollama = forkChild(import.meta.url, ['--phase', 'ollama'], 'ollama-protocol server', { BENCH_PHASE_PAYLOAD: 'null' });
  const { url: ollamaUrl } = await ollama.message<{ kind: 'ready'; url: string }>('ready', 60_000);
  try {
    // Two rounds, off and on interleaved, so drift between runs on a shared machine does not read as a cost; the ratio is of the sums.
    const offs: Measured[] = [];
    const ons: Measured[] = [];
    let drain: { embedded: number; pendingAtStop: number; graphPendingAtStop: number; drainS: number } | null = null;
    for (let pass = 0; pass < 2; pass++) {
      const off = await measureServer(import.meta.url, 'embedding off', 'loom', null, { warmupS: WARMUP_S, durationS: DURATION_S });
      log(`    embedding off [baseline]: ${describe(off)}`);
      offs.push(off);
      const on = await measureServer(import.meta.url, 'embedding on', 'loom', null, {
        warmupS: WARMUP_S,
        durationS: DURATION_S,
        prepare: async (url) => {
          const answer = await fetch(`${url}/v1/config/embedding_provider`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ provider: { kind: 'ollama', endpoint: ollamaUrl } }) });
          if (answer.status !== 201) throw new Error(`configuring the provider answered ${answer.status}`);
          return {};
        },
        afterLoad: async (url) => {
          const active = async () => (await semanticStats(url)).models.find((m: any) => m.active);
          const atStop = await active();
          const started = performance.now();
          let model = atStop;
          while ((model.pending_records > 0 || model.index.pending > 0) && performance.now() - started < 300_000) {
            await new Promise((resolve) => setTimeout(resolve, 100));
            model = await active();
          }
          drain = { embedded: model.vectors, pendingAtStop: atStop.pending_records, graphPendingAtStop: atStop.index.pending, drainS: round((performance.now() - started) / 1000, 1) };
        },
      });
      log(`    embedding on:             ${describe(on)}`);
      ons.push(on);
    }
    const total = (runs: Measured[]) => runs.reduce((sum, m) => sum + m.reqPerSec, 0);
    const off = { ...offs[0]!, reqPerSec: Math.round(total(offs) / offs.length), p99Ms: Math.max(...offs.map((m) => m.p99Ms)) };
    const on = { ...ons[0]!, reqPerSec: Math.round(total(ons) / ons.length), p99Ms: Math.max(...ons.map((m) => m.p99Ms)) };
    const ratio = on.reqPerSec / off.reqPerSec;
    log(`    RATIO ingest with embedding ÷ without: ${ratio.toFixed(3)} (target ≥ 0.9)`);
    checks.push(ratioCheck('POST /v1/records req/s, embedding on ÷ off', ratio, '>=', 0.9, `${fmt(on.reqPerSec)} vs ${fmt(off.reqPerSec)} req/s; p99 ${on.p99Ms} vs ${off.p99Ms} ms`));
    return { off, on, drain: drain as { embedded: number; pendingAtStop: number; graphPendingAtStop: number; drainS: number } | null };
  } finally {
    ollama.send({ kind: 'stop' });
    await ollama.message('phase-result', 30_000).catch(() => undefined);
  }
}

// ------------------------------------------------------------------ 2. vector search

async function vectorSearch(checks: Check[]) {
  const { VectorStore, unit } = await import('../plugins/search/vector-store.js');
  const { VectorIndex } = await import('../plugins/search/vector-index.js');
  const random = seededRandom(18);
  const gaussian = () => Math.sqrt(-2 * Math.log(random() || 1e-12)) * Math.cos(2 * Math.PI * random());
  // Clustered like text embeddings: 500 topics, each vector its topic's centre plus noise.
  const centres = Array.from({ length: 500 }, () => Array.from({ length: DIMS }, gaussian));
  const vectorOf = (topic: number, spread: number) => centres[topic]!.map((x) => x + gaussian() * spread);
  const store = await VectorStore.open(null, 'ollama', 'bench');
  const buildStart = performance.now();
  for (let i = 0; i < VECTORS; i += 5_000) {
    const batch = [];
    for (let j = i; j < Math.min(VECTORS, i + 5_000); j++) batch.push({ meta: { sequence: j + 1, id: String(j), thread: `th_${j % 1000}`, actor: 'did:sync:user:a', kind: null, clock: j }, vector: vectorOf(Math.floor(random() * 500), 1.2) });
    await store.append(batch, i + batch.length);
  }
  const { loadVectorIndexLibrary } = await import('../plugins/search/hnsw-loader.js');
  const library = await loadVectorIndexLibrary();
  if (!library.available) throw new Error(`the vector search benchmark measures the HNSW graph: ${library.reason}`);
  const index = new VectorIndex(store, { minVectors: 10_000, m: 16, efConstruction: 100, efSearch: 100 }, library.lib);
  const graphStart = performance.now();
  while (index.indexSome(1_000) > 0) if (performance.now() - graphStart > 30_000) log(`    graph: ${fmt(index.indexed)} of ${fmt(VECTORS)} after ${round((performance.now() - graphStart) / 1000, 1)} s`);
  const graphS = round((performance.now() - graphStart) / 1000, 1);
  log(`    ${fmt(VECTORS)} vectors × ${DIMS} stored in ${round((graphStart - buildStart) / 1000, 1)} s; HNSW graph (M 16, efConstruction 100) built in ${graphS} s (${index.kind})`);
  const queries = Array.from({ length: QUERIES }, () => unit(vectorOf(Math.floor(random() * 500), 1.2)));
  const all = () => true;
  const graphMs: number[] = [];
  const exactMs: number[] = [];
  let overlap = 0;
  for (const query of queries) {
    let t = performance.now();
    const { hits } = index.nearest(query, 10, all);
    graphMs.push(performance.now() - t);
    t = performance.now();
    const exact = index.exact(query, 10, all, null);
    exactMs.push(performance.now() - t);
    const truth = new Set(exact.map((h) => h.slot));
    overlap += hits.filter((h) => truth.has(h.slot)).length;
  }
  const recall = overlap / (QUERIES * 10);
  // A selective filter (one thread of 1,000): the exact subset path.
  const filteredMs: number[] = [];
  for (const query of queries.slice(0, 100)) {
    const slots = store.slotsOfThread('th_7');
    const t = performance.now();
    index.exact(query, 10, all, slots);
    filteredMs.push(performance.now() - t);
  }
  const p95 = round(percentile(graphMs, 95), 2);
  const exactP95 = round(percentile(exactMs, 95), 2);
  log(`    nearest-10 p50 ${round(percentile(graphMs, 50), 2)} ms p95 ${p95} ms; exact search [baseline] p50 ${round(percentile(exactMs, 50), 2)} ms p95 ${exactP95} ms; graph ÷ exact p95 ${(p95 / exactP95).toFixed(3)}`);
  log(`    recall@10 against exact: ${recall.toFixed(4)}; one-thread filter (exact over ${store.slotsOfThread('th_7').length} vectors) p95 ${round(percentile(filteredMs, 95), 3)} ms`);
  checks.push(
    { label: `vector search p95 at ${fmt(VECTORS)} × ${DIMS} (ms)`, ratio: p95, target: '< 20 ms', pass: p95 < 20, detail: `exact search p95 ${exactP95} ms in the same run (graph ÷ exact ${(p95 / exactP95).toFixed(3)})` },
    { label: 'recall@10 against exact search', ratio: round(recall, 4), target: '≥ 0.95', pass: recall >= 0.95, detail: `${QUERIES} queries near the corpus's topics` },
  );
  return { vectors: VECTORS, dims: DIMS, graph_build_s: graphS, p50_ms: round(percentile(graphMs, 50), 2), p95_ms: p95, exact_p95_ms: exactP95, recall_at_10: round(recall, 4), filtered_p95_ms: round(percentile(filteredMs, 95), 3) };
}

// ------------------------------------------------------------------ 3. find

/** A vocabulary of 20,000 made-up words and a Zipf sampler over it (s = 1). */
function zipfWords(random: () => number) {
  const syllables = ['ka', 'lo', 'mi', 'ne', 'ru', 'sa', 'ti', 'vo', 'ze', 'pa', 'qu', 'ro', 'dy', 'fe', 'gu', 'ha'];
  const words: string[] = [];
  for (let i = 0; words.length < 20_000; i++) {
    let n = i;
    let word = '';
    do {
      word += syllables[n % 16];
      n = Math.floor(n / 16);
    } while (n > 0);
    words.push(word + (i % 7 === 0 ? 'ing' : ''));
  }
  const cumulative: number[] = [];
  let total = 0;
  for (let i = 0; i < words.length; i++) cumulative.push((total += 1 / (i + 1)));
  const pick = () => {
    const x = random() * total;
    let lo = 0;
    let hi = cumulative.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cumulative[mid]! < x) lo = mid + 1;
      else hi = mid;
    }
    return words[lo]!;
  };
  return { pick, sentence: (n: number) => Array.from({ length: n }, pick).join(' ') };
}

async function findPhase(checks: Check[]) {
  await import('reflect-metadata');
  const { SqliteRecordStore } = await import('../storage/sqlite/sqlite-record-store.js');
  const { createReferenceLoom } = await import('../server/reference-loom.js');
  const { silentLogger } = await import('../core/plugin/logger.js');
  const { SYSTEM } = await import('../core/access/caller.js');
  const { FindServiceToken } = await import('../plugins/search/index.js');
  const { join } = await import('node:path');
  const random = seededRandom(1818);
  const words = zipfWords(random);
  const dataDir = makeTempDir('search-find');
  const store = new SqliteRecordStore({ path: join(dataDir, 'loom.sqlite'), durability: 'normal' });
  await store.open();
  const loadStart = performance.now();
  const createdAt = Date.now();
  for (let i = 0; i < FIND_RECORDS; i += 4_000) {
    const chunk: PreparedRecord[] = [];
    for (let j = i; j < Math.min(FIND_RECORDS, i + 4_000); j++) {
      const body: Record<string, string> = j % 10 === 0 ? { title: words.sentence(3 + Math.floor(random() * 4)), text: words.sentence(15 + Math.floor(random() * 30)) } : { text: words.sentence(10 + Math.floor(random() * 40)) };
      const fields: RecordFields = { parents: [], thread: threadId(j % 5_000), actor: `did:sync:agent:a${j % 50}`, act: 'KNOW', body, clock: j, data_type: 'SCALAR', judged_by: null };
      chunk.push({ record: makeRecord(computeRecordId(fields, nodeSha256Hex), fields), namespace: 'default', createdAt: createdAt + j });
    }
    await store.appendMany(chunk);
  }
  await store.close();
  log(`    ${fmt(FIND_RECORDS)} records (10–45 words each, Zipf over 20,000 words; every tenth with a title) on 5,000 threads loaded in ${round((performance.now() - loadStart) / 1000, 1)} s`);
  const startAt = performance.now();
  const loom = await createReferenceLoom({ dataDir, port: 0, logger: silentLogger, storage: 'sqlite', durability: 'normal', auth: { required: false }, fleet: { heartbeat: false } });
  await loom.initialize();
  const finder = loom.container.resolve(FindServiceToken) as import('../plugins/search/find-service.js').FindService;
  await finder.caughtUp();
  const rebuildS = round((performance.now() - startAt) / 1000, 1);
  log(`    find index rebuilt from the log at start in ${rebuildS} s (${fmt(Math.round(FIND_RECORDS / rebuildS))} records/s), RSS ${peakRssMb()} MB`);
  const queries = Array.from({ length: QUERIES }, () => words.sentence(1 + Math.floor(random() * 3)));
  const types = new Set(['thread', 'material'] as const);
  const measure = async (prefix: boolean) => {
    const full: number[] = [];
    let hits = 0;
    for (const q of queries) {
      const t = performance.now();
      const answer = await finder.find(SYSTEM, { q, limit: 20, types, prefix, explain: false });
      full.push(performance.now() - t);
      hits += answer.hits.length;
    }
    return { full, hits };
  };
  await measure(false); // warm-up
  const plain = await measure(false);
  const prefixed = await measure(true);
  const bare: number[] = [];
  const index = (finder as unknown as { index: import('../plugins/search/find-index.js').FindIndex }).index;
  for (const q of queries) {
    const t = performance.now();
    index.search(index.queryTerms(q, false), 20, types);
    bare.push(performance.now() - t);
  }
  await loom.stop();
  const p95 = round(percentile(plain.full, 95), 2);
  const prefixP95 = round(percentile(prefixed.full, 95), 2);
  const bareP95 = round(percentile(bare, 95), 2);
  log(`    find p50 ${round(percentile(plain.full, 50), 2)} ms p95 ${p95} ms (${round(plain.hits / QUERIES, 1)} hits/query); with prefix p95 ${prefixP95} ms; bare index query [baseline] p95 ${bareP95} ms`);
  checks.push(
    { label: `find p95 at ${fmt(FIND_RECORDS)} records (ms)`, ratio: p95, target: '< 20 ms', pass: p95 < 20, detail: `bare index query p95 ${bareP95} ms (find ÷ bare ${(p95 / bareP95).toFixed(2)}); prefix=true p95 ${prefixP95} ms` },
  );
  return { records: FIND_RECORDS, rebuild_s: rebuildS, p50_ms: round(percentile(plain.full, 50), 2), p95_ms: p95, prefix_p95_ms: prefixP95, bare_p95_ms: bareP95 };
}

async function run() {
  const checks: Check[] = [];
  const which = (process.env['BENCH_SEARCH_PARTS'] ?? 'ingest,vectors,find').split(',');
  const figures: Record<string, unknown> = { connections: CONNECTIONS };
  if (which.includes('ingest')) {
    const { off, on, drain } = await ingestRatio(checks);
    figures['ingest'] = { off_req_s: off.reqPerSec, on_req_s: on.reqPerSec, ratio: round(on.reqPerSec / off.reqPerSec, 3), drain };
    if (drain) log(`    embedder: ${fmt(drain.pendingAtStop)} records not yet embedded and ${fmt(drain.graphPendingAtStop)} vectors not yet in the graph when the load stopped; all ${fmt(drain.embedded)} embedded and in the graph ${drain.drainS} s later`);
  }
  if (which.includes('vectors')) figures['vectors'] = await vectorSearch(checks);
  if (which.includes('find')) figures['find'] = await findPhase(checks);
  return { figures, checks };
}

main(import.meta.url, {
  name: 'search',
  title: 'ingest with embedding ÷ without; vector search p95 and recall at 100k × 384; find p95 at 100k records',
  phases: { ollama: ollamaPhase, loom: loomPhase },
  run,
});

export type { Measured };
