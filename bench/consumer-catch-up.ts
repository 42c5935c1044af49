/**
 * Log-consumer catch-up, this tree ÷ a baseline tree in the same run:
 * - RECONCILE throughput: N records preloaded into SQLite behind one routing
 *   rule that evaluates on every record and matches none, the checkpoint
 *   set to 0 (`plugins/rules/reconcile-checkpoint.json`), then a reference
 *   loom started: records considered per second between the first record
 *   considered and the checkpoint reaching the head (GET /v1/engine/health
 *   polled every 20 ms);
 * - find index catch-up: the same log, the time from `initialize()` to the
 *   find index caught up (FindService.caughtUp), records per second.
 * Each side runs ROUNDS times, alternating, and the median counts.
 *
 * BENCH_BASELINE_DIST=/path/to/other/dist names the baseline's compiled tree
 * (it must have server/reference-loom.js, or core/cli/reference-loom.js before
 * the applications left core, plugins/search/index.js and the same storage/sqlite); without it only this tree is measured.
 * BENCH_CONSUMER_RECORDS (default 100,000), BENCH_CONSUMER_ROUNDS (default 3).
 */
import 'reflect-metadata';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { nodeSha256Hex } from '../core/engine/native-hash.js';
import { computeRecordId } from '../core/records/record-id.js';
import { makeRecord, type RecordFields } from '../core/records/record.js';
import type { PreparedRecord } from '../storage/contract/stored-record.js';
import { SqliteRecordStore } from '../storage/sqlite/sqlite-record-store.js';
import { threadId } from './support/records.js';

const RECORDS = Number(process.env['BENCH_CONSUMER_RECORDS'] ?? 100_000);
const ROUNDS = Number(process.env['BENCH_CONSUMER_ROUNDS'] ?? 3);
const THIS_DIST = resolve(fileURLToPath(new URL('.', import.meta.url)), '..');

interface Tree {
  readonly label: string;
  readonly dist: string;
}

/** The reference server of a compiled tree: server/ since the applications left core, core/cli/ before. */
async function referenceLoomOf(tree: Tree): Promise<{ createReferenceLoom: (options: object) => Promise<any> }> {
  const { existsSync } = await import('node:fs');
  const path = existsSync(join(tree.dist, 'server/reference-loom.js')) ? 'server/reference-loom.js' : 'core/cli/reference-loom.js';
  return import(pathToFileURL(join(tree.dist, path)).href);
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/** A data directory holding one routing rule (written through the API) and RECORDS records after it. */
async function prepare(tree: Tree): Promise<string> {
  const dataDir = await mkdtemp(join(tmpdir(), 'bench-consumers-'));
  const { createReferenceLoom } = await referenceLoomOf(tree);
  const { silentLogger } = await import(pathToFileURL(join(tree.dist, 'core/plugin/logger.js')).href);
  const loom = await createReferenceLoom({ dataDir, port: 0, logger: silentLogger, storage: 'sqlite', durability: 'normal', auth: { required: false }, fleet: { heartbeat: false } });
  const url = await loom.start();
  const answer = await fetch(`${url}/v1/config/routing_rule`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'never', expression: "has(record.body.route_me) && record.body.route_me == 'yes'", target: 'did:sync:agent:nobody', priority: 1 }),
  });
  if (answer.status !== 201) throw new Error(`routing rule refused: ${answer.status} ${await answer.text()}`);
  await loom.stop();
  const store = new SqliteRecordStore({ path: join(dataDir, 'loom.sqlite'), durability: 'normal' });
  await store.open();
  const createdAt = Date.now();
  for (let i = 0; i < RECORDS; i += 4_000) {
    const chunk: PreparedRecord[] = [];
    for (let j = i; j < Math.min(RECORDS, i + 4_000); j++) {
      const fields: RecordFields = { parents: [], thread: threadId(j % 5_000), actor: `did:sync:agent:a${j % 50}`, act: 'KNOW', body: { text: `record ${j} about topic ${j % 97} and more words ${j % 13}` }, clock: 1_000_000 + j, data_type: 'SCALAR', judged_by: null };
      chunk.push({ record: makeRecord(computeRecordId(fields, nodeSha256Hex), fields), namespace: 'default', createdAt: createdAt + j });
    }
    await store.appendMany(chunk);
  }
  await store.close();
  await mkdir(join(dataDir, 'plugins', 'rules'), { recursive: true });
  await writeFile(join(dataDir, 'plugins', 'rules', 'reconcile-checkpoint.json'), JSON.stringify({ after: 0 }) + '\n');
  return dataDir;
}

async function measure(tree: Tree): Promise<{ reconcile: number; find: number }> {
  const dataDir = await prepare(tree);
  const { createReferenceLoom } = await referenceLoomOf(tree);
  const { silentLogger } = await import(pathToFileURL(join(tree.dist, 'core/plugin/logger.js')).href);
  const { FindServiceToken } = await import(pathToFileURL(join(tree.dist, 'plugins/search/index.js')).href);
  const startedAt = performance.now();
  const loom = await createReferenceLoom({ dataDir, port: 0, logger: silentLogger, storage: 'sqlite', durability: 'normal', auth: { required: false }, fleet: { heartbeat: false } });
  const url = await loom.start();
  const finder = loom.container.resolve(FindServiceToken);
  const findDone = finder.caughtUp().then(() => performance.now());
  let first: { at: number; considered: number } | null = null;
  let done = 0;
  for (;;) {
    const health = (await (await fetch(`${url}/v1/engine/health`)).json()) as { reconcile: { considered: number; checkpoint: number } };
    const now = performance.now();
    if (first === null && health.reconcile.considered > 0) first = { at: now, considered: health.reconcile.considered };
    if (health.reconcile.checkpoint >= RECORDS + 1 && first !== null) {
      done = now;
      const considered = health.reconcile.considered - first.considered;
      const reconcile = considered / ((done - first.at) / 1000);
      const find = RECORDS / (((await findDone) - startedAt) / 1000);
      await loom.stop();
      await rm(dataDir, { recursive: true, force: true });
      return { reconcile, find };
    }
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function run(): Promise<void> {
  const trees: Tree[] = [{ label: 'this tree', dist: THIS_DIST }];
  const baseline = process.env['BENCH_BASELINE_DIST'];
  if (baseline) trees.unshift({ label: `baseline (${baseline})`, dist: resolve(baseline) });
  const results = new Map<string, Array<{ reconcile: number; find: number }>>(trees.map((tree) => [tree.label, []]));
  for (let round = 0; round < ROUNDS; round++) {
    for (const tree of trees) {
      const result = await measure(tree);
      results.get(tree.label)!.push(result);
      console.log(`  round ${round + 1} ${tree.label}: RECONCILE ${Math.round(result.reconcile)} records/s, find catch-up ${Math.round(result.find)} records/s`);
    }
  }
  const summary = trees.map((tree) => {
    const rows = results.get(tree.label)!;
    return { label: tree.label, reconcile: median(rows.map((r) => r.reconcile)), find: median(rows.map((r) => r.find)) };
  });
  for (const row of summary) console.log(`${row.label}: RECONCILE ${Math.round(row.reconcile)} records/s, find catch-up ${Math.round(row.find)} records/s (median of ${ROUNDS}, ${RECORDS} records)`);
  if (summary.length === 2) {
    const [before, after] = summary as [typeof summary[0], typeof summary[0]];
    console.log(`throughput after ÷ before (≥ 0.95: no regression): RECONCILE ${(after.reconcile / before.reconcile).toFixed(3)}, find catch-up ${(after.find / before.find).toFixed(3)}`);
  }
}

await run();
