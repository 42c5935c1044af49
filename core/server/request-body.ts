/**
 * Loom parses request bodies itself rather than letting Hapi do it, so every
 * failure gets the route's own code: wrong content type (415), bytes that are
 * not UTF-8 or text that is not JSON (the route's invalid-input code, 400).
 */
import { isUtf8 } from 'node:buffer';
import { LoomError } from '../errors/loom-error.js';
import type { ErrorCode } from '../errors/codes.js';
import { firstDuplicateKey } from './duplicate-keys.js';

const JSON_TYPE = /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i;
const NDJSON_TYPE = /^application\/(?:x-)?ndjson\s*(?:;|$)/i;

export function parseJsonBody(raw: unknown, contentType: string | undefined, invalidInput: ErrorCode, options: { ndjson?: boolean } = {}): unknown {
  const bytes = Buffer.isBuffer(raw) ? raw : raw === undefined || raw === null ? Buffer.alloc(0) : Buffer.from(String(raw));
  if (bytes.length === 0) return undefined;
  const ndjson = options.ndjson === true && contentType !== undefined && NDJSON_TYPE.test(contentType);
  if (!ndjson && (!contentType || !JSON_TYPE.test(contentType))) {
    const accepted = options.ndjson ? 'application/json or application/x-ndjson' : 'application/json';
    throw new LoomError('UNSUPPORTED_MEDIA_TYPE', `request body must be JSON with Content-Type: ${accepted} (got ${contentType ? JSON.stringify(contentType) : 'none'})`);
  }
  if (!isUtf8(bytes)) throw new LoomError(invalidInput, 'request body is not valid UTF-8');
  let text = bytes.toString('utf8');
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  if (ndjson) return parseNdjson(text, invalidInput);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    const detail = error instanceof RangeError ? 'nesting too deep' : (error as Error).message;
    throw new LoomError(invalidInput, `request body is not valid JSON: ${detail}`);
  }
  refuseDuplicateKeys(text, invalidInput);
  return parsed;
}

/** One JSON value per line (blank lines ignored); a line that is not JSON is refused by its number. */
function parseNdjson(text: string, invalidInput: ErrorCode): unknown[] {
  const values: unknown[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.trim();
    if (line === '') continue;
    try {
      values.push(JSON.parse(line));
    } catch (error) {
      throw new LoomError(invalidInput, `line ${i + 1} of the NDJSON body is not valid JSON: ${(error as Error).message}`);
    }
    const duplicate = firstDuplicateKey(line);
    if (duplicate !== null) throw new LoomError(invalidInput, `line ${i + 1} of the NDJSON body names ${JSON.stringify(duplicate)} twice in one object; send each member once (I-JSON, RFC 7493)`);
  }
  return values;
}

/** Refuses a JSON text that names a member twice in one object (I-JSON, RFC 7493): parsers disagree on which value wins. */
export function refuseDuplicateKeys(text: string, code: ErrorCode = 'INVALID_SHAPE'): void {
  const duplicate = firstDuplicateKey(text);
  if (duplicate !== null) throw new LoomError(code, `request body names ${JSON.stringify(duplicate)} twice in one object; send each member once (I-JSON, RFC 7493)`);
}
