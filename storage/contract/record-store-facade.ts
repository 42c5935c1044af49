/**
 * The public face of every driver: public methods check status and
 * arguments, clamp limits and shape pages once, then call the protected
 * primitives a driver implements (abstract-level's public/private split).
 *
 * Concurrent appends are gathered here by GroupCommit (the contract promises
 * it for every driver); a driver receives each group as `_commitGroup`, the
 * records of it already free of conflicts among themselves. How a group is
 * numbered, checked against the log and made durable is the driver's
 * business: JournaledRecordStore does it for single-writer drivers (SQLite,
 * LevelDB, an embedder's own), the PostgreSQL driver in one transaction per
 * group under a lock every server shares.
 *
 * `optimize()` (housekeeping, hourly) runs the driver's `_optimize` one call
 * at a time, and close() waits for a running one before `_close()`. It is
 * deliberately not queued behind the write path (holding writes back for a
 * compaction would stall ingest); a driver whose maintenance must not
 * interleave with a write serialises it itself.
 */
import { LoomError } from '../../core/errors/loom-error.js';
import { GroupCommit } from './group-commit.js';
import type { FilterNode, ParsedQuery } from './query/filter-ast.js';
import {
  CHANGES_DEFAULT_LIMIT,
  CHANGES_MAX_LIMIT,
  PAGE_DEFAULT_LIMIT,
  PAGE_MAX_LIMIT,
  type PageRequest,
  type QueryOptions,
  type QueryResult,
  type RecordPage,
  type RecordStore,
  type SerializedRecordPage,
  type StoreBackup,
  type StoreCapabilities,
  type StoreStatus,
  type ThreadSummary,
  type ThreadSummaryPage,
} from './record-store.js';
import { serializePage, type AppendOutcome, type PreparedRecord, type StoredRecord } from './stored-record.js';

/** A checked page request: records with sequence > `after`, at most `limit` of them (one more than the caller's page, to learn whether another follows). */
export interface NormalisedPage {
  readonly after: number;
  readonly limit: number;
}

export function clampLimit(limit: number | undefined, fallback: number, max: number): number {
  if (limit === undefined) return fallback;
  if (!Number.isInteger(limit) || limit < 0) throw new TypeError(`limit must be a non-negative integer, got ${limit}`);
  return Math.min(limit, max);
}

export function checkCursor(after: number | undefined): number {
  if (after === undefined) return 0;
  if (!Number.isInteger(after) || after < 0) throw new TypeError(`cursor must be a non-negative integer, got ${after}`);
  return after;
}

/** The first `limit` of `items` as a page, and the cursor after it when more were read. */
export function pageOfRecords(items: StoredRecord[], limit: number): RecordPage {
  const more = items.length > limit;
  const pageItems = more ? items.slice(0, limit) : items;
  return { items: pageItems, nextAfter: more && pageItems.length > 0 ? pageItems[pageItems.length - 1]!.sequence : null };
}

export interface RecordStoreFacadeOptions {
  /** Upper bound on records per group commit. @default 2000 */
  readonly maxBatch?: number;
}

export abstract class RecordStoreFacade implements RecordStore {
  abstract readonly capabilities: StoreCapabilities;
  private _status: StoreStatus = 'new';
  private readonly commits: GroupCommit;
  /** Settles (never rejects) when the last `optimize` started or queued has: the next one starts after it, close() waits for it. */
  private optimizing: Promise<void> | null = null;

  constructor(options: RecordStoreFacadeOptions = {}) {
    this.commits = new GroupCommit((leaders, slots) => this._commitGroup(leaders, slots), options.maxBatch);
  }

  get status(): StoreStatus {
    return this._status;
  }

  async open(): Promise<void> {
    if (this._status === 'open') return;
    if (this._status !== 'new' && this._status !== 'closed') throw new LoomError('SERVICE_UNAVAILABLE', `record store is ${this._status}`);
    this._status = 'opening';
    try {
      await this._open();
      try {
        await this.openWrites();
      } catch (error) {
        await this._close().catch(() => undefined);
        throw error;
      }
      this._status = 'open';
    } catch (error) {
      this._status = 'closed';
      throw error;
    }
  }

