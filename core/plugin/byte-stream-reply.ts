/**
 * Answers with bytes from a source that can be opened at any offset (a blob
 * file): a strong ETag, 304 to a matching If-None-Match, one byte range per
 * request (RFC 9110 §14: `bytes=a-b`, `bytes=a-`, `bytes=-n`) as 206, If-Range,
 * and 416 with `Content-Range: bytes *\/size` for a range that cannot be served.
 * Only the requested range is opened: a range at the end of a large file does
 * not read what comes before it (Hapi's own range support clips a full stream).
 * Several ranges in one request are answered with the whole content (200), as
 * RFC 9110 allows; multipart/byteranges is not worth its weight here.
 */
import { Readable } from 'node:stream';
import { LoomError } from '../errors/loom-error.js';
import { etagMatches } from './conditional-reply.js';
import { Reply } from './reply.js';
import type { ResponseSpec } from './route.js';

export interface ByteSource {
  readonly size: number;
  /** Strong validator, unquoted (a content hash). */
  readonly etag: string;
  readonly contentType: string;
  /** @default 'no-cache' */
  readonly cacheControl?: string;
  /** Extra headers (Content-Disposition …). */
  readonly headers?: Readonly<Record<string, string>>;
  /** Opens bytes `start`..`end` inclusive. Called only when a body is sent. */
  open(start: number, end: number): Readable;
}

/** The responses a byte-stream route declares (with `binary` bodies for the OpenAPI document). */
export function byteStreamResponses(description: string, contentType = 'application/octet-stream'): Record<number, ResponseSpec> {
  return {
    200: { description, contentType, binary: true },
    206: { description: 'The requested byte range (Content-Range names it).', contentType, binary: true },
    304: { description: 'Not modified: the If-None-Match ETag names this content.' },
  };
}

type Range = { start: number; end: number } | 'whole' | 'unsatisfiable';

/** Parses a Range header against `size`. Malformed, multi-range or non-byte units mean the whole content. */
export function parseRange(header: string | undefined, size: number): Range {
  if (header === undefined) return 'whole';
  const match = /^\s*bytes\s*=\s*(\d*)\s*-\s*(\d*)\s*$/i.exec(header);
  if (!match) return 'whole';
  const [, first, last] = match;
  if (first === '' && last === '') return 'whole';
  if (first === '') {
    // Suffix range: the last n bytes.
    const length = Number(last);
    if (length === 0) return 'unsatisfiable';
    return size === 0 ? 'unsatisfiable' : { start: Math.max(0, size - length), end: size - 1 };
  }
  const start = Number(first);
  if (!Number.isSafeInteger(start) || start >= size) return 'unsatisfiable';
  const end = last === '' ? size - 1 : Math.min(Number(last), size - 1);
  if (!Number.isSafeInteger(end) || end < start) return 'unsatisfiable';
  return { start, end };
}

export function byteStreamReply(requestHeaders: Readonly<Record<string, string | undefined>>, source: ByteSource): Reply {
  const etag = `"${source.etag}"`;
  const common: Record<string, string> = {
    etag,
    'accept-ranges': 'bytes',
    'cache-control': source.cacheControl ?? 'no-cache',
    // Never gzip: the ETag names these exact bytes, Content-Length and ranges count them, and most blobs do not compress.
    'content-encoding': 'identity',
    ...(source.headers ?? {}),
  };
  const ifNoneMatch = requestHeaders['if-none-match'];
  if (ifNoneMatch !== undefined && etagMatches(ifNoneMatch, etag)) return Reply.empty(304, common);

  const ifRange = requestHeaders['if-range'];
  // If-Range with a validator other than ours (or a date: ours are content hashes) means "send it all".
  const range = ifRange !== undefined && ifRange.trim() !== etag ? 'whole' : parseRange(requestHeaders['range'], source.size);
  if (range === 'unsatisfiable') {
    const refusal = new LoomError('RANGE_NOT_SATISFIABLE', `the requested range ${JSON.stringify(requestHeaders['range'])} lies outside the content (${source.size} bytes)`);
    return Reply.json(416, refusal.toEnvelope(), { ...common, 'content-range': `bytes */${source.size}` });
  }
  const contentType = { 'content-type': source.contentType };
  if (range === 'whole') {
    if (source.size === 0) return Reply.stream(Readable.from([], { objectMode: false }), { ...common, ...contentType, 'content-length': '0' });
    return Reply.stream(source.open(0, source.size - 1), { ...common, ...contentType, 'content-length': String(source.size) });
  }
  return Reply.stream(
    source.open(range.start, range.end),
    { ...common, ...contentType, 'content-length': String(range.end - range.start + 1), 'content-range': `bytes ${range.start}-${range.end}/${source.size}` },
    206,
  );
}
