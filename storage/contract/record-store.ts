/**
 * The storage contract every driver implements (SQLite, LevelDB, or an
 * embedder's own). Drivers extend RecordStoreFacade, which checks arguments
 * and status once and gathers concurrent appends into group commits; a
 * single-writer driver extends JournaledRecordStore, which adds the
 * in-process numbering and the ingest journal. They implement only protected
 * primitives. `runStoreCompliance` in storage/compliance proves a driver
 * honours all of it.
 */
import type { BlobStore } from './blob-store.js';
import { token } from '../../core/di/token.js';
import type { TornTail } from './journal/ingest-journal.js';
import type { FilterNode, ParsedQuery } from './query/filter-ast.js';
import type { AppendOutcome, PreparedRecord, StoredRecord } from './stored-record.js';
import type { SharedVectors } from './shared-vectors.js';

export type StoreStatus = 'new' | 'opening' | 'open' | 'closing' | 'closed';

/** What a driver can do; feeds `store_backends` and the capabilities route. */
export interface StoreCapabilities {
  /** Short backend name, e.g. `sqlite`, `level`. */
  readonly backend: string;
  /** Structured query (§4.2) is supported. */
  readonly structuredQuery: boolean;
  /** What `explain` returns: real SQL, or a description of an index/scan plan. */
  readonly queryPlan: 'sql' | 'scan';
  /** Records survive close/reopen (false for an in-memory driver). */
  readonly persistent: boolean;
  /**
   * Several servers write this one log (a database server): records can
   * appear that this process did not append, so the engine publishes from
   * the store's changes feed instead of from its own appends, and singleton
   * work runs under a lease (`lease`). Absent means false.
   */
  readonly sharedLog?: boolean;
  /** `backup()` is implemented: a consistent copy of the log while it is open and written. Absent means false. */
  readonly onlineBackup?: boolean;
}

/** What `backup()` wrote. */
export interface StoreBackup {
  /** Every record up to this sequence is in the copy (all acknowledged before `backup()` was called, and possibly more). */
  readonly watermark: number;
  /** Records in the copy. */
  readonly records: number;
  /** Path, relative to the destination directory, of the copy: a file (SQLite's database) or `.` (LevelDB's directory is the destination). */
  readonly path: string;
}

/** A named lease held by at most one process sharing the log (see RecordStore.lease). */
export interface StoreLease {
  readonly held: boolean;
  /** Gives the lease up (if held) and stops trying to take it. */
  release(): Promise<void>;
}

export interface PageRequest {
  /** Return records with a sequence strictly greater than this cursor. @default 0 */
  readonly after?: number;
  /** @default 100, clamped to 1000 */
  readonly limit?: number;
}

/**
 * A page of records as wire JSON: `json` is the records' JSON texts joined
 * by commas (the inside of a JSON array), `sequences` their sequences in the
 * same order. A page is one string however many records it holds.
 */
export interface SerializedRecordPage {
  readonly sequences: number[];
  readonly json: string;
  readonly nextAfter: number | null;
}

export interface RecordPage {
  readonly items: StoredRecord[];
  /** Cursor for the next page, or null at the end. */
  readonly nextAfter: number | null;
}

export interface ThreadSummary {
  readonly thread: string;
  readonly recordCount: number;
  readonly firstSequence: number;
  readonly lastSequence: number;
}

export interface ThreadSummaryPage {
  readonly items: ThreadSummary[];
  /** Cursor (a thread id) for the next page, or null at the end. */
  readonly nextAfter: string | null;
}

export interface QueryPlan {
  /** SQL actually run, or for non-SQL drivers a description of the index or scan used. */
  readonly sql: string;
  readonly bind_count: number;
  readonly indexed_fields: string[];
  readonly unindexed_fields: string[];
  /** The database's own plan of that statement (PostgreSQL: EXPLAIN), one line per entry, where the driver has one. */
  readonly database_plan?: readonly string[];
}

export interface QueryOptions {
  /** A tenant/visibility restriction AND-combined with the client's filter. */
  readonly scope?: FilterNode;
}

export interface QueryResult {
  readonly items: StoredRecord[];
  /** Total matches ignoring limit and offset. */
  readonly matchedTotal: number;
  /** More matching rows exist beyond this page. */
  readonly capped: boolean;
  readonly plan?: QueryPlan;
}

/**
 * What the last `open()` found and did to make the store whole after a stop:
 * the journal records it applied (acknowledged before a crash or a fast stop,
 * not yet in the driver) and any torn frame it cut off. Operators read it in
 * the start-up log to know a crash happened and that nothing was lost.
 */
export interface StoreRecovery {
  /** Records the ingest journal held beyond the driver's watermark, applied at open. */
  readonly replayedRecords: number;
  /** First and last sequence replayed (null when nothing was). */
  readonly replayedFrom: number | null;
  readonly replayedTo: number | null;
  /** Journal segments found at open. */
  readonly journalSegments: number;
  /** A torn last frame cut off the newest segment: the crash interrupted its write, so it was never acknowledged. */
  readonly tornTail: TornTail | null;
  /** The driver's watermark before the replay. */
  readonly driverWatermark: number;
  readonly durationMs: number;
}

