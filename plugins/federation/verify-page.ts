/**
 * Whether a page from the peer may be applied, decided before any of its
 * records is stored, in this order: its shape; its signature, which covers
 * every record whole and the request the page answers; that it answers the
 * request this pair made (its cursor, target namespace and thread); that it
 * moves. Each failure is a PairError, so it becomes the pair's `last_error`
 * and the cursor stays where it was.
 */
import { computeRecordId } from '../../core/records/record-id.js';
import type { LoomRecord } from '../../core/records/record.js';
import { PairError } from './pair-error.js';
import { pageProblem, type SyncPage } from './sync-page.js';

/** What the pair asked for. */
export interface PageExpectation {
  readonly peerDid: string;
  /** The cursor the pair holds and sent (`''` before its first page). */
  readonly since: string;
  readonly targetNamespace: string;
  readonly thread: string | null;
  /** The peer's keys in force (keys/peer-keys.ts); default: its DID's own key. */
  readonly keys?: readonly string[];
}

/** The first record that does not hash to its own id, for a message that says what was altered. */
function alteredRecord(page: SyncPage): string | null {
  for (const entry of page.records) {
    try {
      if (computeRecordId(entry.record) !== entry.record.id) return entry.record.id;
    } catch {
      return String(entry?.record?.id);
    }
  }
  return null;
}

export function verifyPage(body: unknown, expected: PageExpectation): SyncPage {
  const page = body as SyncPage;
  if (typeof page !== 'object' || page === null || !Array.isArray(page.records) || typeof page.next_cursor !== 'string' || typeof page.has_more !== 'boolean') {
    throw new PairError('PARSE_ERROR', 'the peer answered something that is not a changes page');
  }
  for (const entry of page.records as unknown[]) {
    const record = (entry as { record?: LoomRecord } | null)?.record;
    if (typeof entry !== 'object' || entry === null || typeof record !== 'object' || record === null || record.id !== (entry as { id?: unknown }).id) {
      throw new PairError('PARSE_ERROR', 'a page entry has no record or its id differs from the record id');
    }
  }
  const problem = pageProblem(page, expected.peerDid, expected.keys);
  if (problem) {
    // Only on failure: say which record was altered, when one no longer hashes to its id.
    const altered = alteredRecord(page);
    if (altered !== null) throw new PairError('TAMPERED', `record ${altered} in a signed page does not hash to its id (altered in transit); nothing of the page is accepted until a clean copy arrives`);
    throw new PairError('SIGNATURE_INVALID', `${problem}; nothing of the page is accepted`);
  }
  const { since, target_namespace, thread } = page.request;
  if (since !== expected.since || target_namespace !== expected.targetNamespace || thread !== expected.thread) {
    // Genuine but not the answer to this request: a replayed page, or a later one served in place of the next.
    const asked = JSON.stringify({ since: expected.since, target_namespace: expected.targetNamespace, thread: expected.thread });
    throw new PairError('UNREQUESTED_PAGE', `the peer's signed page answers ${JSON.stringify({ since, target_namespace, thread })}, not this pair's request ${asked} (replayed or out of order); the cursor stays`);
  }
  if (page.has_more && page.next_cursor === since) {
    throw new PairError('NO_PROGRESS', 'the peer answered a page that says it has more but does not move the cursor');
  }
  return page;
}
