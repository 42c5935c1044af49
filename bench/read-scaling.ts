/**
 * Read scaling: get-by-id and a 100-record thread page at 10k and at 1M
 * records, per driver (SQLite, LevelDB). Target: the 1M mean latency is at
 * most 1.5× the 10k one. Each driver runs in its own child process: a store
 * of 10k and one of 1M records, both loaded through store.appendMany (so the
 * files are laid out exactly as the store lays them out), closed and
 * reopened, warmed up; then N random get-by-id and N random first pages of
 * threads holding ≥ 100 records (listByThread, limit 100), one request at a
 * time, split into rounds that alternate between the two stores.
 */
import type { RecordStore } from '../storage/contract/record-store.js';
import { LevelRecordStore } from '../storage/level/level-record-store.js';
import { SqliteRecordStore } from '../storage/sqlite/sqlite-record-store.js';
import { PostgresRecordStore } from '../storage/postgres/postgres-record-store.js';
import { postgresUnavailable, ThrowawayCluster } from '../storage/postgres/throwaway-cluster.js';
import { loadDataset, sampleDatasetIds } from './support/dataset.js';
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

type Driver = 'sqlite' | 'level' | 'postgres';

// Not scaled below 10k: the dataset layout needs 10k records for 100 threads of ≥ 100 records.
const SMALL = 10_000;
const LARGE = Math.max(SMALL * 2, scaled(1_000_000, 20_000));
const PAGE = 100;
const GETS = scaled(3_000, 300);
const PAGES = scaled(1_000, 100);
const WARM_GETS = scaled(3_000, 500);
const WARM_PAGES = scaled(500, 100);
/** The gets and pages of each size are split into this many rounds, alternating between the sizes. */
const ROUNDS = 10;
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
}

function latency(samplesMs: number[]): Latency {
  return {
    meanUs: round(mean(samplesMs) * 1000, 1),
    p50Us: round(percentile(samplesMs, 50) * 1000, 1),
    p99Us: round(percentile(samplesMs, 99) * 1000, 1),
    samples: samplesMs.length,
  };
}

/** One store at one size, with what its measurement needs. */
class SizedStore {
  readonly gets: number[] = [];
  readonly pages: number[] = [];
  private readonly threads: string[];
  private readonly ids: string[];

  constructor(
    readonly store: RecordStore,
    readonly records: number,
    private readonly random: () => number,
  ) {
    this.threads = datasetThreadsWithAtLeast(PAGE, records).map(threadId);
    if (this.threads.length === 0) throw new Error(`no thread holds ${PAGE} records at ${records}`);
    this.ids = sampleDatasetIds(records, GETS, random);
  }

  private pickThread(): string {
    return this.threads[Math.floor(this.random() * this.threads.length)]!;
  }

  async warmUp(): Promise<void> {
    for (const id of sampleDatasetIds(this.records, WARM_GETS, this.random)) await this.store.get(id);
    for (let i = 0; i < WARM_PAGES; i++) await this.store.listByThread(this.pickThread(), { limit: PAGE });
  }

  /** Round `round` of ROUNDS: its share of the gets, then of the pages, one request at a time. */
  async measureRound(round: number): Promise<void> {
    const share = (total: number) => [Math.floor((total * round) / ROUNDS), Math.floor((total * (round + 1)) / ROUNDS)] as const;
    const [firstGet, endGet] = share(GETS);
    for (const id of this.ids.slice(firstGet, endGet)) {
      const start = performance.now();
      const stored = await this.store.get(id);
      this.gets.push(performance.now() - start);
      if (!stored) throw new Error(`get(${id}) found nothing`);
    }
    const [firstPage, endPage] = share(PAGES);
    for (let i = firstPage; i < endPage; i++) {
      const thread = this.pickThread();
      const start = performance.now();
      const page = await this.store.listByThread(thread, { limit: PAGE });
      this.pages.push(performance.now() - start);
      if (page.items.length !== PAGE) throw new Error(`thread page of ${thread} held ${page.items.length} records, expected ${PAGE}`);
    }
  }

  point(): SizePoint {
    return { records: this.records, threadsWithFullPage: this.threads.length, get: latency(this.gets), page: latency(this.pages) };
  }
}

function describe(point: SizePoint): string {
  const l = (x: Latency) => `mean ${fmt(x.meanUs)} µs, p50 ${fmt(x.p50Us)}, p99 ${fmt(x.p99Us)}`;
  return `get-by-id ${l(point.get)} | page of ${PAGE}: ${l(point.page)}`;
}

/**
 * Waits (up to a minute) until LevelDB's background compactions stop:
 * `leveldb.stats` (per-level compaction totals) unchanged for two seconds.
 * Reopening a freshly loaded store starts compactions that would otherwise
 * run during, and skew, whichever size happens to be measured then. Reaches
 * into the store's private `db`; throws if that changes shape.
 */
