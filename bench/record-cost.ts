/**
 * Where a record's CPU goes (issue "The per-record cost", "See the cost"):
 * the same 20,000 records (× BENCH_SCALE, batches of 100 through the
 * ingestor, as the batch route does) into the reference server with every
 * plugin (SQLite, durability full) and into the ledger alone, each stage
 * timed where it runs and printed as µs per record:
 *
 * - core's checks, split by a separate pass over the same inputs into
 *   validation, canonical JSON and SHA-256;
 * - every ingest gate (its synchronous part);
 * - the store's append (wall time: journal, SQLite insert, waiting for the
 *   SQLite thread), per record of the batch;
 * - every global fold's apply and every inline publish listener;
 * - every log consumer's CPU (the profiler's samples inside its handle,
 *   awaits included), per record ingested;
 * - the process's whole CPU per record (user + system), from a pass of its
 *   own without any of the above, so the rows can be read against what they
 *   add up to and the timers do not inflate it.
 *
 * Timings wrap the engine's own objects from outside (this file only), so
 * the product carries no instrumentation. A regression points at its row.
 */
import { LOCAL } from '../core/access/caller.js';
import type { IngestGate } from '../core/access/ingest-gate.js';
import type { Loom } from '../core/server/create-loom.js';
import type { PluginRegistration } from '../core/plugin/plugin.js';
import { canonicalRecordContent } from '../core/records/record-id.js';
import { validateRecordInput } from '../core/records/validate-record.js';
import { nodeSha256Hex } from '../core/engine/native-hash.js';
import { fmt, log, main, makeTempDir, round, scaled, SCALE, type Check } from './support/harness.js';
import { CpuProfiler, cpuInside } from './support/cpu-profile.js';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { batchInputs } from './support/records.js';

const RECORDS = scaled(20_000, 2_000);
const BATCH = 100;
/** Clean passes per configuration (the lowest is kept). */
const ROUNDS = SCALE >= 0.5 ? 2 : 1;
/** Untimed passes before any is measured. */
const WARM_UP_PASSES = SCALE >= 0.5 ? 3 : 1;
/** A directory: each configuration's instrumented pass is profiled there, without its warm-up. */
const PROFILE_DIR = process.env['RECORD_COST_CPUPROF'] ?? null;

type Timings = Map<string, { ms: number; records: number }>;

function add(timings: Timings, stage: string, ms: number, records: number): void {
  const row = timings.get(stage) ?? { ms: 0, records: 0 };
  row.ms += ms;
  row.records += records;
  timings.set(stage, row);
}

/** Validation, canonical JSON and hashing of the inputs, each stage on its own. */
function coreStages(records: ReadonlyArray<Record<string, unknown>>): Array<[string, number]> {
  let validated: unknown[] = [];
  const t0 = performance.now();
  validated = records.map((input) => validateRecordInput(input));
  const t1 = performance.now();
  const contents = validated.map((v) => canonicalRecordContent((v as { fields: never }).fields));
  const t2 = performance.now();
  for (const content of contents) nodeSha256Hex(content.text);
  const t3 = performance.now();
  const per = (ms: number) => (ms * 1000) / records.length;
  return [
    ['core: validation', per(t1 - t0)],
    ['core: canonical JSON', per(t2 - t1)],
    ['core: SHA-256', per(t3 - t2)],
  ];
}

