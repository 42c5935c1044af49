/**
 * Reads a request body with a byte limit. Hapi enforces `maxBytes` on chunked
 * bodies by destroying the request stream, so the client sees a connection
 * reset instead of an answer. Here the excess is drained (up to a bound) and
 * the client gets the 413 envelope; past the bound the connection is closed.
 */
import type { Readable } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import { LoomError } from '../errors/loom-error.js';

/** How much past the limit is read and discarded before giving up on the connection. */
const DRAIN_FACTOR = 8;

export function readBody(stream: Readable, maxBytes: number): Promise<Buffer> {
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let total = 0;
    let refused = false;
    const refuse = () => {
      refused = true;
      chunks.length = 0;
      reject(new LoomError('PAYLOAD_TOO_LARGE', `request body exceeds ${maxBytes} bytes`));
    };
    stream.on('data', (chunk: Buffer) => {
      total += chunk.length;
      if (refused) {
        if (total > maxBytes * DRAIN_FACTOR) stream.destroy();
        return;
      }
      if (total > maxBytes) return refuse();
      chunks.push(chunk);
    });
    stream.once('end', () => {
      if (!refused) resolve(Buffer.concat(chunks, total));
    });
    stream.once('error', (error: Error & { code?: string }) => {
      if (refused) return;
      // zlib's errors (Z_DATA_ERROR, "incorrect header check") mean the body is not what Content-Encoding says.
      const compressed = typeof error.code === 'string' && (error.code.startsWith('Z_') || error.code.startsWith('ERR_BROTLI'));
      reject(new LoomError('INVALID_SHAPE', compressed ? `request body does not decompress as its Content-Encoding says (${error.message})` : `request body could not be read: ${error.message}`));
    });
  });
}

const DECODERS: Record<string, () => NodeJS.ReadWriteStream> = { gzip: createGunzip, 'x-gzip': createGunzip, deflate: createInflate, br: createBrotliDecompress };

/**
 * The body as sent, decompressed when `Content-Encoding` names gzip, deflate
 * or br (the byte limit then applies to what it decompresses to, so a small
 * compressed body cannot expand without bound). Another encoding is refused
 * with 415 rather than read as bytes it is not.
 */
export function decodedBody(stream: Readable, contentEncoding: string | undefined): Readable {
  const encoding = contentEncoding?.trim().toLowerCase();
  if (!encoding || encoding === 'identity') return stream;
  const decoder = DECODERS[encoding];
  if (!decoder) throw new LoomError('UNSUPPORTED_MEDIA_TYPE', `Content-Encoding ${JSON.stringify(contentEncoding)} is not accepted: send gzip, deflate, br or an uncompressed body`);
  const decoded = stream.pipe(decoder()) as unknown as Readable;
  // A body that does not decompress is the client's mistake, said in its terms.
  stream.once('error', (error) => decoded.destroy(error));
  decoded.once('error', () => stream.unpipe());
  return decoded;
}
