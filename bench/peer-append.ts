/**
 * Loom against the append-only log a user might pick instead (issue "The
 * per-record cost": in-process `ingestMany` of 100 ÷ Hypercore appending
 * batches of 100). The same records both ways: Hypercore appends each
 * record's canonical content text (the bytes Loom hashes) as a block,
 * 100 blocks per `append`; Loom ingests the records through
 * `engine.ingestor.ingestMany`, 100 per call, as the batch route does, with
 * every plugin of the reference server and with the ledger alone, on SQLite.
 *
 * What each side promises differs, so both of Loom's durabilities run:
 * Hypercore 11 writes through RocksDB's write-ahead log without an fsync per
 * append (RocksDB's default `sync: false`), so a power cut may lose its last
 * appends; that matches Loom's `normal` (survives a process crash), not
 * `full` (an fsync per group commit). Loom also validates, hashes, runs the
 * ingest gates, keeps four indexes and applies its folds, which a Hypercore
 * block does not have. Hypercore signs each batch's tree root (Ed25519).
 *
 * Every measurement runs in a fresh child process after an untimed pass of
 * the same size, rounds alternate the configurations, and the median of the
 * rounds is kept. Figures: records/s (wall) and the process's CPU per record
 * (user + system).
 */
import { log, main, median, removeTempDir, makeTempDir, ratioCheck, round, runPhaseInChild, scaled, SCALE, fmt, type Check } from './support/harness.js';
import { batchInputs } from './support/records.js';

const RECORDS = scaled(20_000, 1_000);
const BATCH = 100;
const ROUNDS = SCALE >= 0.5 ? 3 : 1;
const PHASE_TIMEOUT_MS = 10 * 60_000;

type Config = 'hypercore' | 'loom-every-plugin-full' | 'loom-every-plugin-normal' | 'loom-ledger-full' | 'loom-ledger-normal';
const CONFIGS: readonly Config[] = ['hypercore', 'loom-every-plugin-full', 'loom-every-plugin-normal', 'loom-ledger-full', 'loom-ledger-normal'];

interface Figure {
  readonly recordsPerSec: number;
  readonly cpuUs: number;
}

/** What one pass does: set up (untimed), append the records (timed), tear down (untimed). */
interface Pass {
  readonly append: () => Promise<void>;
  readonly done: () => Promise<void>;
}

/** Runs two passes on fresh inputs, the first untimed, and measures the second's `append`. */
async function timed(prepare: (records: ReadonlyArray<Record<string, unknown>>, label: string) => Promise<Pass>): Promise<Figure> {
  const warm = await prepare(batchInputs(RECORDS, 'warm'), 'warm');
  await warm.append();
  await warm.done();
  const pass = await prepare(batchInputs(RECORDS, 'timed'), 'timed');
  const cpu = process.cpuUsage();
  const started = performance.now();
  await pass.append();
  const ms = performance.now() - started;
  const used = process.cpuUsage(cpu);
  await pass.done();
  return { recordsPerSec: round((RECORDS / ms) * 1000, 0), cpuUs: round((used.user + used.system) / RECORDS, 1) };
}

async function hypercorePhase(): Promise<Figure> {
  const { default: Hypercore } = await import('hypercore');
  const { canonicalRecord } = await import('../core/records/content-text.js');
  const { validateRecordInput } = await import('../core/records/validate-record.js');
  const { nodeSha256Hex } = await import('../core/engine/native-hash.js');
  return timed(async (records, label) => {
    // Hypercore is given bytes, Loom records: the blocks are the records' canonical content text, made untimed.
    const blocks = records.map((input) => {
      const validation = validateRecordInput(input);
      if (!validation.ok) throw new Error(validation.message);
      return Buffer.from(canonicalRecord(validation.fields, nodeSha256Hex).content);
    });
    const dir = makeTempDir(`peer-append-hypercore-${label}`);
    const core = new Hypercore(dir);
    await core.ready();
    return {
      append: async () => {
        for (let i = 0; i < blocks.length; i += BATCH) await core.append(blocks.slice(i, i + BATCH));
      },
      done: async () => {
        if (core.length !== blocks.length) throw new Error(`hypercore holds ${core.length} blocks, expected ${blocks.length}`);
        await core.close();
        removeTempDir(dir);
      },
    };
  });
}

