import { expect } from 'chai';
import { retryAfterMs } from './retry-after.js';

const headers = (entries: Record<string, string>) => new Headers(entries);

describe('retryAfterMs', () => {
  const now = Date.parse('2026-01-01T00:00:00Z');
  const CASES: Array<[string, Record<string, string>, number | null]> = [
    ['seconds', { 'retry-after': '7' }, 7_000],
    ['fractional seconds', { 'retry-after': '0.25' }, 250],
    ['an HTTP date', { 'retry-after': 'Thu, 01 Jan 2026 00:00:30 GMT' }, 30_000],
    ['a date in the past', { 'retry-after': 'Wed, 31 Dec 2025 23:59:00 GMT' }, 0],
    ['retry-after-ms first', { 'retry-after-ms': '1500', 'retry-after': '9' }, 1_500],
    ['nothing', {}, null],
    ['nonsense', { 'retry-after': 'soon' }, null],
  ];
  for (const [name, entries, expected] of CASES) it(name, () => expect(retryAfterMs(headers(entries), now)).to.equal(expected));
  it('no headers at all', () => expect(retryAfterMs(null)).to.equal(null));
});
