import { expect } from 'chai';
import { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { byteStreamReply, parseRange, type ByteSource } from './byte-stream-reply.js';

const HASH = 'ab'.repeat(32);
const ETAG = `"${HASH}"`;
const CONTENT = Buffer.from(Array.from({ length: 100 }, (_, i) => i));

/** A source over CONTENT that records every range it is asked to open. */
function source(content = CONTENT, extra: Partial<ByteSource> = {}): ByteSource & { opened: Array<[number, number]> } {
  const opened: Array<[number, number]> = [];
  return {
    size: content.length,
    etag: HASH,
    contentType: 'application/pdf',
    ...extra,
    opened,
    open(start: number, end: number) {
      opened.push([start, end]);
      return Readable.from([content.subarray(start, end + 1)]);
    },
  };
}

async function bodyOf(body: unknown): Promise<Buffer> {
  expect(body).to.be.instanceOf(Readable);
  return buffer(body as Readable);
}

describe('byte-stream replies', () => {
  describe('parseRange', () => {
    const cases: Array<[string, string | undefined, number, ReturnType<typeof parseRange>]> = [
      ['no header', undefined, 100, 'whole'],
      ['a-b', 'bytes=0-9', 100, { start: 0, end: 9 }],
      ['a-b in the middle', 'bytes=10-19', 100, { start: 10, end: 19 }],
      ['one byte', 'bytes=99-99', 100, { start: 99, end: 99 }],
      ['a-', 'bytes=10-', 100, { start: 10, end: 99 }],
      ['0-', 'bytes=0-', 100, { start: 0, end: 99 }],
      ['-n', 'bytes=-10', 100, { start: 90, end: 99 }],
      ['-n longer than the content', 'bytes=-500', 100, { start: 0, end: 99 }],
      ['an end beyond the content is clamped', 'bytes=50-1000', 100, { start: 50, end: 99 }],
      ['a huge end is clamped', 'bytes=0-99999999999999999999', 100, { start: 0, end: 99 }],
      ['unit and spacing are lenient', ' Bytes = 5 - 6 ', 100, { start: 5, end: 6 }],
      ['a start at the size', 'bytes=100-', 100, 'unsatisfiable'],
      ['a start past the size', 'bytes=150-200', 100, 'unsatisfiable'],
      ['a start no integer can hold', 'bytes=99999999999999999999-', 100, 'unsatisfiable'],
      ['a suffix of zero bytes', 'bytes=-0', 100, 'unsatisfiable'],
      ['any range of empty content', 'bytes=0-', 0, 'unsatisfiable'],
      ['a suffix of empty content', 'bytes=-5', 0, 'unsatisfiable'],
      // RFC 9110 §14.2 lets a server ignore or reject an invalid range-spec (last < first); this one rejects.
      ['an end before the start', 'bytes=5-2', 100, 'unsatisfiable'],
      ['several ranges: the whole content', 'bytes=0-1,5-6', 100, 'whole'],
      ['several suffix ranges: the whole content', 'bytes=-1, -2', 100, 'whole'],
      ['another unit', 'items=0-9', 100, 'whole'],
      ['no unit', '0-9', 100, 'whole'],
      ['nothing after the unit', 'bytes=', 100, 'whole'],
      ['a lone dash', 'bytes=-', 100, 'whole'],
      ['letters', 'bytes=a-b', 100, 'whole'],
      ['a negative start', 'bytes=--5', 100, 'whole'],
    ];
    for (const [name, header, size, expected] of cases) {
      it(`${name}: ${JSON.stringify(header)} of ${size} bytes`, () => {
        expect(parseRange(header, size)).to.deep.equal(expected);
      });
    }
  });

  describe('byteStreamReply', () => {
    it('200 with the whole content, its length, a strong ETag and Accept-Ranges', async () => {
      const from = source();
      const reply = byteStreamReply({}, from);
      expect(reply.status).to.equal(200);
      expect(reply.kind).to.equal('stream');
      expect(reply.headers).to.deep.equal({
        etag: ETAG,
        'accept-ranges': 'bytes',
        'cache-control': 'no-cache',
        // Never compressed: the ETag and the lengths name these exact bytes.
        'content-encoding': 'identity',
        'content-type': 'application/pdf',
        'content-length': '100',
      });
      expect(from.opened).to.deep.equal([[0, 99]]);
      expect((await bodyOf(reply.body)).equals(CONTENT)).to.equal(true);
    });

    it('206 with Content-Range, opening exactly the requested bytes', async () => {
      const from = source();
      const reply = byteStreamReply({ range: 'bytes=10-19' }, from);
      expect(reply.status).to.equal(206);
      expect(reply.headers).to.deep.include({ 'content-range': 'bytes 10-19/100', 'content-length': '10', etag: ETAG, 'content-type': 'application/pdf' });
      expect(from.opened).to.deep.equal([[10, 19]]);
      expect((await bodyOf(reply.body)).equals(CONTENT.subarray(10, 20))).to.equal(true);
    });

    it('206 for a suffix range opens only the tail', async () => {
      const from = source();
      const reply = byteStreamReply({ range: 'bytes=-5' }, from);
      expect(reply.status).to.equal(206);
      expect(reply.headers['content-range']).to.equal('bytes 95-99/100');
      expect(reply.headers['content-length']).to.equal('5');
      expect(from.opened).to.deep.equal([[95, 99]]);
      expect([...(await bodyOf(reply.body))]).to.deep.equal([95, 96, 97, 98, 99]);
    });

    it('206 clamps an end past the content', () => {
      const from = source();
      const reply = byteStreamReply({ range: 'bytes=90-500' }, from);
      expect(reply.headers).to.deep.include({ 'content-range': 'bytes 90-99/100', 'content-length': '10' });
      expect(from.opened).to.deep.equal([[90, 99]]);
    });

    it('200 with the whole content for several ranges', () => {
      const from = source();
      const reply = byteStreamReply({ range: 'bytes=0-1,5-6' }, from);
      expect(reply.status).to.equal(200);
      expect(reply.headers).to.not.have.property('content-range');
      expect(from.opened).to.deep.equal([[0, 99]]);
    });

    for (const [name, ifNoneMatch] of [
      ['the ETag', ETAG],
      ['the weak form', `W/${ETAG}`],
      ['a list holding it', `"other", ${ETAG}`],
      ['a list holding the weak form', `"other",W/${ETAG}`],
      ['*', '*'],
    ] as const) {
      it(`304 with no body when If-None-Match names ${name}, opening nothing`, () => {
        const from = source();
        const reply = byteStreamReply({ 'if-none-match': ifNoneMatch, range: 'bytes=0-9' }, from);
        expect(reply.status).to.equal(304);
        expect(reply.kind).to.equal('empty');
        expect(reply.body).to.equal(null);
        expect(reply.headers).to.include({ etag: ETAG });
        expect(from.opened).to.deep.equal([]);
      });
    }

    it('200 when If-None-Match names other content', () => {
      const from = source();
      const reply = byteStreamReply({ 'if-none-match': '"other", W/"another"' }, from);
      expect(reply.status).to.equal(200);
      expect(from.opened).to.deep.equal([[0, 99]]);
    });

    it('If-Range: the range when it names this content, the whole content otherwise', () => {
      const matching = source();
      expect(byteStreamReply({ 'if-range': ETAG, range: 'bytes=10-19' }, matching).status).to.equal(206);
      expect(matching.opened).to.deep.equal([[10, 19]]);

      for (const ifRange of ['"other"', `W/${ETAG}`, 'Wed, 21 Oct 2015 07:28:00 GMT']) {
        const from = source();
        const reply = byteStreamReply({ 'if-range': ifRange, range: 'bytes=10-19' }, from);
        expect(reply.status, ifRange).to.equal(200);
        expect(reply.headers['content-length']).to.equal('100');
        expect(reply.headers).to.not.have.property('content-range');
        expect(from.opened).to.deep.equal([[0, 99]]);
      }
      // A mismatched If-Range with an unsatisfiable range still sends the whole content.
      const from = source();
      expect(byteStreamReply({ 'if-range': '"other"', range: 'bytes=500-' }, from).status).to.equal(200);
    });

    it('416 with Content-Range bytes */size and the RANGE_NOT_SATISFIABLE envelope, opening nothing', () => {
      const from = source();
      const reply = byteStreamReply({ range: 'bytes=100-' }, from);
      expect(reply.status).to.equal(416);
      expect(reply.kind).to.equal('json');
      expect(reply.headers).to.deep.include({ 'content-range': 'bytes */100', etag: ETAG });
      expect(reply.body).to.deep.include({ object: 'error', code: 'RANGE_NOT_SATISFIABLE' });
      expect((reply.body as { message: unknown }).message).to.be.a('string');
      expect(from.opened).to.deep.equal([]);
    });

    it('empty content: 200 with content-length 0 and nothing opened', async () => {
      const from = source(Buffer.alloc(0));
      const reply = byteStreamReply({}, from);
      expect(reply.status).to.equal(200);
      expect(reply.headers['content-length']).to.equal('0');
      expect(from.opened).to.deep.equal([]);
      expect(await bodyOf(reply.body)).to.have.length(0);
      expect(byteStreamReply({ range: 'bytes=0-' }, source(Buffer.alloc(0))).status).to.equal(416);
    });

    it('carries the source cache policy and extra headers', () => {
      const from = source(CONTENT, { cacheControl: 'private, max-age=60', headers: { 'content-disposition': 'attachment; filename="a.pdf"' } });
      for (const reply of [byteStreamReply({}, from), byteStreamReply({ range: 'bytes=0-0' }, from), byteStreamReply({ 'if-none-match': ETAG }, from), byteStreamReply({ range: 'bytes=200-' }, from)]) {
        expect(reply.headers, String(reply.status)).to.deep.include({ 'cache-control': 'private, max-age=60', 'content-disposition': 'attachment; filename="a.pdf"' });
      }
    });
  });
});
