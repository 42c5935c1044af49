/**
 * Every read a route or plugin makes on someone's behalf goes through here,
 * with that caller: the read policies' one restriction is applied to get by
 * id, thread and actor pages, thread lists, queries, the changes feed,
 * subscriptions and folds alike, so no surface can forget it. Unrestricted
 * callers pay nothing (the store is called as before). A record the caller
 * may not see answers exactly as a missing one: 404 by id, absent from pages,
 * uncounted in totals.
 */
import type { Caller } from '../access/caller.js';
import type { ReadPolicy } from '../access/read-policy.js';
import { hiddenThreadsOnly, restrictionFor, threadsOf, threadVisibility } from '../access/restriction.js';
import { createHash } from 'node:crypto';
import { LoomError } from '../errors/loom-error.js';
import type { AnyFold, FoldAnswer } from '../folds/fold.js';
import { matchesFilter } from '../../storage/contract/query/evaluate-filter.js';
import type { FilterNode, ParsedQuery } from '../../storage/contract/query/filter-ast.js';
import { PAGE_DEFAULT_LIMIT, PAGE_MAX_LIMIT, type PageRequest, type QueryResult, type RecordPage, type RecordStore, type SerializedRecordPage, type ThreadSummary, type ThreadSummaryPage } from '../../storage/contract/record-store.js';
import { serializePage, type StoredRecord } from '../../storage/contract/stored-record.js';
import { token } from '../di/token.js';
import type { RecordBus, SubscribeOptions, Subscription } from './broadcast.js';
import type { FoldDescriptor, FoldEngine } from './fold-engine.js';
import { logPages, recordPages, type RecordPaging } from './record-pages.js';

/** Records a restricted page read examines before it answers with what it has (a short page with has_more). */
const SCAN_BUDGET = 20_000;
/** Threads a restricted thread list examines per request. */
const THREAD_SCAN_BUDGET = 2_000;
/** Private global-fold states kept (one per fold and distinct restriction). */
const PRIVATE_FOLD_CACHE = 64;

/** A global fold recomputed over one restriction's visible records. */
interface PrivateFold {
  state: unknown;
  watermark: number;
  /** Short hash of the restriction, in cache keys. */
  readonly tag: string;
}

/** Where `RecordReader.pages` starts and stops (./record-pages.ts). */
export type ThreadPaging = RecordPaging;

export class RecordReader {
  private policies: readonly ReadPolicy[] = [];
  private readonly privateFolds = new Map<string, PrivateFold>();
  private readonly privateInFlight = new Map<string, Promise<PrivateFold>>();

  constructor(
    private readonly store: RecordStore,
    private readonly folds: FoldEngine,
    private readonly bus: RecordBus,
  ) {}

  /** Sets the read policies (the plugin host does, once, before start). */
  setPolicies(policies: readonly ReadPolicy[]): void {
    const names = new Set<string>();
    for (const policy of policies) {
      if (names.has(policy.name)) throw new Error(`read policy ${policy.name} is contributed twice`);
      names.add(policy.name);
    }
    this.policies = Object.freeze([...policies]);
  }

  policyNames(): string[] {
    return this.policies.map((p) => p.name);
  }

  /** The caller's restriction, or undefined when it may see everything. A policy that throws refuses the read (fail closed). */
  restriction(caller: Caller): FilterNode | undefined {
    try {
      return restrictionFor(this.policies, caller);
    } catch (error) {
      if (error instanceof LoomError) throw error;
      throw new LoomError('INTERNAL', `read policy failed: ${String(error)}`);
    }
  }

  /** The restriction as a predicate, for plugins that rank their own candidates (search). */
  admits(caller: Caller, stored: StoredRecord): boolean {
    const restriction = this.restriction(caller);
    return !restriction || matchesFilter(stored, restriction);
  }

  async get(caller: Caller, id: string): Promise<StoredRecord | undefined> {
    const stored = await this.store.get(id);
    if (!stored) return undefined;
    const restriction = this.restriction(caller);
    return !restriction || matchesFilter(stored, restriction) ? stored : undefined;
  }

  async listByThread(caller: Caller, thread: string, page: PageRequest = {}): Promise<RecordPage> {
    const restriction = this.restriction(caller);
    switch (threadVisibility(restriction, thread)) {
      case 'all':
        return this.store.listByThread(thread, page);
      case 'none':
        return { items: [], nextAfter: null };
      case 'some':
        return this.filteredPage((p) => this.store.listByThread(thread, p), restriction!, page);
    }
  }

