/**
 * What a batch of stored records adds to the per-thread summaries the SQL
 * drivers keep (record count, first and last sequence): one entry per
 * thread, records taken in sequence order. The driver adds the counts to
 * its table and moves `last` forward (an upsert).
 */
import type { StoredRecord } from './stored-record.js';

export interface ThreadDelta {
  readonly thread: string;
  count: number;
  readonly first: number;
  last: number;
}

export function threadDeltas(records: readonly { readonly stored: StoredRecord }[]): ThreadDelta[] {
  const deltas = new Map<string, ThreadDelta>();
  for (const { stored } of records) {
    const thread = stored.record.thread;
    const delta = deltas.get(thread);
    if (delta) {
      delta.count++;
      delta.last = stored.sequence;
    } else deltas.set(thread, { thread, count: 1, first: stored.sequence, last: stored.sequence });
  }
  return [...deltas.values()];
}