/** Wraps the engine's gates, folds, listeners and store with timers (a consumer's CPU comes from the profile). */
function instrument(loom: Loom, timings: Timings): void {
  const engine = loom.engine as unknown as Record<string, any>;
  const ingestor = engine['ingestor'];
  const check = ingestor.check.bind(ingestor);
  ingestor.check = (input: unknown) => {
    const started = performance.now();
    try {
      return check(input);
    } finally {
      add(timings, 'core: checks (all three, in place)', performance.now() - started, 1);
    }
  };
  ingestor.gates = Object.freeze(
    (ingestor.gates as IngestGate[]).map((gate) => ({
      ...gate,
      check: (input: Parameters<IngestGate['check']>[0]) => {
        const started = performance.now();
        try {
          return gate.check(input);
        } finally {
          add(timings, `gate ${gate.name}`, performance.now() - started, 1);
        }
      },
    })),
  );
  const store = engine['store'];
  for (const method of ['append', 'appendMany']) {
    const original = store[method]?.bind(store);
    if (!original) continue;
    store[method] = async (arg: unknown) => {
      const started = performance.now();
      try {
        return await original(arg);
      } finally {
        add(timings, 'store append (wall)', performance.now() - started, Array.isArray(arg) ? arg.length : 1);
      }
    };
  }
  for (const slot of engine['folds'].globals.values()) {
    const fold = slot.fold;
    slot.fold = {
      ...fold,
      apply: (state: unknown, input: unknown) => {
        const started = performance.now();
        try {
          return fold.apply(state, input);
        } finally {
          add(timings, `fold ${fold.name}`, performance.now() - started, 1);
        }
      },
    };
  }
  const inline: Set<(records: readonly unknown[]) => void> = engine['bus'].inline;
  let listener = 0;
  for (const original of [...inline]) {
    // Listeners are arrows: named by their order and the start of their source.
    const name = `inline listener ${++listener}: ${original.toString().replace(/\s+/g, ' ').slice(0, 40)}`;
    inline.delete(original);
    inline.add((records) => {
      const started = performance.now();
      try {
        original(records);
      } finally {
        add(timings, name, performance.now() - started, records.length);
      }
    });
  }
}

type Open = (dataDir: string) => Promise<Loom>;

function consumerRunners(loom: Loom): Map<string, Record<string, any>> {
  return (loom.engine as unknown as Record<string, any>)['consumers'].runners;
}

/** A fresh Loom, warmed with 2,000 records, then `records` ingested in batches and every consumer caught up. */
async function ingestAll(label: string, open: Open, prepare: (loom: Loom) => Promise<void>, records: ReadonlyArray<Record<string, unknown>>, around: <T>(body: () => Promise<T>) => Promise<T>): Promise<void> {
  const loom = await open(makeTempDir(`record-cost-${label}`));
  await loom.initialize();
  const warm = batchInputs(2_000, `${label}-warm`);
  for (let i = 0; i < warm.length; i += BATCH) await loom.engine.ingestor.ingestMany({ caller: LOCAL, via: 'api' }, warm.slice(i, i + BATCH));
  await prepare(loom);
  await around(async () => {
    for (let i = 0; i < records.length; i += BATCH) {
      const results = await loom.engine.ingestor.ingestMany({ caller: LOCAL, via: 'api' }, records.slice(i, i + BATCH));
      const refused = results.find((r) => r instanceof Error);
      if (refused) throw refused;
    }
    await Promise.all([...consumerRunners(loom).values()].map((runner) => runner['caughtUp']()));
  });
  await loom.stop();
}

/**
 * Two passes on fresh Looms. The first has no instrumentation: its process
 * CPU is the headline figure (the timers cost several µs per record with
 * every plugin, so the instrumented pass would overstate it). The second
 * times each synchronous stage in place and runs the CPU profiler, which
 * gives each consumer's CPU: the samples inside its `handle`, its awaits'
 * continuations included.
 */
interface Clean {
  readonly cpuUs: number;
  readonly userUs: number;
  readonly wallUs: number;
}

interface Measured extends Clean {
  readonly rows: Array<[string, number]>;
}

/** One pass without instrumentation: the process's CPU and wall time per record. */
async function cleanPass(label: string, open: Open): Promise<Clean> {
  let used = { user: 0, system: 0 };
  let wallMs = 0;
  await ingestAll(`${label}-clean`, open, async () => {}, batchInputs(RECORDS, `${label}-clean`), async (body) => {
    const cpu = process.cpuUsage();
    const started = performance.now();
    try {
      return await body();
    } finally {
      used = process.cpuUsage(cpu);
      wallMs = performance.now() - started;
    }
  });
  return { cpuUs: (used.user + used.system) / RECORDS, userUs: used.user / RECORDS, wallUs: (wallMs * 1000) / RECORDS };
}

