/**
 * Reads a request body with a byte limit. Hapi enforces `maxBytes` on chunked
 * bodies by destroying the request stream, so the client sees a connection
 * reset instead of an answer. Here the excess is drained (up to a bound) and
 * the client gets the 413 envelope; past the bound the connection is closed.
 */
import type { Readable } from 'node:stream';
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
    stream.once('error', (error) => {
      if (!refused) reject(new LoomError('INVALID_SHAPE', `request body could not be read: ${error.message}`));
    });
  });
}