async function settleCompactions(store: RecordStore): Promise<number> {
  if (!(store instanceof LevelRecordStore)) return 0;
  const db = (store as unknown as { db?: { getProperty?: (name: string) => string } }).db;
  if (!db || typeof db.getProperty !== 'function') throw new Error("bench/read-scaling.ts: cannot reach LevelRecordStore's db to watch its compactions");
  const start = performance.now();
  let previous = db.getProperty('leveldb.stats');
  let stableSince = performance.now();
  while (performance.now() - stableSince < 2000 && performance.now() - start < 60_000) {
    await new Promise((resolve) => setTimeout(resolve, 250));
    const stats = db.getProperty('leveldb.stats');
    if (stats !== previous) {
      previous = stats;
      stableSince = performance.now();
    }
  }
  return (performance.now() - start) / 1000;
}

function openStore(driver: Driver, path: string): RecordStore {
  if (driver === 'postgres') {
    // One schema per size in the benchmark's throwaway cluster (BENCH_DATABASE_URL, set by run()).
    return new PostgresRecordStore({ connectionString: process.env['BENCH_DATABASE_URL']!, schema: path.endsWith('small') ? 'read_small' : 'read_large' });
  }
  // Loading speed does not change what is read; 'normal' skips an fsync per batch.
  return driver === 'sqlite' ? new SqliteRecordStore({ path: `${path}.sqlite`, durability: 'normal' }) : new LevelRecordStore({ path, durability: 'normal' });
}

async function driverPhase({ driver }: { driver: Driver }): Promise<DriverValue> {
  const dir = makeTempDir(`read-${driver}`);
  const smallStore = openStore(driver, `${dir}/small`);
  const largeStore = openStore(driver, `${dir}/large`);
  await smallStore.open();
  await largeStore.open();
  const small = await loadDataset(smallStore, 0, SMALL);
  const large = await loadDataset(largeStore, 0, LARGE, (done) => log(`    [${driver}] loaded ${fmt(done)} / ${fmt(LARGE)}`));
  // Both measured freshly reopened (WAL checkpointed, caches cold; LevelDB once its compactions settle).
  for (const store of [smallStore, largeStore]) {
    await store.close();
    await store.open();
    const settled = await settleCompactions(store);
    if (settled > 3) log(`    [${driver}] waited ${fmt(settled, 1)} s for compactions to settle`);
  }
  if ((await largeStore.watermark()) !== LARGE) throw new Error(`watermark ${await largeStore.watermark()} after loading ${LARGE}`);
  const random = seededRandom(driver === 'sqlite' ? 1 : driver === 'level' ? 2 : 3);
  const sizes = [new SizedStore(smallStore, SMALL, random), new SizedStore(largeStore, LARGE, random)];
  for (const size of sizes) await size.warmUp();
  // Interleaved rounds, alternating which size goes first, so drift in the machine's speed
  // (other tenants, page reclaim) lands on both sizes alike instead of on whichever ran later.
  for (let round = 0; round < ROUNDS; round++) {
    for (const size of round % 2 === 0 ? sizes : [...sizes].reverse()) await size.measureRound(round);
  }
  const [atSmall, atLarge] = sizes.map((size) => size.point()) as [SizePoint, SizePoint];
  log(`    [${driver}] ${fmt(SMALL)} records (appendMany at ${fmt(small.rate)} rec/s): ${describe(atSmall)}`);
  log(`    [${driver}] ${fmt(LARGE)} records (appendMany at ${fmt(large.rate)} rec/s in ${fmt(large.seconds, 1)} s): ${describe(atLarge)}`);
  await smallStore.close();
  await largeStore.close();
  removeTempDir(dir);
  return { driver, small: atSmall, large: atLarge, loadRateSmall: small.rate, loadRateLarge: large.rate, loadSeconds: round(small.seconds + large.seconds, 1) };
}

async function run() {
  log(`    sizes ${fmt(SMALL)} → ${fmt(LARGE)} records; ${fmt(GETS)} gets and ${fmt(PAGES)} pages per size after ${fmt(WARM_GETS)}/${fmt(WARM_PAGES)} warm-up, sequential`);
  const checks: Check[] = [];
  const figures: Record<string, unknown> = { small: SMALL, large: LARGE, gets: GETS, pages: PAGES };
  let childPeak = 0;
  const unavailable = postgresUnavailable();
  const cluster = unavailable ? null : await ThrowawayCluster.start();
  if (cluster) process.env['BENCH_DATABASE_URL'] = await cluster.createDatabase('read_scaling');
  else log(`    postgres: skipped (${unavailable})`);
  for (const driver of cluster ? (['sqlite', 'level', 'postgres'] as const) : (['sqlite', 'level'] as const)) {
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
  await cluster?.stop();
  return {
    figures,
    checks,
    childPeakRssMb: childPeak,
    notes: ['PostgreSQL: a throwaway cluster (initdb, fsync on, shared_buffers 128 MB) on this machine, one schema per size, reached over 127.0.0.1.', 'Each size is its own store, loaded through appendMany, closed and reopened (LevelDB: then left until its compactions settle) and warmed up; the two are then measured in 10 interleaved rounds. The files sit in the OS page cache, as on a warm server.'],
  };
}

main(import.meta.url, {
  name: 'read-scaling',
  title: 'get-by-id and 100-record thread page latency at 10k vs 1M records',
  phases: { driver: driverPhase },
  run,
});