  async close(): Promise<void> {
    if (this._status === 'closed' || this._status === 'new') {
      this._status = 'closed';
      return;
    }
    if (this._status === 'closing') return;
    this._status = 'closing';
    try {
      await this.finishWrites();
    } finally {
      try {
        await this.releaseWrites();
      } finally {
        // A running `_optimize` finishes before the driver closes under it (queued ones refuse to start).
        await this.optimizing;
        await this._close();
        this._status = 'closed';
      }
    }
  }

  protected assertOpen(): void {
    if (this._status !== 'open') throw new LoomError('SERVICE_UNAVAILABLE', `record store is not open (${this._status})`);
  }

  /** The checks of a paged read: the store is open, the cursor and limit are valid; the limit is one more than the caller's page, to learn whether another follows. */
  protected checkPage(page: PageRequest): NormalisedPage {
    this.assertOpen();
    return { after: checkCursor(page.after), limit: clampLimit(page.limit, PAGE_DEFAULT_LIMIT, PAGE_MAX_LIMIT) + 1 };
  }

  append(prepared: PreparedRecord): Promise<AppendOutcome> {
    try {
      this.assertOpen();
    } catch (error) {
      return Promise.reject(error);
    }
    return this.commits.submit(prepared);
  }

  appendMany(prepared: readonly PreparedRecord[]): Promise<AppendOutcome[]> {
    try {
      this.assertOpen();
    } catch (error) {
      return Promise.reject(error);
    }
    return Promise.all(prepared.map((p) => this.commits.submit(p)));
  }

  async get(id: string): Promise<StoredRecord | undefined> {
    this.assertOpen();
    if (typeof id !== 'string') throw new TypeError('id must be a string');
    return this._readRecord(id);
  }

  async listByThread(thread: string, page: PageRequest = {}): Promise<RecordPage> {
    const normalised = this.checkPage(page);
    return pageOfRecords(await this._readThread(thread, normalised), normalised.limit - 1);
  }

  async listByActor(actor: string, page: PageRequest = {}): Promise<RecordPage> {
    const normalised = this.checkPage(page);
    return pageOfRecords(await this._readActor(actor, normalised), normalised.limit - 1);
  }

  async changesSince(after: number, limit?: number): Promise<StoredRecord[]> {
    this.assertOpen();
    const cursor = checkCursor(after);
    const max = clampLimit(limit, CHANGES_DEFAULT_LIMIT, CHANGES_MAX_LIMIT);
    if (max === 0) return [];
    return this._readChanges(cursor, max);
  }

  async watermark(): Promise<number> {
    this.assertOpen();
    return this._readHead();
  }

  async listThreads(page: { after?: string; limit?: number } = {}): Promise<ThreadSummaryPage> {
    this.assertOpen();
    const limit = clampLimit(page.limit, PAGE_DEFAULT_LIMIT, PAGE_MAX_LIMIT);
    await this.caughtUp();
    // Ask for one more than the page to learn whether another page exists.
    const items = await this._listThreads(page.after ?? '', limit + 1);
    const more = items.length > limit;
    const pageItems = more ? items.slice(0, limit) : items;
    return { items: pageItems, nextAfter: more && pageItems.length > 0 ? pageItems[pageItems.length - 1]!.thread : null };
  }

  async query(query: ParsedQuery, options: QueryOptions = {}): Promise<QueryResult> {
    this.assertOpen();
    const filter: FilterNode = options.scope ? { op: 'and', nodes: [options.scope, query.filter] } : query.filter;
    await this.caughtUp();
    const result = await this._query({ ...query, filter });
    return { ...result, capped: query.offset + result.items.length < result.matchedTotal };
  }

  async optimize(): Promise<string> {
    this.assertOpen();
    const previous = this.optimizing;
    const run = previous
      ? previous.then(() => {
          // Queued behind another run while the store began closing: refuse rather than hold close() up.
          this.assertOpen();
          return this._optimize();
        })
      : this._optimize();
    const settled = run.then(
      () => undefined,
      () => undefined,
    );
    this.optimizing = settled;
    void settled.then(() => {
      if (this.optimizing === settled) this.optimizing = null;
    });
    return run;
  }

