/**
 * The LevelDB driver (classic-level through `level`). One sublevel per
 * concept (keys.ts): the records by sequence, and the id, (thread, seq),
 * (actor, seq) and (actor, thread, clock) indexes plus per-thread summaries,
 * all written in one atomic batch per applied batch. Queries read one index or
 * the whole primary and evaluate the reference filter (query-plan.ts).
 */
import { mkdir } from 'node:fs/promises';
import { Level } from 'level';
import { JournaledRecordStore } from '../contract/journaled-record-store.js';
import type { NormalisedPage } from '../contract/record-store-facade.js';
import { compareForSort, matchesFilter } from '../contract/query/evaluate-filter.js';
import type { ParsedQuery } from '../contract/query/filter-ast.js';
import type { QueryResult, SerializedRecordPage, StoreBackup, StoreCapabilities, ThreadSummary } from '../contract/record-store.js';
import type { AcceptedRecord } from '../contract/journal/accepted-record.js';
import type { StoredRecord } from '../contract/stored-record.js';
import type { LoomRecord } from '../../core/records/record.js';
import { encodeCursor, pairPrefix, pairPrefixOfSlotKey, partRange, partSequenceKey, sequenceKey, sequenceOfKey, sequenceOfPartKey, slotKey, SUBLEVELS } from './keys.js';
import { chooseScan, describePlan, type ScanChoice } from './query-plan.js';
import { decodeRecordRow, decodeThreadMeta, encodeRecordRow, encodeThreadMeta, recordJsonOfRow, type ThreadMeta } from './record-codec.js';
import { dataDirectoryInUse } from '../contract/data-directory-in-use.js';

export interface LevelRecordStoreOptions {
  /** Directory holding the LevelDB files; created when missing. */
  readonly path: string;
  /**
   * `full` fsyncs every batch before its appends resolve (`{ sync: true }`);
   * `normal` leaves flushing to the OS, so a machine crash may lose the last
   * acknowledged batches (a process crash does not). @default 'full'
   */
  readonly durability?: 'full' | 'normal';
  /** Upper bound on records per group commit. @default 2000 */
  readonly maxBatch?: number;
  /**
   * Acknowledge appends once they are in the ingest journal (`<path>.journal/`,
   * a sibling directory, fsync'd per group commit with durability `full`) and
   * apply them to LevelDB in large batches. `false` writes each group commit
   * to LevelDB before acknowledging it. @default true
   */
  readonly ingestJournal?: boolean;
}

/** Records read per step when scanning, so a query never holds an iterator's whole range at once. */
const SCAN_CHUNK = 500;

type Db = Level<string, string>;

function openSublevels(db: Db) {
  return {
    records: db.sublevel(SUBLEVELS.records),
    ids: db.sublevel(SUBLEVELS.ids),
    threads: db.sublevel(SUBLEVELS.threads),
    actors: db.sublevel(SUBLEVELS.actors),
    slots: db.sublevel(SUBLEVELS.slots),
    meta: db.sublevel(SUBLEVELS.meta),
  };
}

type Sublevels = ReturnType<typeof openSublevels>;
/** Records whose puts are added to a batch between two yields to the event loop. */
const PUT_SLICE_RECORDS = 250;

/** classic-level's own methods, which `level`'s typings (shared with browser-level) do not declare. */
interface ClassicLevelMethods {
  compactRange(start: Buffer, end: Buffer, options: { keyEncoding: 'buffer' }): Promise<void>;
  getProperty(property: string): string;
}

/** Bounds enclosing every key: keys are UTF-8 (keyEncoding 'utf8', sublevel prefixes included), which never holds the byte 0xff. */
const ALL_KEYS_START = Buffer.alloc(0);
const ALL_KEYS_END = Buffer.from([0xff]);
/** LevelDB's level count (config::kNumLevels). */
const LEVELDB_LEVELS = 7;

function checkOptions(options: LevelRecordStoreOptions): 'full' | 'normal' {
  if (typeof options.path !== 'string' || options.path.length === 0) throw new TypeError('path must be a non-empty directory path');
  if (options.durability !== undefined && options.durability !== 'full' && options.durability !== 'normal') {
    throw new TypeError(`durability must be 'full' or 'normal', got ${String(options.durability)}`);
  }
  return options.durability ?? 'full';
}

export class LevelRecordStore extends JournaledRecordStore {
  readonly capabilities: StoreCapabilities = { backend: 'level', structuredQuery: true, queryPlan: 'scan', persistent: true, onlineBackup: true };
  private readonly path: string;
  private readonly sync: boolean;
  private db: Db | null = null;
  private sublevels: Sublevels | null = null;
  /** Highest sequence written; only one batch is applied at a time, and it moves once the batch is written. */
  private lastSequence = 0;

