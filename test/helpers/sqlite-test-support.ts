/**
 * Helpers for the SQLite driver's own tests: real content-addressed records,
 * stores in temporary directories, and the reference answer to a query
 * (matchesFilter + compareForSort + offset/limit) to compare SQL against.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { canonicalRecord } from '../../core/records/content-text.js';
import type { RecordFields } from '../../core/records/record.js';
import { compareForSort, matchesFilter } from '../../storage/contract/query/evaluate-filter.js';
import type { ParsedQuery } from '../../storage/contract/query/filter-ast.js';
import { namespaceOf, type PreparedRecord, type StoredRecord } from '../../storage/contract/stored-record.js';
import { SqliteRecordStore, type SqliteRecordStoreOptions } from '../../storage/sqlite/sqlite-record-store.js';

export const ALICE = 'did:sync:user:alice';
export const BOB = 'did:sync:user:bob';
export const TH_A = 'th_' + 'a'.repeat(64);
export const TH_B = 'th_' + 'b'.repeat(64);
export const TH_C = 'th_' + 'c'.repeat(64);

export function prepare(fields: Partial<RecordFields> & { clock: number }, createdAt = 1_700_000_000_000): PreparedRecord {
  const full: RecordFields = {
    parents: [],
    thread: TH_A,
    actor: ALICE,
    act: 'KNOW',
    body: {},
    data_type: 'SCALAR',
    judged_by: null,
    ...fields,
  };
  const { record, content } = canonicalRecord(full);
  return { record, namespace: namespaceOf(record), createdAt, content };
}

/** Temporary directories and stores opened by one test file; `cleanup` closes and removes them all. */
export class TempStores {
  private readonly dirs: string[] = [];
  private readonly stores: SqliteRecordStore[] = [];

  async dir(): Promise<string> {
    const dir = await mkdtemp(join(tmpdir(), 'loom-sqlite-'));
    this.dirs.push(dir);
    return dir;
  }

  /** An opened store on `path` (default: a fresh temporary directory's loom.db). */
  async open(options: Partial<SqliteRecordStoreOptions> = {}): Promise<SqliteRecordStore> {
    const store = new SqliteRecordStore({ path: join(await this.dir(), 'loom.db'), ...options });
    return this.track(store);
  }

  async track(store: SqliteRecordStore): Promise<SqliteRecordStore> {
    this.stores.push(store);
    await store.open();
    return store;
  }

  async cleanup(): Promise<void> {
    for (const store of this.stores.splice(0)) await store.close().catch(() => undefined);
    for (const dir of this.dirs.splice(0)) await rm(dir, { recursive: true, force: true });
  }
}

/** What the reference semantics return for `query` over `all`. */
export function referenceAnswer(all: readonly StoredRecord[], query: ParsedQuery): { ids: string[]; matchedTotal: number } {
  const matched = all.filter((s) => matchesFilter(s, query.filter)).sort(compareForSort(query.sort));
  return { ids: matched.slice(query.offset, query.offset + query.limit).map((s) => s.record.id), matchedTotal: matched.length };
}
