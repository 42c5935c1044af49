/**
 * `Content-Range: bytes <start>-<end>/<total>` of an upload chunk (RFC 9110
 * §14.4). Chunks are aligned: a PUT covers one or more whole chunks, starting
 * at a multiple of the upload's chunk size and ending at a chunk boundary or
 * at the last byte. Alignment is what makes a resumed upload exact: the
 * server records chunks, and a client re-sends only the chunks it lacks.
 */
import { LoomError } from '../../core/errors/loom-error.js';

export interface ChunkRange {
  readonly start: number;
  /** Inclusive. */
  readonly end: number;
  readonly first: number;
  /** Inclusive. */
  readonly last: number;
}

const FORM = /^bytes (\d{1,16})-(\d{1,16})\/(\d{1,16})$/i;

export function parseContentRange(header: string | undefined, size: number, chunkSize: number): ChunkRange {
  const bad = (why: string): never => {
    throw new LoomError('INVALID_CONTENT_RANGE', `Content-Range ${JSON.stringify(header ?? null)} ${why}`);
  };
  if (header === undefined) return bad('is missing: send Content-Range: bytes <start>-<end>/<total> with each chunk');
  const match = FORM.exec(header.trim());
  if (!match) return bad('is malformed: expected bytes <start>-<end>/<total>');
  const [start, end, total] = [Number(match[1]), Number(match[2]), Number(match[3])];
  if (total !== size) bad(`declares a total of ${total} bytes but the upload was opened for ${size}`);
  if (end < start) bad('ends before it starts');
  if (end >= size) bad(`reaches past the last byte (${size - 1})`);
  if (start % chunkSize !== 0) bad(`starts at ${start}, not at a multiple of the chunk size ${chunkSize}`);
  if ((end + 1) % chunkSize !== 0 && end !== size - 1) bad(`ends at ${end}, not at a chunk boundary (a multiple of ${chunkSize}, minus one) or the last byte`);
  return { start, end, first: start / chunkSize, last: Math.floor(end / chunkSize) };
}