  /**
   * A thread's records the caller may see, page by page, oldest first. Each
   * page is as `listByThread` answers it (a restricted page may be short,
   * even empty, with more to come). Stops at the thread's end, or once
   * `upTo` is passed (records after `upTo` are dropped from the last page).
   */
  pages(caller: Caller, thread: string, paging: ThreadPaging = {}): AsyncGenerator<RecordPage> {
    return recordPages((page) => this.listByThread(caller, thread, page), paging);
  }

  /** `pages` one record at a time. */
  async *records(caller: Caller, thread: string, paging: ThreadPaging = {}): AsyncGenerator<StoredRecord> {
    for await (const page of this.pages(caller, thread, paging)) yield* page.items;
  }

  /**
   * `listByThread` with each record as its wire JSON: from the store's
   * stored text when the caller sees the whole thread (the common case),
   * else the filtered page serialised.
   */
  async listByThreadSerialized(caller: Caller, thread: string, page: PageRequest = {}): Promise<SerializedRecordPage> {
    const restriction = this.restriction(caller);
    const visibility = threadVisibility(restriction, thread);
    if (visibility === 'all' && this.store.listByThreadSerialized) return this.store.listByThreadSerialized(thread, page);
    if (visibility === 'none') return { sequences: [], json: '', nextAfter: null };
    const records = await this.listByThread(caller, thread, page);
    return serializePage(records.items, records.nextAfter);
  }

  async listByActor(caller: Caller, actor: string, page: PageRequest = {}): Promise<RecordPage> {
    const restriction = this.restriction(caller);
    if (!restriction) return this.store.listByActor(actor, page);
    return this.filteredPage((p) => this.store.listByActor(actor, p), restriction, page);
  }

  /**
   * Reads on until the page is full, the source ends, or the scan budget is
   * spent; cursors stay sequences, so a short page with has_more is honest.
   */
  private async filteredPage(read: (page: PageRequest) => Promise<RecordPage>, restriction: FilterNode, page: PageRequest): Promise<RecordPage> {
    const limit = Math.min(page.limit ?? PAGE_DEFAULT_LIMIT, PAGE_MAX_LIMIT);
    const items: StoredRecord[] = [];
    let after = page.after ?? 0;
    let scanned = 0;
    for await (const batch of recordPages(read, { after, limit: PAGE_MAX_LIMIT })) {
      for (const stored of batch.items) {
        scanned++;
        after = stored.sequence;
        if (!matchesFilter(stored, restriction)) continue;
        if (items.length === limit) return { items, nextAfter: items[items.length - 1]!.sequence };
        items.push(stored);
      }
      if (batch.nextAfter !== null && scanned >= SCAN_BUDGET) return { items, nextAfter: after };
    }
    return { items, nextAfter: null };
  }

  async listThreads(caller: Caller, page: { after?: string; limit?: number } = {}): Promise<ThreadSummaryPage> {
    const restriction = this.restriction(caller);
    if (!restriction) return this.store.listThreads(page);
    const limit = Math.min(page.limit ?? PAGE_DEFAULT_LIMIT, PAGE_MAX_LIMIT);
    const items: ThreadSummary[] = [];
    let after = page.after;
    let examined = 0;
    for (;;) {
      const batch = await this.store.listThreads({ after, limit: Math.max(limit, 100) });
      for (const summary of batch.items) {
        examined++;
        const visible = await this.visibleSummary(restriction, summary);
        if (visible) {
          if (items.length === limit) return { items, nextAfter: items[items.length - 1]!.thread };
          items.push(visible);
        }
        after = summary.thread;
      }
      if (batch.nextAfter === null) return { items, nextAfter: null };
      if (examined >= THREAD_SCAN_BUDGET) return { items, nextAfter: after ?? null };
      after = batch.nextAfter;
    }
  }

  private async visibleSummary(restriction: FilterNode, summary: ThreadSummary): Promise<ThreadSummary | null> {
    switch (threadVisibility(restriction, summary.thread)) {
      case 'all':
        return summary;
      case 'none':
        return null;
      case 'some': {
        let count = 0;
        let first = 0;
        let last = 0;
        for await (const page of this.storePages(summary.thread)) {
          for (const stored of page.items) {
            if (!matchesFilter(stored, restriction)) continue;
            count++;
            first ||= stored.sequence;
            last = stored.sequence;
          }
        }
        return count === 0 ? null : { thread: summary.thread, recordCount: count, firstSequence: first, lastSequence: last };
      }
    }
  }

  /** `matchedTotal` counts only what the caller may see (spec §4.2: disclosure-aware by construction). */
  query(caller: Caller, query: ParsedQuery): Promise<QueryResult> {
    const restriction = this.restriction(caller);
    return this.store.query(query, restriction ? { scope: restriction } : {});
  }