/** The instrumented pass: each synchronous stage timed in place, each consumer's CPU from the profiler. */
async function stagePass(label: string, open: Open): Promise<Array<[string, number]>> {
  const timings: Timings = new Map();
  const profiler = new CpuProfiler();
  const handles = new Map<string, string>();
  await ingestAll(
    `${label}-stages`,
    open,
    async (loom) => {
      instrument(loom, timings);
      await profiler.start();
      for (const [name, runner] of consumerRunners(loom)) {
        const key = await profiler.locate(runner['consumer'].handle);
        if (key) handles.set(key, `consumer ${name} (CPU, per record ingested)`);
      }
    },
    batchInputs(RECORDS, `${label}-stages`),
    async (body) => {
      try {
        return await body();
      } finally {
        const profile = await profiler.stop();
        for (const [stage, ms] of cpuInside(profile, handles)) add(timings, stage, ms, RECORDS);
        if (PROFILE_DIR) {
          const file = join(PROFILE_DIR, `record-cost-${label}.cpuprofile`);
          writeFileSync(file, JSON.stringify(profile));
          log(`    CPU profile of the ${label} pass written to ${file}`);
        }
      }
    },
  );
  const rows: Array<[string, number]> = [...timings].map(([stage, t]) => [stage, (t.ms * 1000) / Math.max(1, t.records)]);
  rows.sort((a, b) => b[1] - a[1]);
  return rows;
}

/**
 * Every configuration: clean passes in ROUNDS rounds, the order reversed
 * each round (the pass that follows another Loom's pays for collecting its
 * garbage), the lowest CPU kept, as the one least disturbed by anything
 * else on the machine; then one instrumented pass each.
 */
async function measureAll(configs: ReadonlyArray<[string, Open]>): Promise<Map<string, Measured>> {
  const best = new Map<string, Clean>();
  for (let round = 0; round < ROUNDS; round++) {
    for (const [label, open] of round % 2 === 0 ? configs : [...configs].reverse()) {
      const clean = await cleanPass(`${label}-${round}`, open);
      const held = best.get(label);
      if (!held || clean.cpuUs < held.cpuUs) best.set(label, clean);
    }
  }
  const measured = new Map<string, Measured>();
  for (const [label, open] of configs) measured.set(label, { ...best.get(label)!, rows: await stagePass(label, open) });
  return measured;
}

function table(title: string, { cpuUs, userUs, wallUs, rows }: Measured): void {
  log(`\n    ${title}: ${round(cpuUs, 1)} µs of CPU per record (process user ${round(userUs, 1)} + system ${round(cpuUs - userUs, 1)}; wall ${round(wallUs, 1)} µs; ${fmt(RECORDS)} records in batches of ${BATCH})`);
  for (const [stage, us] of rows) log(`      ${stage.padEnd(58)} ${us.toFixed(2).padStart(8)} µs`);
}

/**
 * The reference server's plugins as they were before the agent wave (issue
 * "The per-record cost": adding the agent plugins must cost no record that
 * does not concern them): every plugin but members, work, mcp and console.
 */
async function agentlessPlugins(): Promise<PluginRegistration[]> {
  const plugins = await Promise.all([
    import('../plugins/ledger/index.js').then((m) => m.ledgerPlugin),
    import('../openapi/openapi-plugin.js').then((m) => m.openapiPlugin),
    import('../plugins/auth/index.js').then((m) => ({ plugin: m.authPlugin, options: { required: false } })),
    import('../plugins/rules/index.js').then((m) => m.rulesPlugin),
    import('../plugins/fleet/index.js').then((m) => ({ plugin: m.fleetPlugin, options: { heartbeat: false } })),
    import('../plugins/trust/index.js').then((m) => m.trustPlugin),
    import('../plugins/folds/index.js').then((m) => m.foldsPlugin),
    import('../plugins/graph/index.js').then((m) => m.graphPlugin),
    import('../plugins/actors/index.js').then((m) => m.actorsPlugin),
    import('../plugins/data-plane/index.js').then((m) => m.dataPlanePlugin),
    import('../plugins/search/index.js').then((m) => m.searchPlugin),
    import('../plugins/metrics/index.js').then((m) => m.metricsPlugin),
    import('../plugins/portability/index.js').then((m) => m.portabilityPlugin),
  ]);
  return plugins as PluginRegistration[];
}

