/**
 * Changes-feed cursors (spec §4.13: opaque strings). Inside, a cursor is the
 * sequence of the last record the feed examined, so it is gapless by
 * construction: the store's sequence is global and strictly increasing, and a
 * record becomes visible only with every record below it (group commit makes
 * a batch visible at once). The `v1.` prefix lets a later encoding coexist.
 */
import { LoomError } from '../../core/errors/loom-error.js';

const PREFIX = 'v1.';

export function encodeFeedCursor(sequence: number): string {
  return Buffer.from(`${PREFIX}${sequence}`, 'utf8').toString('base64url');
}

/** The sequence a cursor stands for; `''`, absent and `0` mean the start of the log. */
export function decodeFeedCursor(cursor: string | undefined): number {
  if (cursor === undefined || cursor === '' || cursor === '0') return 0;
  const text = /^[A-Za-z0-9_-]{1,64}$/.test(cursor) ? Buffer.from(cursor, 'base64url').toString('utf8') : '';
  const match = /^v1\.(0|[1-9][0-9]{0,15})$/.exec(text);
  if (!match || !Number.isSafeInteger(Number(match[1]))) {
    throw new LoomError('INVALID_CURSOR', 'since: not a cursor this feed issued (use next_cursor from a previous answer, or omit it to start from the beginning)');
  }
  return Number(match[1]);
}
