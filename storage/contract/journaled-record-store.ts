/**
 * The write path of a single-writer driver (SQLite, LevelDB, an embedder's
 * own): this process alone numbers the log, so it can check conflicts and
 * give sequences in memory and keep an ingest journal. The public methods,
 * their checks and group commit are RecordStoreFacade's; this class
 * implements the façade's primitives over narrower ones of its driver.
 *
 * Each group commit is checked for conflicts (the unapplied tail, then the
 * driver's `_lookupSlots`), given sequences, and then either
 *  - with an ingest journal (persistent drivers): written as one fsync'd
 *    journal frame and acknowledged; an applier hands the driver what
 *    accumulated meanwhile in one large `_applyBatch`, so index maintenance
 *    costs one transaction per thousands of records instead of one per
 *    group commit. Reads merge the unapplied tail (get, thread and actor
 *    pages, the changes feed) or wait for the applier to reach the sequence
 *    current when they were called (queries, thread lists, backups). Opening
 *    replays what the journal holds beyond the driver's watermark;
 *  - without one: applied by `_applyBatch` before it is acknowledged.
 *
 * `_applyBatch` is serialised by GroupCommit (no journal) or by the single
 * applier (journal). The façade's `_optimize` is not queued behind it: a
 * driver whose maintenance must not interleave with a batch serialises it
 * itself (SQLite: on the writer connection's queue, like the batch's
 * transaction).
 */
import { LoomError } from '../../core/errors/loom-error.js';
import type { LoomRecord } from '../../core/records/record.js';
import type { PageRequest, SerializedRecordPage, StoreRecovery } from './record-store.js';
import { RecordStoreFacade, serializedPage, type NormalisedPage, type RecordStoreFacadeOptions } from './record-store-facade.js';
import { clockSlotKey, type AppendOutcome, type PreparedRecord, type StoredRecord } from './stored-record.js';
import type { AcceptedRecord } from './journal/accepted-record.js';
import { IngestJournal } from './journal/ingest-journal.js';
import { exactPairKey, SlotKnowledge } from './journal/slot-knowledge.js';
import { mergeBySequence, UnappliedTail } from './journal/unapplied-tail.js';

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

export interface JournaledRecordStoreOptions extends RecordStoreFacadeOptions {
  /** Acknowledge on an fsync'd journal and apply to the driver in large batches; null applies each group commit directly. */
  readonly journal?: IngestJournalSettings | null;
}

/** Delay before the applier retries after the driver failed to apply, doubled up to the maximum. */
const APPLY_RETRY_MS = 100;
const APPLY_RETRY_MAX_MS = 5000;

export abstract class JournaledRecordStore extends RecordStoreFacade {
  private readonly journalSettings: IngestJournalSettings | null;
  private journal: IngestJournal | null = null;
  private readonly tail = new UnappliedTail();
  private slots = new SlotKnowledge();
  private seeding: Promise<void> = Promise.resolve();
  /** Whether the slot filter's seeding has begun (at the first append, not at open: a start does not wait for it). */
  private seeded = false;
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

  constructor(options: JournaledRecordStoreOptions = {}) {
    super({ maxBatch: options.maxBatch });
    this.journalSettings = options.journal ?? null;
  }

  private _recovery: StoreRecovery | null = null;
  get recovery(): StoreRecovery | null {
    return this._recovery;
  }