export interface RecordStore {
  readonly capabilities: StoreCapabilities;
  readonly status: StoreStatus;
  /** Set by `open()` on stores with an ingest journal; null before, or without one. */
  readonly recovery?: StoreRecovery | null;
  open(): Promise<void>;
  /** Flushes pending appends, then closes. Idempotent. */
  close(): Promise<void>;
  /**
   * Appends one record; concurrent calls are gathered into one durable batch.
   * Resolves only once the record (or the conflict) is durable/known.
   */
  append(prepared: PreparedRecord): Promise<AppendOutcome>;
  /** Appends several records, resolved exactly as if they arrived one by one. */
  appendMany(prepared: readonly PreparedRecord[]): Promise<AppendOutcome[]>;
  get(id: string): Promise<StoredRecord | undefined>;
  listByThread(thread: string, page?: PageRequest): Promise<RecordPage>;
  listByActor(actor: string, page?: PageRequest): Promise<RecordPage>;
  /**
   * `listByThread` as wire JSON (SerializedRecordPage): drivers
   * that keep a record's text build it from what they stored. Optional; a
   * reader without it serialises `listByThread`'s records.
   */
  listByThreadSerialized?(thread: string, page?: PageRequest): Promise<SerializedRecordPage>;
  /** Records with sequence > `after`, ascending: the changes feed. */
  changesSince(after: number, limit?: number): Promise<StoredRecord[]>;
  /** Highest sequence stored (0 when empty). */
  watermark(): Promise<number>;
  /**
   * How many threads the log holds (for metrics). Optional:
   * drivers that can count cheaply (an index or a table) implement it.
   */
  countThreads?(): Promise<number>;
  /** Threads in id order, after a thread-id cursor. */
  listThreads(page?: { after?: string; limit?: number }): Promise<ThreadSummaryPage>;
  query(query: ParsedQuery, options?: QueryOptions): Promise<QueryResult>;
  /**
   * Housekeeping that keeps reads fast and the files compact (SQLite: PRAGMA
   * optimize and a WAL checkpoint; LevelDB: compaction). Safe while appends
   * run; resolves with a one-line summary for the log. Called hourly by the
   * engine's CRON.
   */
  optimize(): Promise<string>;
  /**
   * Drivers with `capabilities.onlineBackup`: writes a consistent copy of the
   * log into the empty directory `destination`, without stopping appends.
   * Every record acknowledged before the call is in it; the copy opens as a
   * store of the same driver (`StoreBackup.path` inside `destination`).
   */
  backup?(destination: string): Promise<StoreBackup>;
  /**
   * Shared logs only: `listener` is called with a sequence whenever records
   * up to it may have been committed, by any server. A hint, which may be
   * coalesced or lost (a dropped connection): followers also poll.
   */
  watchCommits?(listener: (sequence: number) => void): () => void;
  /**
   * Shared logs only: keeps trying to take the lease `name`, which at most
   * one process holds at a time; `onChange` tells when this process gains or
   * loses it. A holder that dies loses it within a bounded time.
   */
  lease?(name: string, onChange: (held: boolean) => void): StoreLease;
  /**
   * Shared logs only: where singleton loops keep how far they have handled
   * the log, so the next leader resumes there. `writeCheckpoint` never moves
   * a checkpoint back (everything up to the highest value written was handled
   * by some leader).
   */
  readCheckpoint?(name: string): Promise<number | null>;
  /**
   * Shared logs only: runs `work` while holding the lock `key`, which at most
   * one process holds at a time (released when `work` settles, or when the
   * holder dies).
   */
  withLock?<T>(key: string, work: () => Promise<T>): Promise<T>;
  writeCheckpoint?(name: string, sequence: number): Promise<void>;
  /**
   * Shared logs only: a small named value that belongs to the log rather
   * than to one server (a federation pair's feed cursor, its sealed peer
   * token), so whichever server leads next finds it. Not a record: never
   * listed, exported, federated or folded. null when unset.
   */
  readSlot?(name: string): Promise<string | null>;
  /**
   * Shared logs only: sets the value `name` (null removes it); the last write
   * wins. With `expiresAt` (Unix ms) the slot reads as unset from that moment
   * (a single-use challenge); the store removes expired slots on its own.
   */
  writeSlot?(name: string, value: string | null, expiresAt?: number): Promise<void>;
  /**
   * Shared logs only: reads `name` and removes it in one step, so of several
   * servers taking the same slot at once exactly one gets the value (a
   * challenge spent once). null when unset or expired.
   */
  takeSlot?(name: string): Promise<string | null>;
  /**
   * Drivers that keep blobs with the records (PostgreSQL): the blob store
   * living beside this log, usable while the record store is open. Absent:
   * the data plane keeps blobs in its own directory.
   */
  blobStore?(): BlobStore;
  /**
   * Shared logs only: vectors derived from records (search embeddings),
   * written by the leader and read by every server (shared-vectors.ts).
   * Absent: each server keeps its own.
   */
  readonly sharedVectors?: SharedVectors;
}

export const RecordStore = token<RecordStore>('storage.RecordStore');

export const PAGE_DEFAULT_LIMIT = 100;
export const PAGE_MAX_LIMIT = 1000;
export const CHANGES_DEFAULT_LIMIT = 1000;
export const CHANGES_MAX_LIMIT = 10000;
