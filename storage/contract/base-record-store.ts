/**
 * Public methods check status and arguments and normalise limits once, then
 * call the protected primitives a driver implements (abstract-level's split).
 *
 * The write path is the same for every driver. Appends go through
 * GroupCommit; each batch is checked for conflicts (the unapplied tail, then
 * the driver's `_lookupSlots`), given sequences, and then either
 *  - with an ingest journal (persistent drivers): written as one fsync'd
 *    journal frame and acknowledged; an applier hands the driver what
 *    accumulated meanwhile in one large `_applyBatch`, so index maintenance
 *    costs one transaction per thousands of records instead of one per
 *    group commit. Reads merge the unapplied tail (get, thread and actor
 *    pages, the changes feed) or wait for the applier to reach the sequence
 *    current when they were called (queries, thread lists). Opening replays
 *    what the journal holds beyond the driver's watermark;
 *  - without one: applied by `_applyBatch` before it is acknowledged.
 *
 * `optimize()` (housekeeping, hourly) runs the driver's `_optimize` one call
 * at a time, and close() waits for a running one before `_close()`. It is
 * deliberately not queued behind the write path: `_applyBatch` is serialised
 * by GroupCommit (no journal) or by the single applier (journal), and holding
 * either back for a compaction would stall ingest. A driver whose maintenance
 * must not interleave with a batch serialises it itself (SQLite: on the
 * writer connection's queue, like the batch's transaction).
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
  type SerializedRecordPage,
  type RecordStore,
  type StoreCapabilities,
  type StoreBackup,
  type StoreRecovery,
  type StoreStatus,
  type ThreadSummaryPage,
} from './record-store.js';
import { clockSlotKey, serializePage, type AppendOutcome, type PreparedRecord, type StoredRecord } from './stored-record.js';
import type { AcceptedRecord } from './journal/accepted-record.js';
import { IngestJournal } from './journal/ingest-journal.js';
import { exactPairKey, SlotKnowledge } from './journal/slot-knowledge.js';
import { mergeBySequence, UnappliedTail } from './journal/unapplied-tail.js';
import type { LoomRecord } from '../../core/records/record.js';

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

export interface IngestJournalSettings {
  /** Directory of the journal's segment files. */
  readonly directory: string;
  /** fdatasync every group commit's frame before acknowledging it. */
  readonly sync: boolean;
  /** Records acknowledged but not yet applied before new group commits wait for the applier. @default 20000 */
  readonly maxUnapplied?: number;
  /** Most records handed to one `_applyBatch`. @default 10000 */
  readonly maxApplyBatch?: number;
  /** Segment size at which the journal starts a new file. @default 64 MiB */
  readonly segmentBytes?: number;
  /**
   * Longest the applier lets acknowledged records gather before applying
   * them, in ms. It applies sooner once half of `maxApplyBatch` has gathered,
   * or as soon as a caller waits for the driver (a query, a thread list,
   * back-pressure) or the store closes. @default 200
   */
  readonly applyGatherMs?: number;
}

export interface BaseRecordStoreOptions {
  /** Upper bound on records per group commit. @default 2000 */
  readonly maxBatch?: number;
  /** Acknowledge on an fsync'd journal and apply to the driver in large batches; null applies each group commit directly. */
  readonly journal?: IngestJournalSettings | null;
}

/** Delay before the applier retries after the driver failed to apply, doubled up to the maximum. */
const APPLY_RETRY_MS = 100;
const APPLY_RETRY_MAX_MS = 5000;

export abstract class BaseRecordStore implements RecordStore {
  abstract readonly capabilities: StoreCapabilities;
  private _status: StoreStatus = 'new';
  private readonly commits: GroupCommit;
  private readonly journalSettings: IngestJournalSettings | null;
  private journal: IngestJournal | null = null;
  private readonly tail = new UnappliedTail();
  private slots = new SlotKnowledge();
  /** Highest sequence acknowledged (journaled or applied). */
  private head = 0;
  /** Highest sequence the driver has committed. */
  private applied = 0;
  private applying: Promise<void> | null = null;
  /** Ends the applier's current gathering pause early (null when it is not pausing). */
  private stopGathering: (() => void) | null = null;
  private applyFailure: { error: unknown; retryMs: number } | null = null;
  private retryTimer: NodeJS.Timeout | null = null;
  /** Callers waiting for the applier to reach a sequence. */
  private waiters: Array<{ sequence: number; resolve: () => void; reject: (error: unknown) => void }> = [];
  /** Settles (never rejects) when the last `optimize` started or queued has: the next one starts after it, close() waits for it. */
  private optimizing: Promise<void> | null = null;