  protected override async openWrites(): Promise<void> {
    try {
      this.applied = this.head = await this._watermark();
      if (this.journalSettings) await this.recoverJournal(this.journalSettings);
      this.slots = new SlotKnowledge();
      this.seeded = false;
    } catch (error) {
      await this.journal?.close().catch(() => undefined);
      this.journal = null;
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

  /**
   * Seeds the slot filter with every (actor, thread) pair the driver holds,
   * in the background, from the first append on: a log of a million records
   * has some 400,000 pairs, which cost a start a third of a second of CPU
   * when it was done at open. Until it is complete appends ask the driver
   * (slot-knowledge.ts). A failed seeding leaves only the ceilings, which is
   * slower, never wrong.
   */
  private seedSlots(): void {
    if (this.seeded) return;
    this.seeded = true;
    const pairs = this._slotPairs();
    if (pairs) this.seeding = this.slots.seed(pairs, this.head).catch(() => undefined);
  }

  protected override async finishWrites(): Promise<void> {
    this.slots.stopSeeding();
    await this.seeding;
    this.checkGathering();
    await super.finishWrites();
    if (this.journal) await this.drainApplier();
  }

  protected override async releaseWrites(): Promise<void> {
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = null;
    const journal = this.journal;
    this.journal = null;
    try {
      // Everything applied: the segments can go. Otherwise they stay for the next open to replay.
      if (journal) await journal.close(this.tail.size === 0 ? this.applied : undefined);
    } finally {
      this.rejectWaiters(new LoomError('SERVICE_UNAVAILABLE', 'record store closed'));
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

  /** One group commit: leaders have no conflicts among themselves (GroupCommit sees to that). */
  protected async _commitGroup(leaders: PreparedRecord[], slots: readonly string[]): Promise<AppendOutcome[]> {
    if (this.journal) await this.roomInTail();
    // Most records are certainly free (see SlotKnowledge). For the rest: the tail first, then the
    // driver; a record that left the tail meanwhile was committed before it left.
    this.seedSlots();
    const count = leaders.length;
    const pairKeys: string[] = new Array<string>(count);
    const free: boolean[] = new Array<boolean>(count);
    const holders = new Map<string, StoredRecord>();
    const unknown: LoomRecord[] = [];
    for (let i = 0; i < count; i++) {
      const record = leaders[i]!.record;
      const pairKey = (pairKeys[i] = this._slotPairKey(record));
      if ((free[i] = this.slots.certainlyFree(record, pairKey))) continue;
      const holder = this.tail.slotHolder(slots[i]!);
      if (holder) holders.set(slots[i]!, holder);
      else unknown.push(record);
    }
    if (unknown.length > 0) {
      for (const stored of await this._lookupSlots(unknown)) holders.set(clockSlotKey(stored.record), stored);
    }
    // The same id is the same content, so it holds the same slot: one lookup answers both questions.
    const outcomes: AppendOutcome[] = new Array<AppendOutcome>(count);
    const accepted: AcceptedRecord[] = [];
    let sequence = this.head;
    const acceptedFree: boolean[] = [];
    const acceptedKeys: string[] = [];
    for (let i = 0; i < count; i++) {
      const prepared = leaders[i]!;
      const holder = free[i] ? undefined : holders.get(slots[i]!);
      if (holder) {
        outcomes[i] = holder.record.id === prepared.record.id ? { status: 'exists', stored: holder } : { status: 'duplicate_clock', existing: holder };
        continue;
      }
      const stored: StoredRecord = { sequence: ++sequence, createdAt: prepared.createdAt, record: prepared.record };
      accepted.push({ stored, namespace: prepared.namespace, content: prepared.content, slot: slots[i]! });
      acceptedFree.push(free[i]!);
      acceptedKeys.push(pairKeys[i]!);
      outcomes[i] = { status: 'inserted', stored };
    }
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
    for (let i = 0; i < accepted.length; i++) this.slots.noteAccepted(accepted[i]!.stored.record, acceptedKeys[i]!, acceptedFree[i]!);
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
      if (this.status === 'open') {
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
    return this.status === 'open' && this.waiters.length === 0 && this.tail.size < target;
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

  /** Resolves once the driver holds everything acknowledged so far (the journal tail applied): reads the tail cannot answer. */
  protected override caughtUp(): Promise<void> {
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

  protected async _readRecord(id: string): Promise<StoredRecord | undefined> {
    return this.tail.get(id) ?? this._get(id);
  }

  // Each read selects from the tail before it asks the driver: a record the applier moves meanwhile is then found in one or the other.
  protected async _readThread(thread: string, page: NormalisedPage): Promise<StoredRecord[]> {
    const unapplied = this.tail.select(page.after, page.limit, (stored) => stored.record.thread === thread);
    return mergeBySequence(await this._listByThread(thread, page), unapplied, page.limit);
  }

  /**
   * `listByThread` as wire JSON, built from the text a driver keeps
   * (`_listByThreadSerialized`). Optional in the contract, so not the
   * façade's: a driver without it leaves serialising to the record reader.
   */
  async listByThreadSerialized(thread: string, page: PageRequest = {}): Promise<SerializedRecordPage> {
    const normalised = this.checkPage(page);
    const limit = normalised.limit - 1;
    // Records of this thread still in the unapplied tail: merged from objects (rare: the applier lags by milliseconds).
    if (this.tail.select(normalised.after, 1, (stored) => stored.record.thread === thread).length > 0) {
      return serializedPage(await this._readThread(thread, normalised), limit);
    }
    return this._listByThreadSerialized(thread, normalised.after, limit);
  }

  protected async _readActor(actor: string, page: NormalisedPage): Promise<StoredRecord[]> {
    const unapplied = this.tail.select(page.after, page.limit, (stored) => stored.record.actor === actor);
    return mergeBySequence(await this._listByActor(actor, page), unapplied, page.limit);
  }

  protected async _readChanges(after: number, limit: number): Promise<StoredRecord[]> {
    const unapplied = this.tail.select(after, limit);
    // The driver's part ends where the tail begins (when the tail holds the whole page, it alone answers).
    if (unapplied.length === limit && unapplied[0]!.sequence === after + 1) return unapplied;
    return mergeBySequence(await this._changesSince(after, limit), unapplied, limit);
  }

  protected async _readHead(): Promise<number> {
    return this.head;
  }

  // The driver's primitives: over what it has applied, never the unapplied tail.

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
    return serializedPage(await this._listByThread(thread, { after, limit: limit + 1 }), limit);
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
}