  constructor(options: LevelRecordStoreOptions) {
    const sync = checkOptions(options) === 'full';
    super({ maxBatch: options.maxBatch, journal: options.ingestJournal === false ? null : { directory: `${options.path}.journal`, sync } });
    this.path = options.path;
    this.sync = (options.durability ?? 'full') === 'full';
  }

  protected async _open(): Promise<void> {
    await mkdir(this.path, { recursive: true });
    // A 64 MiB block cache (LevelDB's default is 8 MiB) keeps index blocks hot as the store grows: the
    // read-scaling benchmark measured get-by-id at 1M records within 1.5x of 10k only with it.
    const db: Db = new Level<string, string>(this.path, { keyEncoding: 'utf8', valueEncoding: 'utf8', cacheSize: 64 * 1024 * 1024 });
    try {
      await db.open();
    } catch (error) {
      // LevelDB locks its directory with an OS lock (released when its process ends): one store per
      // directory, as the write path and the ingest journal assume. Say so in the operator's terms.
      if ((error as { cause?: { code?: unknown } }).cause?.code === 'LEVEL_LOCKED') {
        throw dataDirectoryInUse(this.path, "LevelDB's lock");
      }
      throw error;
    }
    try {
      const sublevels = openSublevels(db);
      // The last primary key is the last sequence: nothing else to keep in step.
      const [last] = await sublevels.records.keys({ reverse: true, limit: 1 }).all();
      this.lastSequence = last === undefined ? 0 : sequenceOfKey(last);
      this.db = db;
      this.sublevels = sublevels;
    } catch (error) {
      await db.close();
      throw error;
    }
  }

  protected async _close(): Promise<void> {
    const db = this.db;
    this.db = null;
    this.sublevels = null;
    if (db) await db.close();
  }

  private get opened(): { db: Db; sub: Sublevels } {
    if (!this.db || !this.sublevels) throw new Error('LevelRecordStore is not open');
    return { db: this.db, sub: this.sublevels };
  }

  protected async _lookupSlots(records: readonly LoomRecord[]): Promise<StoredRecord[]> {
    const hits = await this.opened.sub.slots.getMany(records.map((record) => slotKey(record)));
    const sequences = [...new Set(hits.filter((hit): hit is string => hit !== undefined).map(Number))];
    return this.readBySequence(sequences);
  }

  protected async _applyBatch(records: readonly AcceptedRecord[]): Promise<void> {
    if (records.length === 0) return;
    const { db, sub } = this.opened;
    const touched = new Map<string, ThreadMeta>();
    for (const { stored } of records) {
      const { record, sequence } = stored;
      const meta = touched.get(record.thread);
      if (meta) touched.set(record.thread, { ...meta, recordCount: meta.recordCount + 1, lastSequence: sequence });
      else touched.set(record.thread, { recordCount: 1, firstSequence: sequence, lastSequence: sequence });
    }
    const threads = [...touched.keys()];
    const priors = await sub.meta.getMany(threads);

    // One atomic batch: rows, index entries and summaries land together or not at all. It is
    // filled a slice at a time, yielding in between: preparing thousands of puts at once would
    // hold the event loop (and the acknowledgements waiting on it) for a hundred milliseconds.
    // Keys carry their sublevel's prefix and go to the root batch without options: the same
    // bytes as a put through `{sublevel}`, without abstract-level's per-put delegation (option
    // spreading, prefixing through the sublevel chain), which cost about 3x the CPU in `perf`.
    const prefix = {
      records: sub.records.prefix,
      ids: sub.ids.prefix,
      threads: sub.threads.prefix,
      actors: sub.actors.prefix,
      slots: sub.slots.prefix,
      meta: sub.meta.prefix,
    };
    const batch = db.batch();
    try {
      for (let i = 0; i < records.length; i++) {
        if (i > 0 && i % PUT_SLICE_RECORDS === 0) await new Promise((resolve) => setImmediate(resolve));
        const { stored, namespace } = records[i]!;
        const { record, sequence } = stored;
        const seq = String(sequence);
        batch.put(prefix.records + sequenceKey(sequence), encodeRecordRow({ record, namespace, createdAt: stored.createdAt }));
        batch.put(prefix.ids + record.id, seq);
        batch.put(prefix.threads + partSequenceKey(record.thread, sequence), '');
        batch.put(prefix.actors + partSequenceKey(record.actor, sequence), '');
        batch.put(prefix.slots + slotKey(record), seq);
      }
      threads.forEach((thread, i) => {
        const added = touched.get(thread)!;
        const prior = priors[i] === undefined ? undefined : decodeThreadMeta(thread, priors[i]!);
        const merged: ThreadMeta = prior
          ? { recordCount: prior.recordCount + added.recordCount, firstSequence: prior.firstSequence, lastSequence: added.lastSequence }
          : added;
        batch.put(prefix.meta + thread, encodeThreadMeta(merged));
      });
    } catch (error) {
      await batch.close();
      throw error;
    }
    await batch.write({ sync: this.sync });
    this.lastSequence = records[records.length - 1]!.stored.sequence;
  }

