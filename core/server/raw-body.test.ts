import { expect } from 'chai';
import { PassThrough, Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { LoomError } from '../errors/loom-error.js';
import { refusalOfSync } from '../errors/refusal-of.js';
import { checkRawContentType, limitedStream } from './raw-body.js';

const BYTES = ['application/octet-stream'];

const refusal = refusalOfSync;

/** Everything `stream` passes on before it ends or fails. */
async function drain(stream: Readable): Promise<{ bytes: number; error: unknown }> {
  let bytes = 0;
  try {
    for await (const chunk of stream) bytes += (chunk as Buffer).length;
    return { bytes, error: null };
  } catch (error) {
    return { bytes, error };
  }
}

describe('raw request bodies', () => {
  describe('checkRawContentType', () => {
    it('accepts a missing or blank Content-Type', () => {
      checkRawContentType(undefined, BYTES);
      checkRawContentType('', BYTES);
      checkRawContentType('   ', BYTES);
    });

    it('accepts a listed type, with parameters and in any case', () => {
      checkRawContentType('application/octet-stream', BYTES);
      checkRawContentType('Application/Octet-Stream', BYTES);
      checkRawContentType('application/octet-stream; charset=binary', BYTES);
      checkRawContentType('  APPLICATION/OCTET-STREAM ;foo=bar', BYTES);
      checkRawContentType('image/png', ['application/octet-stream', 'image/png']);
    });

    it("accepts curl's default label for --data-binary (application/x-www-form-urlencoded)", () => {
      checkRawContentType('application/x-www-form-urlencoded', BYTES);
    });

    for (const type of ['application/json', 'text/plain; charset=utf-8', 'multipart/form-data; boundary=x', 'application/octet-streamx', 'octet-stream']) {
      it(`refuses ${type} with UNSUPPORTED_MEDIA_TYPE`, () => {
        const error = refusal(() => checkRawContentType(type, BYTES));
        expect(error.code).to.equal('UNSUPPORTED_MEDIA_TYPE');
        expect(error.status).to.equal(415);
      });
    }

    it('refuses a type that only another route lists', () => {
      expect(refusal(() => checkRawContentType('image/png', BYTES)).code).to.equal('UNSUPPORTED_MEDIA_TYPE');
    });
  });

  describe('limitedStream', () => {
    it('passes a body under the limit unchanged', async () => {
      const pieces = [Buffer.from('hello '), Buffer.from('raw '), Buffer.from('bytes')];
      const out = await buffer(limitedStream(Readable.from(pieces), 100));
      expect(out.toString()).to.equal('hello raw bytes');
    });

    it('passes a body of exactly the limit', async () => {
      const out = await buffer(limitedStream(Readable.from([Buffer.alloc(6), Buffer.alloc(4)]), 10));
      expect(out).to.have.length(10);
    });

    it('passes an empty body', async () => {
      expect(await buffer(limitedStream(Readable.from([]), 0))).to.have.length(0);
    });

    it('fails with PAYLOAD_TOO_LARGE as the body crosses the limit, letting no byte past the limit through', async () => {
      const { bytes, error } = await drain(limitedStream(Readable.from([Buffer.alloc(6), Buffer.alloc(4), Buffer.alloc(1), Buffer.alloc(50)]), 10));
      expect(error).to.be.instanceOf(LoomError);
      expect((error as LoomError).code).to.equal('PAYLOAD_TOO_LARGE');
      expect((error as LoomError).status).to.equal(413);
      expect(bytes).to.be.at.most(10);
    });

    it('fails as soon as the limit is crossed, without waiting for the body to end', async () => {
      const source = new PassThrough();
      const limited = limitedStream(source, 8);
      const result = drain(limited);
      source.write(Buffer.alloc(5));
      source.write(Buffer.alloc(5));
      // The source never ends: only crossing the limit can settle the result.
      const { error } = await result;
      expect((error as LoomError).code).to.equal('PAYLOAD_TOO_LARGE');
      source.destroy();
    });

    it("passes the source's own error through", async () => {
      const source = new PassThrough();
      const limited = limitedStream(source, 100);
      const result = drain(limited);
      source.write(Buffer.alloc(3));
      const failure = new Error('socket hang up');
      source.destroy(failure);
      expect((await result).error).to.equal(failure);
    });

    it('ends the consumer with CONTENT_LENGTH_MISMATCH when the client aborts', async () => {
      const source = new PassThrough();
      const limited = limitedStream(source, 100);
      const result = drain(limited);
      source.write(Buffer.alloc(3));
      source.emit('aborted');
      expect(((await result).error as LoomError).code).to.equal('CONTENT_LENGTH_MISMATCH');
      source.destroy();
    });
  });
});
