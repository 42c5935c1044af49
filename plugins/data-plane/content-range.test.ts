import { expect } from 'chai';
import type { LoomError } from '../../core/errors/loom-error.js';
import { refusalOfSync } from '../../core/errors/refusal-of.js';
import { parseContentRange } from './content-range.js';

// A 10-byte upload in 4-byte chunks: [0-3] [4-7] [8-9].
const SIZE = 10;
const CHUNK = 4;

function refusal(header: string | undefined, size = SIZE, chunk = CHUNK): LoomError {
  return refusalOfSync(() => parseContentRange(header, size, chunk));
}

describe('upload Content-Range', () => {
  describe('accepts aligned ranges', () => {
    const cases: Array<[string, string, number, number, { start: number; end: number; first: number; last: number }]> = [
      ['the first chunk', 'bytes 0-3/10', SIZE, CHUNK, { start: 0, end: 3, first: 0, last: 0 }],
      ['a middle chunk', 'bytes 4-7/10', SIZE, CHUNK, { start: 4, end: 7, first: 1, last: 1 }],
      ['the last, short chunk', 'bytes 8-9/10', SIZE, CHUNK, { start: 8, end: 9, first: 2, last: 2 }],
      ['two whole chunks', 'bytes 0-7/10', SIZE, CHUNK, { start: 0, end: 7, first: 0, last: 1 }],
      ['a whole chunk and the short last one', 'bytes 4-9/10', SIZE, CHUNK, { start: 4, end: 9, first: 1, last: 2 }],
      ['the whole content in one PUT', 'bytes 0-9/10', SIZE, CHUNK, { start: 0, end: 9, first: 0, last: 2 }],
      ['the last chunk when the size is a multiple of the chunk size', 'bytes 4-7/8', 8, CHUNK, { start: 4, end: 7, first: 1, last: 1 }],
      ['a one-byte upload', 'bytes 0-0/1', 1, CHUNK, { start: 0, end: 0, first: 0, last: 0 }],
      ['surrounding whitespace', '  bytes 0-3/10 ', SIZE, CHUNK, { start: 0, end: 3, first: 0, last: 0 }],
      ['a large upload with 8 MiB chunks', `bytes ${8 * 2 ** 20}-${24 * 2 ** 20 - 1}/${30 * 2 ** 20}`, 30 * 2 ** 20, 8 * 2 ** 20, { start: 8 * 2 ** 20, end: 24 * 2 ** 20 - 1, first: 1, last: 2 }],
    ];
    for (const [name, header, size, chunk, expected] of cases) {
      it(name, () => {
        expect(parseContentRange(header, size, chunk)).to.deep.equal(expected);
      });
    }
  });

  describe('refuses with INVALID_CONTENT_RANGE', () => {
    const cases: Array<[string, string | undefined, RegExp]> = [
      ['a missing header', undefined, /is missing/],
      ['the Range request syntax (bytes=)', 'bytes=0-1/2', /is malformed/],
      ['an open end', 'bytes 0-/10', /is malformed/],
      ['an unknown total', 'bytes 0-3/*', /is malformed/],
      ['an unsatisfied-range form', 'bytes */10', /is malformed/],
      ['another unit', 'items 0-1/2', /is malformed/],
      ['a negative start', 'bytes -1-3/10', /is malformed/],
      ['a negative end', 'bytes 0--3/10', /is malformed/],
      ['spaces inside the range', 'bytes 0 - 3/10', /is malformed/],
      ['spaces around the slash', 'bytes 0-3 / 10', /is malformed/],
      ['two spaces after the unit', 'bytes  0-3/10', /is malformed/],
      ['an empty header', '', /is malformed/],
      ['a fraction', 'bytes 0-3.5/10', /is malformed/],
      ['more than 16 digits', 'bytes 0-3/12345678901234567', /is malformed/],
      ['a total other than the declared size', 'bytes 0-3/11', /declares a total of 11 bytes/],
      ['an end before the start', 'bytes 4-3/10', /ends before it starts/],
      ['an end past the last byte', 'bytes 8-10/10', /reaches past the last byte/],
      ['a misaligned start', 'bytes 2-3/10', /starts at 2, not at a multiple of the chunk size 4/],
      ['a misaligned start in the last chunk', 'bytes 9-9/10', /starts at 9/],
      ['an end inside a chunk', 'bytes 0-2/10', /ends at 2, not at a chunk boundary/],
      ['an end that overlaps the next chunk', 'bytes 0-4/10', /ends at 4, not at a chunk boundary/],
      ['an end one byte into the short last chunk', 'bytes 4-8/10', /ends at 8, not at a chunk boundary/],
    ];
    for (const [name, header, why] of cases) {
      it(name, () => {
        const error = refusal(header);
        expect(error.code).to.equal('INVALID_CONTENT_RANGE');
        expect(error.status).to.equal(400);
        expect(error.message).to.match(why);
      });
    }
  });
});