  async changesSince(caller: Caller, after: number, limit?: number): Promise<StoredRecord[]> {
    const page = await this.store.changesSince(after, limit);
    const restriction = this.restriction(caller);
    return restriction ? page.filter((stored) => matchesFilter(stored, restriction)) : page;
  }

  /**
   * One page of the changes feed as the caller sees it, and how far it read:
   * `through` is the sequence of the last record examined, visible or not, so
   * a filtered feed's cursor moves past what it withheld instead of stalling.
   * `exhausted` is true when the page reached the end of the log.
   */
  async scanChanges(caller: Caller, after: number, limit: number): Promise<{ visible: StoredRecord[]; through: number; exhausted: boolean }> {
    const page = await this.store.changesSince(after, limit);
    const through = page.length > 0 ? page[page.length - 1]!.sequence : after;
    const restriction = this.restriction(caller);
    return { visible: restriction ? page.filter((stored) => matchesFilter(stored, restriction)) : page, through, exhausted: page.length < limit };
  }

  /** A live feed of what the caller may see; the restriction is fixed when the feed opens. */
  subscribe(caller: Caller, options: SubscribeOptions = {}): Subscription {
    const restriction = this.restriction(caller);
    if (!restriction) return this.bus.subscribe(options);
    const inner = options.filter;
    return this.bus.subscribe({ ...options, filter: (stored) => matchesFilter(stored, restriction) && (!inner || inner(stored)) });
  }

  /** What the store can do (structured query, plan kind). */
  get storeCapabilities(): RecordStore['capabilities'] {
    return this.store.capabilities;
  }

  /**
   * Calls `listener` with each batch of records as it is published, before
   * ingest answers (plugin indexes that must be current for the next request,
   * like consent grants; and wake-ups for feeds that read through their own
   * filter). Runs inline: it must be cheap and must not throw. Records are
   * unfiltered: a listener must not hand them to a caller. Returns the
   * unsubscribe function.
   */
  onPublished(listener: (records: readonly StoredRecord[]) => void): () => void {
    return this.bus.addInlineListener(listener);
  }

  /** Sequence of the last record published (where a live feed starts). */
  get position(): number {
    return this.bus.position;
  }

  listFolds(): FoldDescriptor[] {
    return this.folds.list();
  }

  /** Threads folds over coordination work skip besides the reserved ones (thread ids are no secret: constants of the plugins). */
  systemThreads(): string[] {
    return this.folds.systemThreadIds();
  }

  /** The one system-thread rule (core/engine/system-threads.ts): reserved and plugin-declared control threads. */
  isSystemThread(thread: string): boolean {
    return this.folds.isSystemThread(thread);
  }

  hasFold(name: string): boolean {
    return this.folds.has(name);
  }

  /** A thread fold over the records the caller may see (the shared cache when it sees the whole thread). */
  async threadFold<V>(caller: Caller, name: string, thread: string): Promise<FoldAnswer<V>> {
    const restriction = this.restriction(caller);
    if (threadVisibility(restriction, thread) === 'all') return this.folds.thread<V>(name, thread);
    const fold = this.folds.descriptorOf(name, 'thread');
    const { state, watermark } = await this.foldVisible(fold, thread, restriction!);
    return { fold_name: name, cache_key: `${name}/${thread}@${watermark}${fold.cacheSuffix?.() ?? ''}~restricted`, watermark, value: fold.value(state) as V };
  }

  /** A thread fold's raw state over what the caller may see. */
  async threadFoldState<S>(caller: Caller, name: string, thread: string): Promise<{ state: S; watermark: number }> {
    const restriction = this.restriction(caller);
    if (threadVisibility(restriction, thread) === 'all') return this.folds.threadState<S>(name, thread);
    const { state, watermark } = await this.foldVisible(this.folds.descriptorOf(name, 'thread'), thread, restriction!);
    return { state: state as S, watermark };
  }

  /** Folds only the visible records of a thread, uncached (nothing at all when none is visible). */
  private async foldVisible(fold: AnyFold, thread: string, restriction: FilterNode): Promise<{ state: unknown; watermark: number }> {
    let state = fold.initial(thread);
    let watermark = 0;
    if (threadVisibility(restriction, thread) === 'none') return { state, watermark };
    for await (const page of this.storePages(thread)) {
      for (const stored of page.items) {
        if (!matchesFilter(stored, restriction)) continue;
        state = fold.apply(state, stored);
        watermark = stored.sequence;
      }
    }
    return { state, watermark };
  }

  /** A thread's records as stored, unrestricted: for the reads above that filter with a restriction themselves. */
  private storePages(thread: string, paging: RecordPaging = {}): AsyncGenerator<RecordPage> {
    return recordPages((page) => this.store.listByThread(thread, page), paging);
  }