  constructor(options: BaseRecordStoreOptions = {}) {
    this.commits = new GroupCommit((leaders) => this.commitBatch(leaders), options.maxBatch);
    this.journalSettings = options.journal ?? null;
  }

  get status(): StoreStatus {
    return this._status;
  }

  private _recovery: StoreRecovery | null = null;
  get recovery(): StoreRecovery | null {
    return this._recovery;
  }

  async open(): Promise<void> {
    if (this._status === 'open') return;
    if (this._status !== 'new' && this._status !== 'closed') throw new LoomError('SERVICE_UNAVAILABLE', `record store is ${this._status}`);
    this._status = 'opening';
    try {
      await this._open();
      try {
        this.applied = this.head = await this._watermark();
        if (this.journalSettings) await this.recoverJournal(this.journalSettings);
        this.slots = new SlotKnowledge();
        const pairs = this._slotPairs();
        if (pairs) await this.slots.seed(pairs, this.head);
      } catch (error) {
        await this.journal?.close().catch(() => undefined);
        this.journal = null;
        await this._close().catch(() => undefined);
        throw error;
      }
      this._status = 'open';
    } catch (error) {
      this._status = 'closed';
      throw error;
    }
  }

  /** Applies what the journal holds beyond the driver's watermark, then drops the applied segments. */
  private async recoverJournal(settings: IngestJournalSettings): Promise<void> {
    const started = performance.now();
    const driverWatermark = this.applied;
    const { journal, records, tornTail } = await IngestJournal.open(settings);
    this.journal = journal;
    const pending = records.filter((accepted) => accepted.stored.sequence > this.applied);
    if (pending.length > 0 && pending[0]!.stored.sequence !== this.applied + 1) {
      throw new LoomError(
        'INTERNAL',
        `ingest journal in ${settings.directory} resumes at sequence ${pending[0]!.stored.sequence} but the store ends at ${this.applied}`,
      );
    }
    const size = settings.maxApplyBatch ?? 10_000;
    for (let i = 0; i < pending.length; i += size) {
      const batch = pending.slice(i, i + size);
      await this._applyBatch(batch);
      this.applied = batch[batch.length - 1]!.stored.sequence;
    }
    this.head = this.applied;
    const segments = journal.segmentCount;
    await journal.release(this.applied);
    this._recovery = {
      replayedRecords: pending.length,
      replayedFrom: pending[0]?.stored.sequence ?? null,
      replayedTo: pending[pending.length - 1]?.stored.sequence ?? null,
      journalSegments: segments,
      tornTail,
      driverWatermark,
      durationMs: Math.round(performance.now() - started),
    };
  }

  async close(): Promise<void> {
    if (this._status === 'closed' || this._status === 'new') {
      this._status = 'closed';
      return;
    }
    if (this._status === 'closing') return;
    this._status = 'closing';
    this.checkGathering();
    try {
      await this.commits.flush();
      if (this.journal) await this.drainApplier();
    } finally {
      if (this.retryTimer) clearTimeout(this.retryTimer);
      this.retryTimer = null;
      const journal = this.journal;
      this.journal = null;
      try {
        // Everything applied: the segments can go. Otherwise they stay for the next open to replay.
        if (journal) await journal.close(this.tail.size === 0 ? this.applied : undefined);
      } finally {
        this.rejectWaiters(new LoomError('SERVICE_UNAVAILABLE', 'record store closed'));
        // A running `_optimize` finishes before the driver closes under it (queued ones refuse to start).
        await this.optimizing;
        await this._close();
        this._status = 'closed';
      }
    }
  }

