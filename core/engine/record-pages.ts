/**
 * The one paging loop over records, for every reader that walks a range of
 * them: `recordPages` follows an index with a cursor (a thread's or an
 * actor's, read from the store or through the record reader with a caller),
 * `logPages` the changes feed. Both start after `after`, stop at the source's
 * end or once `upTo` is passed (records beyond it are dropped from the last
 * page), and read nothing more once the consumer stops iterating, so a reader
 * that has enough simply breaks out of its `for await`.
 */
import { CHANGES_DEFAULT_LIMIT, PAGE_MAX_LIMIT, type PageRequest, type RecordPage } from '../../storage/contract/record-store.js';
import type { StoredRecord } from '../../storage/contract/stored-record.js';

/** Where a paged read starts and stops. */
export interface RecordPaging {
  /** Records with a sequence strictly greater than this. @default 0 */
  readonly after?: number;
  /** Records read per page. @default 1000 (an index's largest page; the changes feed's default page) */
  readonly limit?: number;
  /** The first page's size, for a reader that will likely stop early (a graph node's bounded fan-out). @default limit */
  readonly firstLimit?: number;
  /** The last sequence wanted (a snapshot's watermark). @default no bound */
  readonly upTo?: number;
}

/**
 * An index's records page by page, oldest first. A page is as `read` answers
 * it: a restricted read may answer a short, even empty, page with more to
 * come, so only a null `nextAfter` ends the walk.
 */
export async function* recordPages(read: (page: PageRequest) => Promise<RecordPage>, paging: RecordPaging = {}): AsyncGenerator<RecordPage> {
  const limit = paging.limit ?? PAGE_MAX_LIMIT;
  const upTo = paging.upTo ?? Number.POSITIVE_INFINITY;
  let after = paging.after ?? 0;
  let size = paging.firstLimit ?? limit;
  while (after < upTo) {
    const page = await read({ after, limit: size });
    const past = paging.upTo === undefined ? -1 : page.items.findIndex((stored) => stored.sequence > upTo);
    if (past >= 0) {
      yield { items: page.items.slice(0, past), nextAfter: null };
      return;
    }
    yield page;
    if (page.nextAfter === null) return;
    after = page.nextAfter;
    size = limit;
  }
}

/**
 * The changes feed page by page, in log order. The feed has no cursor of its
 * own: the next page starts after the last record read, and only an empty
 * page is its end (a store clamps the limit it is asked for, so a short page
 * does not prove there is no more).
 */
export async function* logPages(changesSince: (after: number, limit: number) => Promise<StoredRecord[]>, paging: RecordPaging = {}): AsyncGenerator<StoredRecord[]> {
  const limit = paging.limit ?? CHANGES_DEFAULT_LIMIT;
  const upTo = paging.upTo ?? Number.POSITIVE_INFINITY;
  let after = paging.after ?? 0;
  let size = paging.firstLimit ?? limit;
  while (after < upTo) {
    const page = await changesSince(after, size);
    if (page.length === 0) return;
    const past = paging.upTo === undefined ? -1 : page.findIndex((stored) => stored.sequence > upTo);
    if (past >= 0) {
      yield page.slice(0, past);
      return;
    }
    yield page;
    after = page[page.length - 1]!.sequence;
    size = limit;
  }
}
