/**
 * The file a global fold's checkpoint is kept in (`<dir>/<fold>.ckpt`), as
 * JSON lines so that no state needs one string of its own size: V8 cannot
 * build a string past about 512 MiB, which a trust state passes near 2M
 * verdicts, and holding the whole text doubled the memory of a save.
 *
 * - line 1, the header: `{"format":"loom-fold-checkpoint/2", fold, version, watermark, anchor, saved_at}`;
 * - then the saved state (a codec's plain JSON): an object member by member,
 *   `{"key":k,"value":v}`, and a long array member in pieces,
 *   `{"key":k,"items":[…]}` appended in order; any other state whole, `{"value":v}`;
 * - last, `{"end":true,"lines":n}`: a file without it was cut short.
 *
 * Written line by line with synchronous writes (to the page cache) while the
 * caller holds the event loop, so the state cannot change under the save and
 * only one piece is ever in memory as text; made durable in the background;
 * read back line by line as a stream.
 */
import { close, fdatasync, openSync, writeSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { promisify } from 'node:util';
import type { CheckpointChunk } from '../folds/fold.js';

export const CHECKPOINT_FORMAT = 'loom-fold-checkpoint/2';

/** Items per line of a long array: lines of a few hundred KiB. */
const ITEMS_PER_LINE = 4096;

export interface CheckpointHeader {
  readonly fold: string;
  readonly version: number;
  readonly watermark: number;
  readonly anchor: string | null;
  readonly saved_at: string;
}

export interface CheckpointContents {
  readonly header: CheckpointHeader;
  readonly state: unknown;
}

/** Thrown for a file that is not a whole checkpoint of this format. */
export class CheckpointFileError extends Error {}

/**
 * Writes header and state to `path` (created or truncated) now; `durable`
 * resolves once the file is on disk and closed (rename it only then).
 */
export function writeCheckpointFile(path: string, header: CheckpointHeader, state: unknown | { readonly chunks: Iterable<CheckpointChunk> }): { bytes: number; durable: Promise<void> } {
  const fd = openSync(path, 'w');
  let bytes = 0;
  let lines = 0;
  const line = (value: unknown) => {
    const buffer = Buffer.from(`${JSON.stringify(value)}\n`, 'utf8');
    let written = 0;
    while (written < buffer.length) written += writeSync(fd, buffer, written, buffer.length - written);
    bytes += buffer.length;
    lines++;
  };
  try {
    line({ format: CHECKPOINT_FORMAT, ...header });
    if (isChunked(state)) {
      for (const chunk of state.chunks) {
        if ('items' in chunk && chunk.items.length > ITEMS_PER_LINE) {
          for (let from = 0; from < chunk.items.length; from += ITEMS_PER_LINE) line({ key: chunk.key, items: chunk.items.slice(from, from + ITEMS_PER_LINE) });
        } else {
          line(chunk);
        }
      }
    } else if (state !== null && typeof state === 'object' && !Array.isArray(state)) {
      for (const [key, value] of Object.entries(state as Record<string, unknown>)) {
        if (value === undefined) continue;
        if (Array.isArray(value) && value.length > ITEMS_PER_LINE) {
          for (let from = 0; from < value.length; from += ITEMS_PER_LINE) line({ key, items: value.slice(from, from + ITEMS_PER_LINE) });
        } else {
          line({ key, value });
        }
      }
    } else {
      line({ value: state });
    }
    line({ end: true, lines: lines + 1 });
  } catch (error) {
    close(fd, () => {});
    throw error;
  }
  const durable = promisify(fdatasync)(fd).finally(() => promisify(close)(fd));
  return { bytes, durable };
}

const CHUNKED = Symbol('chunked checkpoint state');

/** A state given as pieces (FoldCheckpoint.saveChunks) rather than whole. */
export function chunked(chunks: Iterable<CheckpointChunk>): { readonly chunks: Iterable<CheckpointChunk> } {
  return { [CHUNKED]: true, chunks } as { readonly chunks: Iterable<CheckpointChunk> };
}

function isChunked(state: unknown): state is { readonly chunks: Iterable<CheckpointChunk> } {
  return state !== null && typeof state === 'object' && CHUNKED in state;
}

/** Bytes read at a time. */
const READ_BYTES = 1 << 20;

/**
 * The lines of a file (split on "\n", the last one even without it), read a
 * megabyte at a time. It replaces node:readline over a stream, whose events,
 * ticks and line-break regular expression were a quarter of the time a
 * start spent on a million-record log's checkpoints (bench/fold-scaling.ts).
 */
export async function* fileLines(path: string): AsyncGenerator<string> {
  const handle = await open(path, 'r');
  try {
    const chunk = Buffer.allocUnsafe(READ_BYTES);
    // Pieces of a line not yet ended (a line may span many reads); copied, since `chunk` is reused.
    let pending: Buffer[] = [];
    for (;;) {
      const { bytesRead } = await handle.read(chunk, 0, READ_BYTES, null);
      if (bytesRead === 0) break;
      let start = 0;
      for (;;) {
        const end = chunk.indexOf(10, start);
        if (end === -1 || end >= bytesRead) break;
        if (pending.length > 0) {
          pending.push(chunk.subarray(start, end));
          const line = Buffer.concat(pending).toString('utf8');
          pending = [];
          yield line;
        } else {
          yield chunk.toString('utf8', start, end);
        }
        start = end + 1;
      }
      if (start < bytesRead) pending.push(Buffer.from(chunk.subarray(start, bytesRead)));
    }
    const last = pending.length > 0 ? Buffer.concat(pending).toString('utf8') : '';
    if (last.length > 0) yield last;
  } finally {
    await handle.close();
  }
}

/** Reads a checkpoint written by writeCheckpointFile; CheckpointFileError when it is not one, or not whole. */
export async function readCheckpointFile(path: string): Promise<CheckpointContents> {
  const lines = fileLines(path);
  let header: CheckpointHeader | null = null;
  let object: Record<string, unknown> | null = null;
  let whole: { value: unknown } | null = null;
  let count = 0;
  let ended = false;
  for await (const text of lines) {
    if (ended) throw new CheckpointFileError('lines after the end line');
    count++;
    let entry: Record<string, unknown>;
    try {
      entry = JSON.parse(text) as Record<string, unknown>;
    } catch {
      throw new CheckpointFileError(`line ${count} is not JSON`);
    }
    if (entry === null || typeof entry !== 'object' || Array.isArray(entry)) throw new CheckpointFileError(`line ${count} is not an object`);
    if (header === null) {
      if (entry['format'] !== CHECKPOINT_FORMAT) throw new CheckpointFileError(`not a ${CHECKPOINT_FORMAT} file`);
      const { format: _format, ...rest } = entry;
      header = rest as unknown as CheckpointHeader;
      continue;
    }
    if (entry['end'] === true) {
      if (entry['lines'] !== count) throw new CheckpointFileError(`the end line counts ${String(entry['lines'])} lines, the file has ${count}`);
      ended = true;
      continue;
    }
    if (typeof entry['key'] === 'string') {
      if (whole) throw new CheckpointFileError('a member after a whole state');
      object ??= {};
      const key = entry['key'];
      if (Array.isArray(entry['items'])) {
        const items = entry['items'] as unknown[];
        const current = object[key];
        if (current === undefined) object[key] = items;
        else if (Array.isArray(current)) for (const item of items) current.push(item);
        else throw new CheckpointFileError(`member ${key} is both a value and an array`);
      } else if ('value' in entry) {
        if (key in object) throw new CheckpointFileError(`member ${key} twice`);
        object[key] = entry['value'];
      } else {
        throw new CheckpointFileError(`line ${count} has neither value nor items`);
      }
    } else if ('value' in entry) {
      if (object || whole) throw new CheckpointFileError('a whole state after other state');
      whole = { value: entry['value'] };
    } else {
      throw new CheckpointFileError(`line ${count} is not a checkpoint line`);
    }
  }
  if (header === null) throw new CheckpointFileError('empty');
  if (!ended) throw new CheckpointFileError('cut short: no end line');
  return { header, state: whole ? whole.value : (object ?? {}) };
}
