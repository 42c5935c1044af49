/**
 * Public methods check status and arguments and normalise limits once, then
 * call the protected primitives a driver implements (abstract-level's split).
 * Appends go through GroupCommit, so every driver gets group commit for free;
 * `_appendBatch` receives records with no conflicts among themselves.
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
  type StoreCapabilities,
  type StoreStatus,
  type ThreadSummaryPage,
} from './record-store.js';
import type { AppendOutcome, PreparedRecord, StoredRecord } from './stored-record.js';

export interface NormalisedPage {
  readonly after: number;
  readonly limit: number;
}

function clampLimit(limit: number | undefined, fallback: number, max: number): number {
  if (limit === undefined) return fallback;
  if (!Number.isInteger(limit) || limit < 0) throw new TypeError(`limit must be a non-negative integer, got ${limit}`);
  return Math.min(limit, max);
}

function checkCursor(after: number | undefined): number {
  if (after === undefined) return 0;
  if (!Number.isInteger(after) || after < 0) throw new TypeError(`cursor must be a non-negative integer, got ${after}`);
  return after;
}

export abstract class BaseRecordStore implements RecordStore {
  abstract readonly capabilities: StoreCapabilities;
  private _status: StoreStatus = 'new';
  private readonly commits: GroupCommit;

  constructor(options: { maxBatch?: number } = {}) {
    this.commits = new GroupCommit((leaders) => this._appendBatch(leaders), options.maxBatch);
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
      await this.commits.flush();
    } finally {
      await this._close();
      this._status = 'closed';
    }
  }

  protected assertOpen(): void {
    if (this._status !== 'open') throw new LoomError('SERVICE_UNAVAILABLE', `record store is not open (${this._status})`);
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
    return this._get(id);
  }

  async listByThread(thread: string, page: PageRequest = {}): Promise<RecordPage> {
    this.assertOpen();
    return this.pageOf(await this._listByThread(thread, this.normalise(page)), page);
  }

  async listByActor(actor: string, page: PageRequest = {}): Promise<RecordPage> {
    this.assertOpen();
    return this.pageOf(await this._listByActor(actor, this.normalise(page)), page);
  }

  async changesSince(after: number, limit?: number): Promise<StoredRecord[]> {
    this.assertOpen();
    return this._changesSince(checkCursor(after), clampLimit(limit, CHANGES_DEFAULT_LIMIT, CHANGES_MAX_LIMIT));
  }

  async watermark(): Promise<number> {
    this.assertOpen();
    return this._watermark();
  }

  async listThreads(page: { after?: string; limit?: number } = {}): Promise<ThreadSummaryPage> {
    this.assertOpen();
    const limit = clampLimit(page.limit, PAGE_DEFAULT_LIMIT, PAGE_MAX_LIMIT);
    // Ask for one more than the page to learn whether another page exists.
    const items = await this._listThreads(page.after ?? '', limit + 1);
    const more = items.length > limit;
    const pageItems = more ? items.slice(0, limit) : items;
    return { items: pageItems, nextAfter: more && pageItems.length > 0 ? pageItems[pageItems.length - 1]!.thread : null };
  }

  async query(query: ParsedQuery, options: QueryOptions = {}): Promise<QueryResult> {
    this.assertOpen();
    const filter: FilterNode = options.scope ? { op: 'and', nodes: [options.scope, query.filter] } : query.filter;
    const result = await this._query({ ...query, filter });
    return { ...result, capped: query.offset + result.items.length < result.matchedTotal };
  }

  private normalise(page: PageRequest): NormalisedPage {
    // One extra row tells whether there is a next page.
    return { after: checkCursor(page.after), limit: clampLimit(page.limit, PAGE_DEFAULT_LIMIT, PAGE_MAX_LIMIT) + 1 };
  }

  private pageOf(items: StoredRecord[], page: PageRequest): RecordPage {
    const limit = clampLimit(page.limit, PAGE_DEFAULT_LIMIT, PAGE_MAX_LIMIT);
    const more = items.length > limit;
    const pageItems = more ? items.slice(0, limit) : items;
    return { items: pageItems, nextAfter: more && pageItems.length > 0 ? pageItems[pageItems.length - 1]!.sequence : null };
  }

  protected abstract _open(): Promise<void>;
  protected abstract _close(): Promise<void>;
  /**
   * Durably and atomically stores a batch with no internal conflicts, checking
   * each record against what is already stored (same id → `exists`, same
   * (actor, thread, clock) with another id → `duplicate_clock`). Assigns
   * strictly increasing sequences in batch order. Outcomes in input order.
   */
  protected abstract _appendBatch(batch: PreparedRecord[]): Promise<AppendOutcome[]>;
  protected abstract _get(id: string): Promise<StoredRecord | undefined>;
  /** Up to `page.limit` records on the thread with sequence > `page.after`, ascending. */
  protected abstract _listByThread(thread: string, page: NormalisedPage): Promise<StoredRecord[]>;
  protected abstract _listByActor(actor: string, page: NormalisedPage): Promise<StoredRecord[]>;
  protected abstract _changesSince(after: number, limit: number): Promise<StoredRecord[]>;
  protected abstract _watermark(): Promise<number>;
  /** Up to `limit` thread summaries with thread id > `after`, ascending by thread id. */
  protected abstract _listThreads(after: string, limit: number): Promise<import('./record-store.js').ThreadSummary[]>;
  /**
   * Runs a parsed query (filter already includes any scope). Must give exactly
   * the results of `matchesFilter` + `compareForSort` + offset/limit;
   * `plan` only when `query.explain`. `capped` is computed by the base class.
   */
  protected abstract _query(query: ParsedQuery): Promise<Omit<QueryResult, 'capped'>>;
}