  /**
   * A consistent copy of the log: waits until the driver holds everything
   * acknowledged so far (`caughtUp`), then lets the driver copy from one
   * snapshot of itself while appends go on.
   */
  async backup(destination: string): Promise<StoreBackup> {
    this.assertOpen();
    if (!this.capabilities.onlineBackup) throw new LoomError('BACKUP_NOT_SUPPORTED', `the ${this.capabilities.backend} driver takes no online backup`);
    await this.caughtUp();
    return this._backup(destination);
  }

  // Hooks of the write path (JournaledRecordStore's journal and applier); the defaults have none.

  /** After `_open()`: make the write path ready. On failure the façade calls `_close()`. */
  protected async openWrites(): Promise<void> {}

  /** First step of close(): everything submitted so far is written. */
  protected async finishWrites(): Promise<void> {
    await this.commits.flush();
  }

  /** After `finishWrites` (also when it failed), before `_close()`: let go of the write path's resources. */
  protected async releaseWrites(): Promise<void> {}

  /** Resolves once reads of the driver see every record acknowledged so far (queries, thread lists and backups wait for it). */
  protected caughtUp(): Promise<void> {
    return Promise.resolve();
  }

  // The primitives a driver implements.

  protected abstract _open(): Promise<void>;
  protected abstract _close(): Promise<void>;
  /**
   * Stores one group of appends and answers each: `exists` (the same id
   * holds its slot), `duplicate_clock` (another record holds its (actor,
   * thread, clock) slot) or `inserted` with its sequence, next after every
   * sequence acknowledged before. The records do not conflict with each
   * other (GroupCommit sees to that). One call runs at a time per store.
   * `slots[i]` is `clockSlotKey(leaders[i].record)`, already made.
   */
  protected abstract _commitGroup(leaders: PreparedRecord[], slots: readonly string[]): Promise<AppendOutcome[]>;
  protected abstract _readRecord(id: string): Promise<StoredRecord | undefined>;
  /** Up to `page.limit` records on the thread with sequence > `page.after`, ascending. */
  protected abstract _readThread(thread: string, page: NormalisedPage): Promise<StoredRecord[]>;
  protected abstract _readActor(actor: string, page: NormalisedPage): Promise<StoredRecord[]>;
  /** Up to `limit` (> 0) records with sequence > `after`, ascending: gapless, so a follower never skips one. */
  protected abstract _readChanges(after: number, limit: number): Promise<StoredRecord[]>;
  /** Highest sequence acknowledged (0 when empty). */
  protected abstract _readHead(): Promise<number>;
  /** Up to `limit` thread summaries with thread id > `after`, ascending by thread id. */
  protected abstract _listThreads(after: string, limit: number): Promise<ThreadSummary[]>;
  /**
   * Runs a parsed query (filter already includes any scope). Must give exactly
   * the results of `matchesFilter` + `compareForSort` + offset/limit;
   * `plan` only when `query.explain`. `capped` is computed by the façade.
   */
  protected abstract _query(query: ParsedQuery): Promise<Omit<QueryResult, 'capped'>>;
  /** Drivers with `onlineBackup`: copy the store, from one snapshot, into `destination` (an empty directory). */
  protected _backup(_destination: string): Promise<StoreBackup> {
    return Promise.reject(new LoomError('BACKUP_NOT_SUPPORTED', `the ${this.capabilities.backend} driver takes no online backup`));
  }
  /**
   * Storage housekeeping behind `optimize()`; resolves with a one-line
   * summary for the log. Runs only while the store is open, one call at a
   * time, and `_close()` waits for it. It is NOT serialised with writes or
   * reads, which may run meanwhile: it must leave every stored record
   * readable as before. The default has nothing to do.
   */
  protected _optimize(): Promise<string> {
    return Promise.resolve(`${this.capabilities.backend}: nothing to optimise`);
  }
}

/** The first `limit` of `items` as wire JSON, with the cursor after them when more were read. */
export function serializedPage(items: StoredRecord[], limit: number): SerializedRecordPage {
  const page = pageOfRecords(items, limit);
  return serializePage(page.items, page.nextAfter);
}