async function loomPhase(config: Exclude<Config, 'hypercore'>): Promise<Figure> {
  await import('reflect-metadata');
  const { LOCAL } = await import('../core/access/caller.js');
  const { silentLogger } = await import('../core/plugin/logger.js');
  const durability = config.endsWith('-full') ? 'full' : 'normal';
  const open = async (dataDir: string) => {
    if (config.startsWith('loom-every-plugin')) {
      const { createReferenceLoom } = await import('../server/reference-loom.js');
      return createReferenceLoom({ dataDir, port: 0, logger: silentLogger, durability, auth: { required: false }, fleet: { heartbeat: false } });
    }
    const { createLoom } = await import('../core/server/create-loom.js');
    const { SqliteRecordStore } = await import('../storage/sqlite/index.js');
    const { ledgerPlugin } = await import('../plugins/ledger/index.js');
    return createLoom({ store: new SqliteRecordStore({ path: `${dataDir}/loom.sqlite`, durability }), dataDir, port: 0, logger: silentLogger, plugins: [ledgerPlugin] });
  };
  // One Loom for both passes, as a running server would be; the untimed pass warms the JIT and the heap.
  const dir = makeTempDir(`peer-append-${config}`);
  const loom = await open(dir);
  await loom.initialize();
  try {
    return await timed(async (records) => ({
      append: async () => {
        for (let i = 0; i < records.length; i += BATCH) {
          const results = await loom.engine.ingestor.ingestMany({ caller: LOCAL, via: 'api' }, records.slice(i, i + BATCH));
          const refused = results.find((r) => r instanceof Error);
          if (refused) throw refused;
        }
      },
      done: async () => {},
    }));
  } finally {
    await loom.stop();
    removeTempDir(dir);
  }
}

async function run() {
  const rounds = new Map<Config, Figure[]>(CONFIGS.map((c) => [c, []]));
  for (let round_ = 0; round_ < ROUNDS; round_++) {
    const order = round_ % 2 === 0 ? CONFIGS : [...CONFIGS].reverse();
    for (const config of order) {
      const { value } = await runPhaseInChild<Figure>(import.meta.url, config, null, PHASE_TIMEOUT_MS);
      rounds.get(config)!.push(value);
      log(`    round ${round_ + 1} ${config.padEnd(26)} ${fmt(value.recordsPerSec).padStart(8)} records/s  ${value.cpuUs.toFixed(1).padStart(6)} µs CPU per record`);
    }
  }
  const figure = (config: Config): Figure => ({ recordsPerSec: median(rounds.get(config)!.map((f) => f.recordsPerSec)), cpuUs: median(rounds.get(config)!.map((f) => f.cpuUs)) });
  const peer = figure('hypercore');
  log(`\n    ${fmt(RECORDS)} records in batches of ${BATCH}, median of ${ROUNDS} round(s):`);
  log(`      ${'Hypercore append [baseline]'.padEnd(44)} ${fmt(peer.recordsPerSec).padStart(8)} records/s  ${peer.cpuUs.toFixed(1).padStart(6)} µs CPU`);
  const figures: Record<string, unknown> = { records: RECORDS, batch: BATCH, rounds: ROUNDS, hypercore: peer };
  const checks: Check[] = [];
  for (const config of CONFIGS.slice(1)) {
    const loom = figure(config);
    const ratio = loom.recordsPerSec / peer.recordsPerSec;
    figures[config] = { ...loom, ratio: round(ratio, 3) };
    log(`      ${config.padEnd(44)} ${fmt(loom.recordsPerSec).padStart(8)} records/s  ${loom.cpuUs.toFixed(1).padStart(6)} µs CPU   ÷ Hypercore ${ratio.toFixed(3)}`);
    if (config === 'loom-every-plugin-full') checks.push(ratioCheck('ingestMany of 100, every plugin, SQLite full ÷ Hypercore append of 100', ratio, '>=', 1, `${fmt(loom.recordsPerSec)} vs ${fmt(peer.recordsPerSec)} records/s`));
    if (config === 'loom-every-plugin-normal') checks.push(ratioCheck('ingestMany of 100, every plugin, SQLite normal (no fsync, as Hypercore) ÷ Hypercore append of 100', ratio, '>=', 1, `${fmt(loom.recordsPerSec)} vs ${fmt(peer.recordsPerSec)} records/s`));
  }
  return {
    figures,
    checks,
    notes: ['Hypercore appends without an fsync per append (RocksDB sync: false), as Loom\'s durability normal; Loom also validates, hashes, gates, indexes and folds each record'],
  };
}

main(import.meta.url, {
  name: 'peer-append',
  title: 'in-process ingestMany of 100 ÷ Hypercore appending batches of 100',
  phases: {
    hypercore: hypercorePhase,
    'loom-every-plugin-full': () => loomPhase('loom-every-plugin-full'),
    'loom-every-plugin-normal': () => loomPhase('loom-every-plugin-normal'),
    'loom-ledger-full': () => loomPhase('loom-ledger-full'),
    'loom-ledger-normal': () => loomPhase('loom-ledger-normal'),
  },
  run,
});
