/**
 * GET /v1/sync/changes: the log after a cursor as one caller, reading for one
 * target namespace, may receive it. Each record passes three filters: the
 * thread (when asked), the caller's read visibility (core's one policy), and
 * consent (same namespace: unchanged; else the projection at the level the
 * grants allow; no grant: withheld). Records of the federation control
 * threads never leave the instance. The cursor always moves to the last
 * record examined, so a narrow grant over a large log answers empty pages
 * that still advance instead of stalling or restarting (CouchDB's filtered
 * replication trap).
 */
import type { Caller } from '../../core/access/caller.js';
import type { RecordReader } from '../../core/engine/record-reader.js';
import { namespaceOf, type StoredRecord } from '../../storage/contract/stored-record.js';
import { CHANGES_MAX_LIMIT } from '../../storage/contract/record-store.js';
import type { ConsentIndex } from './consent/consent-index.js';
import type { LocalRecords } from './local-records.js';
import { projectRecord } from './consent/hash-levels.js';
import { encodeFeedCursor } from './feed-cursor.js';
import { signPage, type PageSigner, type SyncEntry, type SyncPage } from './sync-page.js';

export interface FeedRequest {
  readonly caller: Caller;
  /**
   * The cursor the reader holds, echoed in the signed page so the reader can
   * tell this page continues from it (`''`: the start of the log).
   */
  readonly since: string;
  /** Sequence after which to read: `since` decoded, or further on when pages the reader never saw examined more. */
  readonly after: number;
  readonly limit: number;
  readonly thread?: string;
  /** The namespace the reader will store into (consent's target). */
  readonly targetNamespace: string;
}

export interface ChangesFeedDeps {
  readonly reader: RecordReader;
  readonly consent: ConsentIndex;
  readonly signer: PageSigner;
  /** Records that never leave this instance (consent grants, pair lifecycle, the member registry, plugins' own). */
  readonly localThreads: LocalRecords;
  readonly now: () => number;
}

/** Records examined per request at most, as multiples of the page size: a filtered page answers in bounded time. */
const SCAN_BUDGET_PAGES = 10;

export class ChangesFeed {
  constructor(private readonly deps: ChangesFeedDeps) {}

  /** The entry a record becomes for this request, or null when it is withheld. */
  private entryFor(stored: StoredRecord, request: FeedRequest, now: number): SyncEntry | null {
    const record = stored.record;
    if (this.deps.localThreads.has(record)) return null;
    if (request.thread !== undefined && record.thread !== request.thread) return null;
    const level = this.deps.consent.levelFor(namespaceOf(record), request.targetNamespace, record.thread, now);
    if (level === null) return null;
    const served = level === 'L0' ? record : projectRecord(record, level, this.deps.signer.did);
    return { id: served.id, record: served, hash_level: level, committed_at: new Date(stored.createdAt).toISOString() };
  }

  /** One signed page: up to `limit` entries, scanning at most SCAN_BUDGET_PAGES × limit records. */
  async page(request: FeedRequest): Promise<SyncPage> {
    const limit = Math.min(Math.max(1, request.limit), CHANGES_MAX_LIMIT);
    const now = this.deps.now();
    const entries: SyncEntry[] = [];
    let through = request.after;
    let exhausted = false;
    for (let scanned = 0; entries.length < limit && !exhausted && scanned < SCAN_BUDGET_PAGES * limit; ) {
      // Read no more than the page still needs, so `through` never passes an entry left out for lack of room.
      const want = limit - entries.length;
      const scan = await this.deps.reader.scanChanges(request.caller, through, want);
      scanned += want;
      exhausted = scan.exhausted;
      for (const stored of scan.visible) {
        const entry = this.entryFor(stored, request, now);
        if (entry) entries.push(entry);
      }
      through = scan.through;
    }
    return signPage(this.deps.signer, {
      request: { since: request.since, target_namespace: request.targetNamespace, thread: request.thread ?? null },
      records: entries,
      next_cursor: encodeFeedCursor(through),
      has_more: !exhausted,
    });
  }

  /**
   * Resolves once a record past `after` is published, or at `timeoutMs`, or
   * when `signal` aborts. Whether it is for this caller is the next page's
   * business.
   */
  waitForNews(after: number, timeoutMs: number, signal: AbortSignal): Promise<void> {
    if (this.deps.reader.position > after || signal.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      let unsubscribe = () => {};
      const done = () => {
        clearTimeout(timer);
        unsubscribe();
        signal.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, timeoutMs);
      unsubscribe = this.deps.reader.onPublished((records) => {
        if (records[records.length - 1]!.sequence > after) done();
      });
      signal.addEventListener('abort', done, { once: true });
    });
  }
}
