/** Store pages → the wire's cursor list. */
import type { LoomRecord } from '../../core/records/record.js';
import type { RecordPage, SerializedRecordPage } from '../../storage/contract/record-store.js';
import { Reply } from '../../core/plugin/reply.js';

export function toRecordList(page: RecordPage): { object: 'list'; data: LoomRecord[]; sequences: number[]; has_more: boolean; next_cursor: string | null } {
  return {
    object: 'list',
    data: page.items.map((stored) => stored.record),
    sequences: page.items.map((stored) => stored.sequence),
    has_more: page.nextAfter !== null,
    next_cursor: page.nextAfter === null ? null : String(page.nextAfter),
  };
}

/** The part of a page at or below sequence `until`; the end of the list once it is passed. */
export function upTo(page: RecordPage, until: number): RecordPage {
  const items = page.items.filter((stored) => stored.sequence <= until);
  const ended = items.length < page.items.length || page.nextAfter === null || page.nextAfter >= until;
  return { items, nextAfter: ended ? null : page.nextAfter };
}

/**
 * The same list as `toRecordList`, written from the records' wire JSON: the
 * page's text is the records' texts joined, so a page costs little more
 * than reading its rows.
 */
export function recordListReply(page: SerializedRecordPage): Reply {
  const cursor = page.nextAfter === null ? 'null' : `"${page.nextAfter}"`;
  return Reply.text(200, `{"object":"list","data":[${page.json}],"sequences":[${page.sequences.join(',')}],"has_more":${page.nextAfter !== null},"next_cursor":${cursor}}`, 'application/json; charset=utf-8');
}
