/**
 * The memory each global fold of the reference server holds per record (issue
 * 36): every server keeps every global fold in memory, so this is what a log's
 * length costs each server. A coordination log of 1M records
 * (bench/support/coordination-log.ts) is replayed once by an in-process
 * reference server, which writes every fold's checkpoint when it stops. Then
 * each checkpoint is loaded alone through its fold's codec (the state a
 * restart holds), and the heap that state keeps after a full collection is
 * measured, with the saved form dropped first. Folds without a checkpoint (the
 * configuration and registry folds, over one control thread each) are listed
 * by name: they grow with their thread, not with the log.
 *
 * Figures only: bytes per record per fold, and their sum. No target (the issue asks for the figures, to
 * predict a server's memory from its log).
 */
import { join } from 'node:path';
import { existsSync, statSync } from 'node:fs';
import { readCheckpointFile } from '../core/engine/checkpoint-file.js';
import type { Logger } from '../core/plugin/logger.js';
import { fmt, log, main, makeTempDir, round, scaled } from './support/harness.js';
import { collectGarbage } from './support/verdicts.js';
import { loadCoordinationLog } from './support/coordination-log.js';

const RECORDS = scaled(1_000_000, 20_000);
const silent: Logger = { log: () => undefined, child: () => silent };

interface FoldMemory {
  fold: string;
  checkpoint_mb: number;
  heap_mb: number;
  bytes_per_record: number;
}

/** The heap after full collections, once two readings 100 ms apart agree within 256 KiB (a stopped server lets go of its state over a few turns). */
async function settledHeap(): Promise<number> {
  let last = -Infinity;
  for (let i = 0; i < 100; i++) {
    collectGarbage();
    const now = process.memoryUsage().heapUsed;
    if (Math.abs(now - last) < 256 * 1024) return now;
    last = now;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return last;
}

main(import.meta.url, {
  name: 'fold-memory',
  title: 'Memory of each global fold per record (reference server, coordination log)',
  async run() {
    await import('reflect-metadata');
    const { createReferenceLoom } = await import('../server/reference-loom.js');
    const dir = makeTempDir('fold-memory');
    await loadCoordinationLog(join(dir, 'loom.sqlite'), RECORDS);
    const options = { dataDir: dir, storage: 'sqlite' as const, port: 0, logger: silent, auth: { required: false }, fleet: { heartbeat: false }, federation: false as const, console: false as const, lazyFoldCheckpointBytes: null };

    // One replay of the whole log builds every fold; the stop writes their checkpoints.
    const began = performance.now();
    let builder: Awaited<ReturnType<typeof createReferenceLoom>> | null = await createReferenceLoom(options);
    await builder.initialize();
    const replayMs = performance.now() - began;
    await builder.stop();
    builder = null;
    log(`  replayed ${fmt(RECORDS)} records into every fold in ${round(replayMs / 1000, 1)} s`);

    // The fold definitions, from a server that is never started.
    const definitions = await createReferenceLoom({ ...options, dataDir: makeTempDir('fold-memory-defs') });
    const baseline = await settledHeap();
    const rows: FoldMemory[] = [];
    const unchecked: string[] = [];
    for (const { name, scope } of definitions.engine.folds.list()) {
      if (scope !== 'global') continue;
      const fold = definitions.engine.folds.descriptorOf(name, 'global');
      const file = join(dir, 'folds', `${name}.ckpt`);
      if (!fold.checkpoint || !existsSync(file)) {
        unchecked.push(name);
        continue;
      }
      const before = await settledHeap();
      let saved: unknown = (await readCheckpointFile(file)).state;
      const state: unknown[] = [fold.checkpoint.load(saved)];
      saved = undefined;
      const bytes = (await settledHeap()) - before;
      state.length = 0;
      rows.push({ fold: name, checkpoint_mb: round(statSync(file).size / 2 ** 20, 1), heap_mb: round(bytes / 2 ** 20, 1), bytes_per_record: round(bytes / RECORDS, 1) });
      log(`  ${name.padEnd(20)} heap ${round(bytes / 2 ** 20, 1).toString().padStart(7)} MB  ${round(bytes / RECORDS, 1).toString().padStart(6)} B/record  (checkpoint ${round(statSync(file).size / 2 ** 20, 1)} MB)`);
    }
    rows.sort((a, b) => b.heap_mb - a.heap_mb);
    const total = rows.reduce((sum, row) => sum + row.heap_mb, 0);
    return {
      figures: { records: RECORDS, replay_ms: round(replayMs, 0), baseline_heap_mb: round(baseline / 2 ** 20, 1), folds: rows, folds_total_mb: round(total, 1), folds_total_bytes_per_record: round((total * 2 ** 20) / RECORDS, 1), without_checkpoint: unchecked },
      checks: [],
      notes: [
        `every checkpointed global fold together: ${round(total, 1)} MB, ${round((total * 2 ** 20) / RECORDS, 1)} bytes per record (a process with the code loaded and no state: ${round(baseline / 2 ** 20, 1)} MB of heap)`,
        `folds without a checkpoint (one control thread each; they grow with it, not with the log): ${unchecked.join(', ')}`,
      ],
    };
  },
});
