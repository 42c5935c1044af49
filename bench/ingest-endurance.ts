/**
 * A server that keeps ingesting (issue "The per-record cost"): the reference
 * server with every plugin (SQLite, durability full) takes 1M records
 * (× BENCH_SCALE) through `engine.ingestor.ingestMany` in batches of 100,
 * after an untimed warm-up, and each tenth of them is measured on its own: records/s, the process's
 * CPU per record, the main thread's GC pauses per record, and the heap.
 *
 * The other benchmarks start on a fresh server, so a cost that grows with
 * what a server has seen never shows in them. One did: five caches evicted a
 * Map's first key, which V8 makes cost a walk over every deleted entry once
 * the Map is full, and RECONCILE's (100,000 entries) took a fifth of a batch
 * server's CPU from its 100,000th record on (docs/decisions.md, "Bounded
 * caches are LRUs"). The baseline is the first tenth, in the same run: the
 * last tenth's CPU per record ÷ the first's says how much dearer a record
 * gets as the server's state grows (the global folds and the find index,
 * held in memory, make the heap and so the garbage collector's work grow).
 */
import { PerformanceObserver } from 'node:perf_hooks';
import { fmt, log, main, makeTempDir, ratioCheck, round, runPhaseInChild, scaled, type Check } from './support/harness.js';
import { batchInputs } from './support/records.js';

const RECORDS = scaled(1_000_000, 20_000);
const STEPS = 10;
const BATCH = 100;
const TARGET = 1.5;
/** Untimed records first, so the first tenth measures a warmed process (the JIT, the heap at working size), not start-up. */
const WARM_UP = scaled(30_000, 3_000);

interface Step {
  readonly records: number;
  readonly recordsPerSec: number;
  readonly cpuUs: number;
  readonly gcPauseUs: number;
  readonly heapMb: number;
}

async function endurancePhase(): Promise<Step[]> {
  await import('reflect-metadata');
  const { createReferenceLoom } = await import('../server/reference-loom.js');
  const { silentLogger } = await import('../core/plugin/logger.js');
  const { LOCAL } = await import('../core/access/caller.js');
  let gcMs = 0;
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) gcMs += entry.duration;
  });
  observer.observe({ entryTypes: ['gc'] });
  const loom = await createReferenceLoom({ dataDir: makeTempDir('endurance'), port: 0, logger: silentLogger, durability: 'full', auth: { required: false }, fleet: { heartbeat: false } });
  await loom.initialize();
  const steps: Step[] = [];
  const perStep = Math.floor(RECORDS / STEPS);
  const ingest = async (records: ReadonlyArray<Record<string, unknown>>) => {
    for (let i = 0; i < records.length; i += BATCH) {
      const results = await loom.engine.ingestor.ingestMany({ caller: LOCAL, via: 'api' }, records.slice(i, i + BATCH));
      const refused = results.find((r) => r instanceof Error);
      if (refused) throw refused;
    }
  };
  try {
    await ingest(batchInputs(WARM_UP, 'warm-up'));
    for (let step = 0; step < STEPS; step++) {
      // A new salt each step: new actors, as a growing fleet brings them.
      const records = batchInputs(perStep, `step-${step}`);
      gcMs = 0;
      const cpu = process.cpuUsage();
      const started = performance.now();
      await ingest(records);
      const ms = performance.now() - started;
      const used = process.cpuUsage(cpu);
      steps.push({
        records: WARM_UP + (step + 1) * perStep,
        recordsPerSec: round((perStep / ms) * 1000, 0),
        cpuUs: round((used.user + used.system) / perStep, 1),
        gcPauseUs: round((gcMs * 1000) / perStep, 1),
        heapMb: Math.round(process.memoryUsage().heapUsed / 2 ** 20),
      });
    }
  } finally {
    observer.disconnect();
    await loom.stop();
  }
  return steps;
}

async function run() {
  const { value: steps, peakRssMb } = await runPhaseInChild<Step[]>(import.meta.url, 'endurance', null, 60 * 60_000);
  log(`    ${fmt(WARM_UP)} untimed, then ${fmt(RECORDS)} records in batches of ${BATCH} into one server (every plugin, SQLite full), measured by tenths:`);
  for (const s of steps) log(`      after ${fmt(s.records).padStart(9)}: ${fmt(s.recordsPerSec).padStart(7)} records/s  ${s.cpuUs.toFixed(1).padStart(6)} µs CPU  GC pauses ${s.gcPauseUs.toFixed(1).padStart(5)} µs  heap ${fmt(s.heapMb)} MB`);
  const first = steps[0]!;
  const last = steps.at(-1)!;
  const ratio = last.cpuUs / first.cpuUs;
  const checks: Check[] = [
    ratioCheck(`CPU per record, last tenth ÷ first tenth of ${fmt(RECORDS)} records`, ratio, '<=', TARGET, `${last.cpuUs} vs ${first.cpuUs} µs; GC pauses ${last.gcPauseUs} vs ${first.gcPauseUs} µs a record; heap ${fmt(last.heapMb)} vs ${fmt(first.heapMb)} MB`),
  ];
  return { figures: { records: RECORDS, steps }, checks, childPeakRssMb: peakRssMb };
}

main(import.meta.url, {
  name: 'ingest-endurance',
  title: 'CPU per record as one server keeps ingesting: the last tenth of 1M records ÷ the first',
  phases: { endurance: endurancePhase },
  run,
});
