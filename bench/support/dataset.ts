/**
 * Loading the read/query dataset (records.ts) into a store, and sampling its
 * ids for random get-by-id.
 */
import type { RecordStore } from '../../storage/contract/record-store.js';
import type { PreparedRecord } from '../../storage/contract/stored-record.js';
import { seconds } from './harness.js';
import { datasetRecord } from './records.js';

/**
 * `count` ids of dataset records drawn uniformly from the first `records`
 * (recomputed from the deterministic dataset, so nothing has to be kept while loading).
 */
export function sampleDatasetIds(records: number, count: number, random: () => number): string[] {
  const ids: string[] = [];
  for (let k = 0; k < count; k++) ids.push(datasetRecord(Math.floor(random() * records), 0).record.id);
  return ids;
}

/** Records per appendMany call (the group commit splits it into batches of its maxBatch). */
const CHUNK = 4000;

/**
 * Appends dataset records [from, to) through `store.appendMany`, generating
 * the next chunk while the previous one is written. Returns records/s.
 */
export async function loadDataset(store: RecordStore, from: number, to: number, onProgress?: (done: number) => void): Promise<{ seconds: number; rate: number }> {
  const createdAt = Date.now();
  const start = performance.now();
  let pending: Promise<void> | null = null;
  let lastReport = start;
  for (let i = from; i < to; i += CHUNK) {
    const chunk: PreparedRecord[] = [];
    const end = Math.min(i + CHUNK, to);
    for (let j = i; j < end; j++) {
      chunk.push(datasetRecord(j, createdAt + j));
    }
    if (pending) await pending;
    pending = store.appendMany(chunk).then((outcomes) => {
      const refused = outcomes.filter((o) => o.status !== 'inserted').length;
      if (refused > 0) throw new Error(`loading: ${refused} of ${outcomes.length} records not inserted`);
    });
    if (onProgress && performance.now() - lastReport > 15_000) {
      lastReport = performance.now();
      onProgress(i);
    }
  }
  if (pending) await pending;
  const elapsed = seconds(start);
  return { seconds: elapsed, rate: Math.round((to - from) / elapsed) };
}
