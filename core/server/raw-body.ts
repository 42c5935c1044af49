/**
 * Raw request bodies (`request.raw` routes): the Content-Type check and a
 * byte limit applied while the bytes stream past, so an upload is never held
 * in memory and a body longer than allowed fails with 413 as soon as it
 * crosses the limit, whatever Content-Length claimed.
 */
import { Transform, type Readable, type TransformCallback } from 'node:stream';
import { LoomError } from '../errors/loom-error.js';

/**
 * curl's `--data-binary` labels bytes `application/x-www-form-urlencoded` unless told otherwise;
 * raw routes never parse a form, so that label is taken as "bytes" rather than refused.
 */
const CURL_DEFAULT = 'application/x-www-form-urlencoded';

export function checkRawContentType(contentType: string | undefined, accepted: readonly string[]): void {
  if (contentType === undefined || contentType.trim() === '') return;
  const type = contentType.split(';')[0]!.trim().toLowerCase();
  if (!accepted.includes(type) && type !== CURL_DEFAULT) {
    throw new LoomError('UNSUPPORTED_MEDIA_TYPE', `this route takes raw bytes with Content-Type ${accepted.join(' or ')} (got ${JSON.stringify(contentType)})`);
  }
}

class ByteLimit extends Transform {
  private seen = 0;
  constructor(private readonly maxBytes: number) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    this.seen += chunk.length;
    if (this.seen > this.maxBytes) return done(new LoomError('PAYLOAD_TOO_LARGE', `request body exceeds ${this.maxBytes} bytes`));
    done(null, chunk);
  }
}

/** The request stream, failing with PAYLOAD_TOO_LARGE past `maxBytes`; errors of the source (a client that went away) pass through. */
export function limitedStream(source: Readable, maxBytes: number): Readable {
  const limited = new ByteLimit(maxBytes);
  source.once('error', (error) => limited.destroy(error));
  // The source is closed when the client aborts: end the consumer with an error rather than leaving it waiting.
  source.once('aborted', () => limited.destroy(new LoomError('CONTENT_LENGTH_MISMATCH', 'the client closed the connection before the body ended')));
  return source.pipe(limited);
}
