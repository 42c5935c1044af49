/**
 * Read scaling: get-by-id and a 100-record thread page at 10k and at 1M
 * records, per driver (SQLite, LevelDB). Target: the 1M mean latency is at
 * most 1.5× the 10k one. Each driver runs in its own child process: load 10k
 * records (store.appendMany), warm up, time N random get-by-id and N random
 * first pages of threads holding ≥ 100 records (listByThread, limit 100),
 * one request at a time; then load up to 1M in the same store and time again.
 * Each size is measured on the store closed and reopened after loading.
 * LevelDB loads through appendMany; SQLite's 990k more rows go in through a
 * bare loading connection (support/dataset.ts: same rows, order and schema)
 * because appendMany on this schema would take minutes.
 */
import type { RecordStore } from '../storage/contract/record-store.js';
import { LevelRecordStore } from '../storage/level/level-record-store.js';
import { SqliteRecordStore } from '../storage/sqlite/sqlite-record-store.js';
import { bulkLoadSqlite, bulkLoadSqliteInChild, loadDataset, sampleDatasetIds } from './support/dataset.js';
import {
  fmt,
  log,
  main,
  makeTempDir,
  mean,
  percentile,
  ratioCheck,
  removeTempDir,
  round,
  runPhaseInChild,
  scaled,
  seededRandom,
  type Check,
} from './support/harness.js';
import { datasetThreadsWithAtLeast, threadId } from './support/records.js';

type Driver = 'sqlite' | 'level';

// Not scaled below 10k: the dataset layout needs 10k records for 100 threads of ≥ 100 records.
const SMALL = 10_000;
const LARGE = Math.max(SMALL * 2, scaled(1_000_000, 20_000));
const PAGE = 100;
const GETS = scaled(3_000, 300);
const PAGES = scaled(1_000, 100);
const WARM_GETS = scaled(3_000, 500);
const WARM_PAGES = scaled(500, 100);
const TARGET = 1.5;
const PHASE_TIMEOUT_MS = 30 * 60_000;

interface Latency {
  readonly meanUs: number;
  readonly p50Us: number;
  readonly p99Us: number;
  readonly samples: number;
}

interface SizePoint {
  readonly records: number;
  readonly threadsWithFullPage: number;
  readonly get: Latency;
  readonly page: Latency;
}

interface DriverValue {
  readonly driver: Driver;
  readonly small: SizePoint;
  readonly large: SizePoint;
  readonly loadRateSmall: number;
  readonly loadRateLarge: number;
  readonly loadSeconds: number;
  readonly largeLoadedBy: string;
}

function latency(samplesMs: number[]): Latency {
  return {
    meanUs: round(mean(samplesMs) * 1000, 1),
    p50Us: round(percentile(samplesMs, 50) * 1000, 1),
    p99Us: round(percentile(samplesMs, 99) * 1000, 1),
    samples: samplesMs.length,
  };
}

async function measure(store: RecordStore, records: number, random: () => number): Promise<SizePoint> {
  const threads = datasetThreadsWithAtLeast(PAGE, records).map(threadId);
  if (threads.length === 0) throw new Error(`no thread holds ${PAGE} records at ${records}`);
  const pickThread = () => threads[Math.floor(random() * threads.length)]!;
  const warmIds = sampleDatasetIds(records, WARM_GETS, random);
  const ids = sampleDatasetIds(records, GETS, random);
  for (const id of warmIds) await store.get(id);
  for (let i = 0; i < WARM_PAGES; i++) await store.listByThread(pickThread(), { limit: PAGE });

  const gets: number[] = [];
  for (const id of ids) {
    const start = performance.now();
    const stored = await store.get(id);
    gets.push(performance.now() - start);
    if (!stored) throw new Error(`get(${id}) found nothing`);
  }
  const pages: number[] = [];
  for (let i = 0; i < PAGES; i++) {
    const thread = pickThread();
    const start = performance.now();
    const page = await store.listByThread(thread, { limit: PAGE });
    pages.push(performance.now() - start);
    if (page.items.length !== PAGE) throw new Error(`thread page of ${thread} held ${page.items.length} records, expected ${PAGE}`);
  }
  return { records, threadsWithFullPage: threads.length, get: latency(gets), page: latency(pages) };
}

function describe(point: SizePoint): string {
  const l = (x: Latency) => `mean ${fmt(x.meanUs)} µs, p50 ${fmt(x.p50Us)}, p99 ${fmt(x.p99Us)}`;
  return `get-by-id ${l(point.get)} | page of ${PAGE}: ${l(point.page)}`;
}