  /**
   * Compacts the whole key range: drops overwritten and deleted entries and
   * merges level 0's overlapping files, which every read otherwise checks.
   * LevelDB runs it safely alongside writes (batches keep landing meanwhile,
   * atomically) and reads (iterators hold their own version of the files),
   * so it needs no serialising with `_applyBatch`. classic-level makes close
   * wait for it, as the base class does too.
   */
  protected override async _optimize(): Promise<string> {
    const { db } = this.opened;
    if (!db.supports.additionalMethods['compactRange']) return 'level: compaction not available in this build of level';
    const classic = db as unknown as ClassicLevelMethods;
    const filesPerLevel = (): string => {
      try {
        return Array.from({ length: LEVELDB_LEVELS }, (_, level) => classic.getProperty(`leveldb.num-files-at-level${level}`) || '?').join('/');
      } catch {
        return '?';
      }
    };
    const before = filesPerLevel();
    const started = performance.now();
    await classic.compactRange(ALL_KEYS_START, ALL_KEYS_END, { keyEncoding: 'buffer' });
    const ms = Math.round(performance.now() - started);
    return `level: compacted the whole key range in ${ms} ms; table files per level ${before} -> ${filesPerLevel()}`;
  }

  /** Primary rows for the given sequences, in the given order. */
  private async readBySequence(sequences: readonly number[]): Promise<StoredRecord[]> {
    if (sequences.length === 0) return [];
    const rows = await this.opened.sub.records.getMany(sequences.map(sequenceKey));
    return rows.map((row, i) => {
      // Index entries and rows are written in one batch, so a dangling entry is corruption.
      if (row === undefined) throw new Error(`LevelRecordStore: index refers to missing record ${sequences[i]}`);
      return decodeRecordRow(sequences[i]!, row);
    });
  }

  protected async _get(id: string): Promise<StoredRecord | undefined> {
    const sequence = await this.opened.sub.ids.get(id);
    if (sequence === undefined) return undefined;
    const [stored] = await this.readBySequence([Number(sequence)]);
    return stored;
  }

  protected _listByThread(thread: string, page: NormalisedPage): Promise<StoredRecord[]> {
    return this.listByPart(this.opened.sub.threads, thread, page);
  }

  /** A thread page from the stored rows' text (record-codec.ts recordJsonOfRow): no parse, freeze or re-serialise. */
  protected override async _listByThreadSerialized(thread: string, after: number, limit: number): Promise<SerializedRecordPage> {
    if (limit === 0) return { sequences: [], json: '', nextAfter: null };
    const keys = await this.opened.sub.threads.keys({ ...partRange(thread, after), limit: limit + 1 }).all();
    const more = keys.length > limit;
    const sequences = keys.slice(0, limit).map(sequenceOfPartKey);
    const rows = sequences.length === 0 ? [] : await this.opened.sub.records.getMany(sequences.map(sequenceKey));
    const texts = rows.map((row, i) => {
      if (row === undefined) throw new Error(`LevelRecordStore: index refers to missing record ${sequences[i]}`);
      return recordJsonOfRow(sequences[i]!, row);
    });
    return { sequences, json: texts.join(','), nextAfter: more && sequences.length > 0 ? sequences[sequences.length - 1]! : null };
  }

  protected _listByActor(actor: string, page: NormalisedPage): Promise<StoredRecord[]> {
    return this.listByPart(this.opened.sub.actors, actor, page);
  }

  private async listByPart(index: Sublevels['threads'], part: string, page: NormalisedPage): Promise<StoredRecord[]> {
    if (page.limit === 0) return [];
    const keys = await index.keys({ ...partRange(part, page.after), limit: page.limit }).all();
    return this.readBySequence(keys.map(sequenceOfPartKey));
  }

