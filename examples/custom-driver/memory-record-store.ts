/**
 * An in-memory RecordStore: the reference driver and the worked example of
 * writing one. It implements only JournaledRecordStore's protected
 * primitives (RecordStoreFacade checks arguments and status and does group
 * commit; JournaledRecordStore checks conflicts and numbers records) and
 * answers queries with the reference evaluator, so it agrees with the
 * contract by construction. Nothing survives the process, hence
 * `persistent: false`.
 */
import { compareStrings } from '../../storage/contract/query/compare-values.js';
import { compareForSort, matchesFilter } from '../../storage/contract/query/evaluate-filter.js';
import { fieldsOf, type ParsedQuery } from '../../storage/contract/query/filter-ast.js';
import { JournaledRecordStore } from '../../storage/contract/journaled-record-store.js';
import type { NormalisedPage } from '../../storage/contract/record-store-facade.js';
import type { QueryResult, StoreCapabilities, ThreadSummary } from '../../storage/contract/record-store.js';
import type { AcceptedRecord } from '../../storage/contract/journal/accepted-record.js';
import { clockSlotKey, type StoredRecord } from '../../storage/contract/stored-record.js';
import type { LoomRecord } from '../../core/records/record.js';

/** Index of the first record with sequence > `after` in a list ascending by sequence. */
function firstAfter(list: readonly StoredRecord[], after: number): number {
  let low = 0;
  let high = list.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (list[mid]!.sequence <= after) low = mid + 1;
    else high = mid;
  }
  return low;
}

function pageOf(list: readonly StoredRecord[] | undefined, page: NormalisedPage): StoredRecord[] {
  if (!list) return [];
  const start = firstAfter(list, page.after);
  return list.slice(start, start + page.limit);
}

function appendTo<K>(index: Map<K, StoredRecord[]>, key: K, stored: StoredRecord): void {
  const list = index.get(key);
  if (list) list.push(stored);
  else index.set(key, [stored]);
}

export class MemoryRecordStore extends JournaledRecordStore {
  readonly capabilities: StoreCapabilities = Object.freeze({ backend: 'memory', structuredQuery: true, queryPlan: 'scan', persistent: false });

  /** Every record in sequence order; the per-key indexes below hold the same objects. */
  private records: StoredRecord[] = [];
  private byId = new Map<string, StoredRecord>();
  private bySlot = new Map<string, StoredRecord>();
  private byThread = new Map<string, StoredRecord[]>();
  private byActor = new Map<string, StoredRecord[]>();
  private lastSequence = 0;

  // Data lives as long as the instance: closing and opening it again keeps it.
  protected async _open(): Promise<void> {}

  protected async _close(): Promise<void> {}

  protected async _lookupSlots(records: readonly LoomRecord[]): Promise<StoredRecord[]> {
    return records.map((record) => this.bySlot.get(clockSlotKey(record))).filter((stored): stored is StoredRecord => stored !== undefined);
  }

  // The base class checked these records for conflicts and gave them their sequences.
  protected async _applyBatch(records: readonly AcceptedRecord[]): Promise<void> {
    for (const accepted of records) {
      const stored: StoredRecord = Object.freeze({ ...accepted.stored });
      this.records.push(stored);
      this.byId.set(stored.record.id, stored);
      this.bySlot.set(clockSlotKey(stored.record), stored);
      appendTo(this.byThread, stored.record.thread, stored);
      appendTo(this.byActor, stored.record.actor, stored);
      this.lastSequence = stored.sequence;
    }
  }

  protected async _get(id: string): Promise<StoredRecord | undefined> {
    return this.byId.get(id);
  }

  protected async _listByThread(thread: string, page: NormalisedPage): Promise<StoredRecord[]> {
    return pageOf(this.byThread.get(thread), page);
  }

  protected async _listByActor(actor: string, page: NormalisedPage): Promise<StoredRecord[]> {
    return pageOf(this.byActor.get(actor), page);
  }

  protected async _changesSince(after: number, limit: number): Promise<StoredRecord[]> {
    const start = firstAfter(this.records, after);
    return this.records.slice(start, start + limit);
  }

  protected async _watermark(): Promise<number> {
    return this.lastSequence;
  }

  protected async _listThreads(after: string, limit: number): Promise<ThreadSummary[]> {
    return [...this.byThread.keys()]
      .filter((thread) => compareStrings(thread, after) > 0)
      .sort(compareStrings)
      .slice(0, limit)
      .map((thread) => {
        const list = this.byThread.get(thread)!;
        return { thread, recordCount: list.length, firstSequence: list[0]!.sequence, lastSequence: list[list.length - 1]!.sequence };
      });
  }

  protected async _query(query: ParsedQuery): Promise<Omit<QueryResult, 'capped'>> {
    const matched = this.records.filter((stored) => matchesFilter(stored, query.filter));
    if (query.sort) matched.sort(compareForSort(query.sort));
    const items = matched.slice(query.offset, query.offset + query.limit);
    if (!query.explain) return { items, matchedTotal: matched.length };
    const plan = {
      sql: `full scan of ${this.records.length} records in sequence order, filtered in memory${query.sort ? ', then sorted' : ''}`,
      bind_count: 0,
      indexed_fields: [],
      unindexed_fields: [...fieldsOf(query.filter)],
    };
    return { items, matchedTotal: matched.length, plan };
  }
}