async function driverPhase({ driver }: { driver: Driver }): Promise<DriverValue> {
  const dir = makeTempDir(`read-${driver}`);
  const sqlitePath = `${dir}/loom.sqlite`;
  // Loading speed does not change what is read; 'normal' skips an fsync per batch.
  const store = driver === 'sqlite' ? new SqliteRecordStore({ path: sqlitePath, durability: 'normal' }) : new LevelRecordStore({ path: `${dir}/level`, durability: 'normal' });
  await store.open();
  const random = seededRandom(driver === 'sqlite' ? 1 : 2);
  const small = await loadDataset(store, 0, SMALL);
  // Both sizes are measured on a freshly reopened store (WAL checkpointed, caches cold, then warmed up).
  await store.close();
  await store.open();
  const atSmall = await measure(store, SMALL, random);
  log(`    [${driver}] ${fmt(SMALL)} records (appendMany at ${fmt(small.rate)} rec/s): ${describe(atSmall)}`);
  let large: { seconds: number; rate: number };
  let how: string;
  if (driver === 'sqlite') {
    // appendMany manages only ~5-9k rec/s on this schema, so the other 990k rows go in through a
    // bare loading connection in a child process (same rows, order, schema and indexes; see bulkLoadSqlite).
    await store.close();
    large = await bulkLoadSqliteInChild(import.meta.url, { path: sqlitePath, from: SMALL, to: LARGE });
    await store.open();
    how = 'bulk-loaded';
  } else {
    large = await loadDataset(store, SMALL, LARGE, (done) => log(`    [${driver}] loaded ${fmt(done)} / ${fmt(LARGE)}`));
    how = 'appendMany';
    await store.close();
    await store.open();
  }
  if ((await store.watermark()) !== LARGE) throw new Error(`watermark ${await store.watermark()} after loading ${LARGE}`);
  const atLarge = await measure(store, LARGE, random);
  log(`    [${driver}] ${fmt(LARGE)} records (${how} at ${fmt(large.rate)} rec/s in ${fmt(large.seconds, 1)} s): ${describe(atLarge)}`);
  await store.close();
  removeTempDir(dir);
  return { driver, small: atSmall, large: atLarge, loadRateSmall: small.rate, loadRateLarge: large.rate, loadSeconds: round(small.seconds + large.seconds, 1), largeLoadedBy: how };
}

async function run() {
  log(`    sizes ${fmt(SMALL)} → ${fmt(LARGE)} records; ${fmt(GETS)} gets and ${fmt(PAGES)} pages per size after ${fmt(WARM_GETS)}/${fmt(WARM_PAGES)} warm-up, sequential`);
  const checks: Check[] = [];
  const figures: Record<string, unknown> = { small: SMALL, large: LARGE, gets: GETS, pages: PAGES };
  let childPeak = 0;
  for (const driver of ['sqlite', 'level'] as const) {
    log(`\n  ${driver}:`);
    const { value, peakRssMb } = await runPhaseInChild<DriverValue>(import.meta.url, 'driver', { driver }, PHASE_TIMEOUT_MS);
    childPeak = Math.max(childPeak, peakRssMb);
    const getRatio = value.large.get.meanUs / value.small.get.meanUs;
    const pageRatio = value.large.page.meanUs / value.small.page.meanUs;
    log(`    RATIO ${fmt(LARGE)} ÷ ${fmt(SMALL)}: get-by-id ${getRatio.toFixed(3)}, thread page ${pageRatio.toFixed(3)} (target ≤ ${TARGET}); peak RSS ${peakRssMb} MB`);
    checks.push(
      ratioCheck(`${driver}: get-by-id mean latency ${fmt(LARGE)} ÷ ${fmt(SMALL)}`, getRatio, '<=', TARGET, `${fmt(value.large.get.meanUs)} vs ${fmt(value.small.get.meanUs)} µs (p99 ${fmt(value.large.get.p99Us)} vs ${fmt(value.small.get.p99Us)} µs)`),
      ratioCheck(
        `${driver}: thread page (${PAGE}) mean latency ${fmt(LARGE)} ÷ ${fmt(SMALL)}`,
        pageRatio,
        '<=',
        TARGET,
        `${fmt(value.large.page.meanUs)} vs ${fmt(value.small.page.meanUs)} µs (p99 ${fmt(value.large.page.p99Us)} vs ${fmt(value.small.page.p99Us)} µs)`,
      ),
    );
    figures[driver] = { ...value, get_ratio: round(getRatio, 3), page_ratio: round(pageRatio, 3), peak_rss_mb: peakRssMb };
  }
  return {
    figures,
    checks,
    childPeakRssMb: childPeak,
    notes: ['Both sizes are measured in the same store (10k first, then loaded on to 1M), each time closed and reopened after loading and warmed up; the files sit in the OS page cache, as on a warm server.'],
  };
}

main(import.meta.url, {
  name: 'read-scaling',
  title: 'get-by-id and 100-record thread page latency at 10k vs 1M records',
  phases: { driver: driverPhase, 'bulk-sqlite': bulkLoadSqlite },
  run,
});