  protected async _changesSince(after: number, limit: number): Promise<StoredRecord[]> {
    if (limit === 0) return [];
    const entries = await this.opened.sub.records.iterator({ gt: encodeCursor(after), limit }).all();
    return entries.map(([key, row]) => decodeRecordRow(sequenceOfKey(key), row));
  }

  protected override async *_slotPairs(): AsyncIterable<string> {
    const keys = this.opened.sub.slots.keys();
    let previous = '';
    try {
      for (let step = await keys.nextv(SCAN_CHUNK * 10); step.length > 0; step = await keys.nextv(SCAN_CHUNK * 10)) {
        for (const key of step) {
          const pair = pairPrefixOfSlotKey(key);
          if (pair === previous) continue;
          previous = pair;
          yield pair;
        }
      }
    } finally {
      await keys.close();
    }
  }

  protected override _slotPairKey(record: LoomRecord): string {
    return pairPrefix(record);
  }

  /**
   * One iterator over every key: LevelDB gives it an implicit snapshot, so
   * the copy is the store as of one moment (batches are atomic), while the
   * applier keeps writing. Copied in batches into a new LevelDB.
   */
  protected override async _backup(destination: string): Promise<StoreBackup> {
    // The copy is a LevelDB directory of its own: `destination` itself.
    const copy = new Level<Buffer, Buffer>(destination, { keyEncoding: 'buffer', valueEncoding: 'buffer' });
    await copy.open();
    const recordPrefix = Buffer.from(`!${SUBLEVELS.records}!`);
    let records = 0;
    let last: Buffer | null = null;
    try {
      const iterator = this.opened.db.iterator<Buffer, Buffer>({ keyEncoding: 'buffer', valueEncoding: 'buffer' });
      try {
        let batch = copy.batch();
        for await (const [key, value] of iterator) {
          batch.put(key, value);
          if (key.subarray(0, recordPrefix.length).equals(recordPrefix)) {
            records += 1;
            last = key.subarray(recordPrefix.length);
          }
          if (batch.length >= 1000) {
            await batch.write();
            batch = copy.batch();
          }
        }
        await batch.write();
      } finally {
        await iterator.close();
      }
    } finally {
      await copy.close();
    }
    return { watermark: last === null ? 0 : sequenceOfKey(last.toString('utf8')), records, path: '.' };
  }

  protected async _watermark(): Promise<number> {
    return this.lastSequence;
  }

  protected async _listThreads(after: string, limit: number): Promise<ThreadSummary[]> {
    if (limit === 0) return [];
    const range = after === '' ? { limit } : { gt: after, limit };
    const entries = await this.opened.sub.meta.iterator(range).all();
    return entries.map(([thread, json]) => decodeThreadMeta(thread, json));
  }

  protected async _query(query: ParsedQuery): Promise<Omit<QueryResult, 'capped'>> {
    const choice = chooseScan(query.filter);
    const end = query.offset + query.limit;
    const kept: StoredRecord[] = [];
    let matchedTotal = 0;
    for await (const chunk of this.scan(choice)) {
      for (const stored of chunk) {
        if (!matchesFilter(stored, query.filter)) continue;
        // Unsorted results are already in sequence order: keep only the page.
        if (query.sort || (matchedTotal >= query.offset && matchedTotal < end)) kept.push(stored);
        matchedTotal++;
      }
    }
    const items = query.sort ? kept.sort(compareForSort(query.sort)).slice(query.offset, end) : kept;
    return { items, matchedTotal, ...(query.explain ? { plan: describePlan(choice, query) } : {}) };
  }

  /** Candidate records in ascending sequence order, a chunk at a time. */
  private async *scan(choice: ScanChoice): AsyncGenerator<StoredRecord[]> {
    const { sub } = this.opened;
    if (choice.kind === 'index' && choice.column === 'id') {
      const stored = await this._get(choice.value);
      if (stored) yield [stored];
      return;
    }
    if (choice.kind === 'index') {
      const index = choice.column === 'thread' ? sub.threads : sub.actors;
      const keys = index.keys(partRange(choice.value));
      try {
        for (let step = await keys.nextv(SCAN_CHUNK); step.length > 0; step = await keys.nextv(SCAN_CHUNK)) {
          yield await this.readBySequence(step.map(sequenceOfPartKey));
        }
      } finally {
        await keys.close();
      }
      return;
    }
    const rows = sub.records.iterator();
    try {
      for (let step = await rows.nextv(SCAN_CHUNK); step.length > 0; step = await rows.nextv(SCAN_CHUNK)) {
        yield step.map(([key, row]) => decodeRecordRow(sequenceOfKey(key), row));
      }
    } finally {
      await rows.close();
    }
  }
}
