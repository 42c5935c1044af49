/** Store pages → the wire's cursor list. */
import type { LoomRecord } from '../../core/records/record.js';
import type { RecordPage } from '../../storage/contract/record-store.js';

export function toRecordList(page: RecordPage): { object: 'list'; data: LoomRecord[]; has_more: boolean; next_cursor: string | null } {
  return {
    object: 'list',
    data: page.items.map((stored) => stored.record),
    has_more: page.nextAfter !== null,
    next_cursor: page.nextAfter === null ? null : String(page.nextAfter),
  };
}