  /** Waits until the applier has emptied the tail, or gives up after one failed attempt. */
  private async drainApplier(): Promise<void> {
    if (this.applyFailure) {
      if (this.retryTimer) clearTimeout(this.retryTimer);
      this.retryTimer = null;
      this.applyFailure = null;
      this.startApplier();
    }
    while (this.applying) await this.applying;
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

  /** One group commit: leaders have no conflicts among themselves (GroupCommit sees to that). */
  private async commitBatch(leaders: PreparedRecord[]): Promise<AppendOutcome[]> {
    if (this.journal) await this.roomInTail();
    // Most records are certainly free (see SlotKnowledge). For the rest: the tail first, then the
    // driver; a record that left the tail meanwhile was committed before it left.
    const holders = new Map<string, StoredRecord>();
    const unknown: LoomRecord[] = [];
    const pairKeys = leaders.map(({ record }) => this._slotPairKey(record));
    const free = leaders.map(({ record }, i) => this.slots.certainlyFree(record, pairKeys[i]!));
    leaders.forEach(({ record }, i) => {
      if (free[i]) return;
      const slot = clockSlotKey(record);
      const holder = this.tail.slotHolder(slot);
      if (holder) holders.set(slot, holder);
      else unknown.push(record);
    });
    if (unknown.length > 0) {
      for (const stored of await this._lookupSlots(unknown)) holders.set(clockSlotKey(stored.record), stored);
    }
    // The same id is the same content, so it holds the same slot: one lookup answers both questions.
    const outcomes: AppendOutcome[] = [];
    const accepted: AcceptedRecord[] = [];
    let sequence = this.head;
    const acceptedFree: boolean[] = [];
    const acceptedKeys: string[] = [];
    leaders.forEach((prepared, i) => {
      const holder = free[i] ? undefined : holders.get(clockSlotKey(prepared.record));
      if (holder) {
        outcomes.push(holder.record.id === prepared.record.id ? { status: 'exists', stored: holder } : { status: 'duplicate_clock', existing: holder });
        return;
      }
      const stored: StoredRecord = { sequence: ++sequence, createdAt: prepared.createdAt, record: prepared.record };
      accepted.push({ stored, namespace: prepared.namespace });
      acceptedFree.push(free[i]!);
      acceptedKeys.push(pairKeys[i]!);
      outcomes.push({ status: 'inserted', stored });
    });
    if (accepted.length === 0) return outcomes;
    if (this.journal) {
      await this.journal.append(accepted);
      this.tail.add(accepted);
      this.head = sequence;
      if (!this.applyFailure) this.startApplier();
      this.checkGathering();
    } else {
      await this._applyBatch(accepted);
      this.head = this.applied = sequence;
    }
    accepted.forEach(({ stored }, i) => this.slots.noteAccepted(stored.record, acceptedKeys[i]!, acceptedFree[i]!));
    return outcomes;
  }

  /** Back-pressure: a group commit waits while the applier is `maxUnapplied` records behind. */
  private async roomInTail(): Promise<void> {
    const limit = this.journalSettings?.maxUnapplied ?? 20_000;
    while (this.tail.size >= limit) {
      if (this.applyFailure) {
        throw new LoomError('SERVICE_UNAVAILABLE', `storage cannot keep up: applying records to the ${this.capabilities.backend} driver fails (${String(this.applyFailure.error)})`);
      }
      await this.reached(this.applied + 1);
    }
  }

  private startApplier(): void {
    if (!this.applying) this.applying = this.applyLoop();
  }

  /** Hands the driver everything the tail holds, in large batches, until it is empty. */
  private async applyLoop(): Promise<void> {
    const size = this.journalSettings?.maxApplyBatch ?? 10_000;
    try {
      while (this.tail.size > 0 && this.journal) {
        await this.gather();
        const batch = this.tail.oldest(size);
        const last = batch[batch.length - 1]!.stored.sequence;
        await this._applyBatch(batch);
        this.applied = last;
        this.tail.dropThrough(last);
        this.applyFailure = null;
        this.settleWaiters();
        await this.journal.release(last);
      }
    } catch (error) {
      // The records are safe in the journal; retry later, and meanwhile refuse callers who would wait.
      const retryMs = Math.min((this.applyFailure?.retryMs ?? APPLY_RETRY_MS / 2) * 2, APPLY_RETRY_MAX_MS);
      this.applyFailure = { error, retryMs };
      this.rejectWaiters(new LoomError('SERVICE_UNAVAILABLE', `applying records to the ${this.capabilities.backend} driver failed: ${String(error)}`));
      if (this._status === 'open') {
        this.retryTimer = setTimeout(() => {
          this.retryTimer = null;
          this.startApplier();
        }, retryMs);
        this.retryTimer.unref();
      }
    } finally {
      this.applying = null;
    }
  }

  /**
   * Pauses while the tail is small and nobody waits for the driver. A driver
   * batch dirties index pages all over the file whether it holds a few
   * hundred records or thousands, and every dirtied page is written, so
   * fewer, larger batches write far less (and leave the disk to the
   * journal's fsyncs, which acknowledgements wait for).
   */
  private async gather(): Promise<void> {
    const settings = this.journalSettings;
    const gatherMs = settings?.applyGatherMs ?? 200;
    if (!this.shouldGather() || gatherMs <= 0) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => this.stopGathering?.(), gatherMs);
      this.stopGathering = () => {
        clearTimeout(timer);
        this.stopGathering = null;
        resolve();
      };
    });
  }

  private shouldGather(): boolean {
    const target = (this.journalSettings?.maxApplyBatch ?? 10_000) / 2;
    return this._status === 'open' && this.waiters.length === 0 && this.tail.size < target;
  }

  /** Ends a gathering pause once it no longer has a reason to last. */
  private checkGathering(): void {
    if (this.stopGathering && !this.shouldGather()) this.stopGathering();
  }

  /** Resolves once the driver has committed `sequence` (at once when it has). */
  private reached(sequence: number): Promise<void> {
    if (this.applied >= sequence) return Promise.resolve();
    if (this.applyFailure) {
      return Promise.reject(new LoomError('SERVICE_UNAVAILABLE', `applying records to the ${this.capabilities.backend} driver fails: ${String(this.applyFailure.error)}`));
    }
    return new Promise((resolve, reject) => {
      this.waiters.push({ sequence, resolve, reject });
      this.checkGathering();
    });
  }

  /** Waits until the driver holds every record acknowledged so far: reads the tail cannot answer. */
  /** Resolves once the driver holds everything acknowledged so far (the journal tail applied). */
  protected caughtUp(): Promise<void> {
    return this.reached(this.head);
  }

  private settleWaiters(): void {
    if (this.waiters.length === 0) return;
    const still: typeof this.waiters = [];
    for (const waiter of this.waiters) {
      if (this.applied >= waiter.sequence) waiter.resolve();
      else still.push(waiter);
    }
    this.waiters = still;
  }

  private rejectWaiters(error: unknown): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const waiter of waiters) waiter.reject(error);
  }

  async get(id: string): Promise<StoredRecord | undefined> {
    this.assertOpen();
    if (typeof id !== 'string') throw new TypeError('id must be a string');
    return this.tail.get(id) ?? this._get(id);
  }

  async listByThread(thread: string, page: PageRequest = {}): Promise<RecordPage> {
    this.assertOpen();
    const normalised = this.normalise(page);
    const unapplied = this.tail.select(normalised.after, normalised.limit, (stored) => stored.record.thread === thread);
    return this.pageOf(mergeBySequence(await this._listByThread(thread, normalised), unapplied, normalised.limit), page);
  }

  async listByThreadSerialized(thread: string, page: PageRequest = {}): Promise<SerializedRecordPage> {
    this.assertOpen();
    const normalised = this.normalise(page);
    const limit = clampLimit(page.limit, PAGE_DEFAULT_LIMIT, PAGE_MAX_LIMIT);
    // Records of this thread still in the unapplied tail: merged from objects (rare: the applier lags by milliseconds).
    if (this.tail.select(normalised.after, 1, (stored) => stored.record.thread === thread).length > 0) {
      const records = await this.listByThread(thread, page);
      return serializePage(records.items, records.nextAfter);
    }
    return this._listByThreadSerialized(thread, normalised.after, limit);
  }

  async listByActor(actor: string, page: PageRequest = {}): Promise<RecordPage> {
    this.assertOpen();
    const normalised = this.normalise(page);
    const unapplied = this.tail.select(normalised.after, normalised.limit, (stored) => stored.record.actor === actor);
    return this.pageOf(mergeBySequence(await this._listByActor(actor, normalised), unapplied, normalised.limit), page);
  }

  async changesSince(after: number, limit?: number): Promise<StoredRecord[]> {
    this.assertOpen();
    const cursor = checkCursor(after);
    const max = clampLimit(limit, CHANGES_DEFAULT_LIMIT, CHANGES_MAX_LIMIT);
    const unapplied = this.tail.select(cursor, max);
    // The driver's part ends where the tail begins (when the tail holds the whole page, it alone answers).
    if (max > 0 && unapplied.length === max && unapplied[0]!.sequence === cursor + 1) return unapplied;
    return mergeBySequence(await this._changesSince(cursor, max), unapplied, max);
  }

  async watermark(): Promise<number> {
    this.assertOpen();
    return this.head;
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
   * acknowledged so far (the journal's tail applied), then lets the driver
   * copy from one snapshot of itself while appends go on.
   */
  async backup(destination: string): Promise<StoreBackup> {
    this.assertOpen();
    if (!this.capabilities.onlineBackup) throw new LoomError('BACKUP_NOT_SUPPORTED', `the ${this.capabilities.backend} driver takes no online backup`);
    await this.caughtUp();
    return this._backup(destination);
  }

  /** Drivers with `onlineBackup`: copy the store, from one snapshot, into `destination` (an empty directory). */
  protected _backup(_destination: string): Promise<StoreBackup> {
    return Promise.reject(new LoomError('BACKUP_NOT_SUPPORTED', `the ${this.capabilities.backend} driver takes no online backup`));
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
   * Stored records holding any of these records' (actor, thread, clock)
   * slots, in any order. (A stored record with the same id holds the same
   * slot, so this also finds resends.)
   */
  protected abstract _lookupSlots(records: readonly LoomRecord[]): Promise<StoredRecord[]>;
  /**
   * Atomically (all or nothing) and durably (as the driver's durability
   * promises) stores records with the sequences they carry. They are known
   * not to conflict with each other or with stored records; their sequences
   * are consecutive and continue `_watermark()`. Only one call runs at a time.
   */
  protected abstract _applyBatch(records: readonly AcceptedRecord[]): Promise<void>;
  protected abstract _get(id: string): Promise<StoredRecord | undefined>;
  /** Up to `page.limit` records on the thread with sequence > `page.after`, ascending. */
  protected abstract _listByThread(thread: string, page: NormalisedPage): Promise<StoredRecord[]>;
  /** A thread page as wire JSON, from the driver alone; drivers that keep a record's text override it. */
  protected async _listByThreadSerialized(thread: string, after: number, limit: number): Promise<SerializedRecordPage> {
    const items = await this._listByThread(thread, { after, limit: limit + 1 });
    const more = items.length > limit;
    const kept = more ? items.slice(0, limit) : items;
    return serializePage(kept, more && kept.length > 0 ? kept[kept.length - 1]!.sequence : null);
  }
  protected abstract _listByActor(actor: string, page: NormalisedPage): Promise<StoredRecord[]>;
  protected abstract _changesSince(after: number, limit: number): Promise<StoredRecord[]>;
  /**
   * The pair key (`_slotPairKey`) of every distinct (actor, thread) pair
   * stored, in any order, read once on open so appends to new pairs skip the
   * conflict lookup. A driver that cannot list them cheaply returns null
   * (the default): appends then look up every pair not seen since open.
   */
  protected _slotPairs(): AsyncIterable<string> | null {
    return null;
  }

  /** The key `_slotPairs` lists a record's (actor, thread) pair under. */
  protected _slotPairKey(record: LoomRecord): string {
    return exactPairKey(record);
  }
  /** Highest sequence the driver holds (0 when empty); read once, on open. */
  protected abstract _watermark(): Promise<number>;
  /** Up to `limit` thread summaries with thread id > `after`, ascending by thread id. */
  protected abstract _listThreads(after: string, limit: number): Promise<import('./record-store.js').ThreadSummary[]>;
  /**
   * Runs a parsed query (filter already includes any scope). Must give exactly
   * the results of `matchesFilter` + `compareForSort` + offset/limit;
   * `plan` only when `query.explain`. `capped` is computed by the base class.
   */
  protected abstract _query(query: ParsedQuery): Promise<Omit<QueryResult, 'capped'>>;
  /**
   * Storage housekeeping behind `optimize()`; resolves with a one-line
   * summary for the log. Runs only while the store is open, one call at a
   * time, and `_close()` waits for it. It is NOT serialised with
   * `_applyBatch`, `_lookupSlots` or reads, which may run meanwhile: it must
   * leave every stored record readable as before, and a driver whose
   * maintenance must not interleave with a batch (e.g. on a connection that
   * would run it inside the batch's transaction) serialises it with
   * `_applyBatch` itself. The default has nothing to do.
   */
  protected _optimize(): Promise<string> {
    return Promise.resolve(`${this.capabilities.backend}: nothing to optimise`);
  }
}