async function run() {
  await import('reflect-metadata');
  const { createReferenceLoom } = await import('../server/reference-loom.js');
  const { createLoom } = await import('../core/server/create-loom.js');
  const { SqliteRecordStore } = await import('../storage/sqlite/index.js');
  const { ledgerPlugin } = await import('../plugins/ledger/index.js');
  const { silentLogger } = await import('../core/plugin/logger.js');
  const sample = batchInputs(RECORDS, 'core');
  const core = coreStages(sample);
  const openFull: Open = (dataDir) => createReferenceLoom({ dataDir, port: 0, logger: silentLogger, durability: 'full', auth: { required: false }, fleet: { heartbeat: false } });
  // Untimed passes through every plugin first, so no configuration pays for the process's warm-up: the JIT, and
  // the heap growing to its working size. Measured: a process's first passes of 20,000 records cost 60, 50, 47 µs
  // a record, and it settles at about 40 from the third or fourth, whichever configuration runs.
  for (let pass = 0; pass < WARM_UP_PASSES; pass++) await ingestAll(`warm-up-${pass}`, openFull, async () => {}, batchInputs(RECORDS, `warm-up-${pass}`), (body) => body());
  const openAgentless: Open = async (dataDir) => createLoom({ store: new SqliteRecordStore({ path: `${dataDir}/loom.sqlite`, durability: 'full' }), dataDir, port: 0, logger: silentLogger, plugins: await agentlessPlugins() });
  const openLedger: Open = (dataDir) => createLoom({ store: new SqliteRecordStore({ path: `${dataDir}/loom.sqlite`, durability: 'full' }), dataDir, port: 0, logger: silentLogger, plugins: [ledgerPlugin] });
  const measured = await measureAll([
    ['full', openFull],
    ['agentless', openAgentless],
    ['ledger', openLedger],
  ]);
  const full = measured.get('full')!;
  const agentless = measured.get('agentless')!;
  const ledger = measured.get('ledger')!;
  log('\n    core stages on their own (the same inputs):');
  for (const [stage, us] of core) log(`      ${stage.padEnd(58)} ${us.toFixed(2).padStart(8)} µs`);
  table('the reference server, every plugin (SQLite full)', full);
  table('the reference server without the agent plugins (members, work, mcp, console)', agentless);
  table('the ledger alone (SQLite full)', ledger);
  const ratio = ledger.cpuUs / full.cpuUs;
  const agentRatio = agentless.cpuUs / full.cpuUs;
  const checks: Check[] = [
    {
      label: 'CPU per record, every plugin (µs; the issue targets ≤ 35 on the batch path)',
      ratio: round(full.cpuUs, 1),
      target: '≤ 35 µs',
      pass: full.cpuUs <= 35,
      detail: `ledger alone ${round(ledger.cpuUs, 1)} µs; ledger ÷ every plugin ${round(ratio, 3)} (the issue targets ≥ 0.8 for ingest with all plugins ÷ ledger alone)`,
    },
    {
      label: 'What the agent plugins cost records that do not concern them: without them ÷ every plugin',
      ratio: round(agentRatio, 3),
      target: '≥ 0.8',
      pass: agentRatio >= 0.8,
      detail: `without the agent plugins ${round(agentless.cpuUs, 1)} µs, every plugin ${round(full.cpuUs, 1)} µs (the records are plain coordination records, which no agent plugin reads)`,
    },
  ];
  return {
    figures: { records: RECORDS, batch: BATCH, cpu_us_full: round(full.cpuUs, 1), cpu_us_agentless: round(agentless.cpuUs, 1), cpu_us_ledger: round(ledger.cpuUs, 1), core: Object.fromEntries(core.map(([k, v]) => [k, round(v, 2)])), full: Object.fromEntries(full.rows.map(([k, v]) => [k, round(v, 2)])), ledger: Object.fromEntries(ledger.rows.map(([k, v]) => [k, round(v, 2)])) },
    checks,
    notes: ['The µs per record is the process CPU of a pass without instrumentation. Stage rows come from one more pass: synchronous stages timed in place (CPU on this thread), consumers from the CPU profile (samples inside their handle), the store append as wall time (its SQLite work runs on another thread).'],
  };
}

main(import.meta.url, { name: 'record-cost', title: 'CPU per record by stage: every plugin and the ledger alone', run });