  /**
   * A global fold's state as `caller` may know it: the shared live state when
   * the caller sees every record the fold reads, otherwise a private
   * recomputation over just the records it may see (cached per restriction
   * and brought up to date incrementally), so an answer built from it never
   * mentions a record, thread or namespace the caller cannot read.
   */
  async globalFoldState<S>(caller: Caller, name: string): Promise<{ state: S; watermark: number; restricted: boolean }> {
    const fold = this.folds.descriptorOf(name, 'global');
    if (this.folds.isLoading(name)) await this.folds.ready(name);
    const restriction = this.restriction(caller);
    if (this.seesWholeFold(fold, restriction)) return { ...this.folds.globalSnapshot<S>(name), restricted: false };
    const entry = await this.privateFold(fold, restriction!);
    return { state: entry.state as S, watermark: entry.watermark, restricted: true };
  }

  /**
   * A global fold's answer: whole when the caller sees all it reads; through
   * the fold's `view` when it has one (a per-caller projection such as the
   * grant graph); otherwise the fold over the caller's visible records.
   */
  async globalFold<V>(caller: Caller, name: string): Promise<FoldAnswer<V>> {
    const fold: AnyFold = this.folds.descriptorOf(name, 'global');
    if (this.folds.isLoading(name)) await this.folds.ready(name);
    const restriction = this.restriction(caller);
    if (!restriction) return this.folds.global<V>(name);
    if (fold.view) {
      const answer = this.folds.global<V>(name);
      return { ...answer, cache_key: `${answer.cache_key}~view`, value: fold.view(answer.value, caller) as V };
    }
    if (this.seesWholeFold(fold, restriction)) return this.folds.global<V>(name);
    const entry = await this.privateFold(fold, restriction);
    return { fold_name: name, cache_key: `${name}@${entry.watermark}${fold.cacheSuffix?.() ?? ''}~${entry.tag}`, watermark: entry.watermark, value: fold.value(entry.state) as V };
  }

  /** True when the restriction hides nothing the fold reads. */
  private seesWholeFold(fold: AnyFold, restriction: FilterNode | undefined): boolean {
    if (!restriction) return true;
    if (fold.threads) return fold.threads.every((thread) => threadVisibility(restriction, thread) === 'all');
    const hidden = hiddenThreadsOnly(restriction);
    return hidden !== null && [...hidden].every((thread) => !this.folds.reads(fold, thread));
  }

  private privateFold(fold: AnyFold, restriction: FilterNode): Promise<PrivateFold> {
    const text = JSON.stringify(restriction);
    const key = `${fold.name}\u0000${text}`;
    const running = this.privateInFlight.get(key);
    if (running) return running;
    const refresh = this.refreshPrivate(fold, restriction, key, text).finally(() => this.privateInFlight.delete(key));
    this.privateInFlight.set(key, refresh);
    return refresh;
  }

  private async refreshPrivate(fold: AnyFold, restriction: FilterNode, key: string, text: string): Promise<PrivateFold> {
    let entry = this.privateFolds.get(key);
    if (entry) this.privateFolds.delete(key); // re-inserted below: Map order is the LRU order
    else entry = { state: fold.initial(fold.name), watermark: 0, tag: createHash('sha256').update(text).digest('hex').slice(0, 12) };
    const upTo = this.folds.globalSnapshot(fold.name).watermark;
    if (upTo > entry.watermark) {
      const threads = fold.threads ? new Set(fold.threads) : threadsOf(restriction);
      const visible = (stored: StoredRecord) => stored.sequence <= upTo && matchesFilter(stored, restriction);
      if (threads !== null) {
        // A thread-grained reader: its threads only, merged into log order.
        const records: StoredRecord[] = [];
        for (const thread of threads) {
          if (!this.folds.reads(fold, thread)) continue;
          for await (const page of this.storePages(thread, { after: entry.watermark, upTo })) for (const stored of page.items) if (visible(stored)) records.push(stored);
        }
        records.sort((a, b) => a.sequence - b.sequence);
        entry.state = this.folds.foldPrivately(fold, entry.state, records);
      } else {
        // Any other restriction (a namespace grain): the log since the last refresh, filtered.
        for await (const page of logPages((after, limit) => this.store.changesSince(after, limit), { after: entry.watermark, limit: 5000, upTo })) {
          entry.state = this.folds.foldPrivately(fold, entry.state, page.filter(visible));
        }
      }
      entry.watermark = upTo;
    }
    this.privateFolds.set(key, entry);
    while (this.privateFolds.size > PRIVATE_FOLD_CACHE) this.privateFolds.delete(this.privateFolds.keys().next().value!);
    return entry;
  }
}

export const RecordReaderToken = token<RecordReader>('core.RecordReader');
