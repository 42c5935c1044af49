/**
 * Loom parses request bodies itself rather than letting Hapi do it, so every
 * failure gets the route's own code: wrong content type (415), bytes that are
 * not UTF-8 or text that is not JSON (the route's invalid-input code, 400).
 * Every JSON text (each NDJSON line) first gets the one linear pass of
 * scan-json-text.ts: structural limits, duplicate members, inexact numbers.
 */
import { isUtf8 } from 'node:buffer';
import { LoomError } from '../errors/loom-error.js';
import type { ErrorCode } from '../errors/codes.js';
import { DEFAULT_JSON_TEXT_LIMITS, describeFinding, scanJsonText, type JsonTextFinding, type JsonTextLimits, type ValueBudget } from './scan-json-text.js';

const JSON_TYPE = /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i;
const NDJSON_TYPE = /^application\/(?:x-)?ndjson\s*(?:;|$)/i;

export function parseJsonBody(raw: unknown, contentType: string | undefined, invalidInput: ErrorCode, options: { ndjson?: boolean; maxItems?: number } = {}): unknown {
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
  const limits = options.maxItems === undefined ? DEFAULT_JSON_TEXT_LIMITS : { ...DEFAULT_JSON_TEXT_LIMITS, maxItems: options.maxItems };
  if (ndjson) return parseNdjson(text, invalidInput, limits);
  const finding = scanJsonText(text, limits);
  // Past a structural limit the text is refused unread; an I-JSON finding waits for JSON.parse, so a syntax error is what a malformed body hears.
  if (finding?.kind === 'limit') throw new LoomError(invalidInput, describeFinding(finding, 'request body'));
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    const detail = error instanceof RangeError ? 'nesting too deep' : (error as Error).message;
    throw new LoomError(invalidInput, `request body is not valid JSON: ${detail}`);
  }
  if (finding) throw new LoomError(invalidInput, describeFinding(finding, 'request body'));
  return parsed;
}

/** One JSON value per line (blank lines ignored); a line that is not JSON is refused by its number. */
function parseNdjson(text: string, invalidInput: ErrorCode, limits: JsonTextLimits): unknown[] {
  const values: unknown[] = [];
  const lines = text.split('\n');
  const budget: ValueBudget = { used: 0 };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.trim();
    if (line === '') continue;
    const where = `line ${i + 1} of the NDJSON body`;
    if (limits.maxItems !== undefined && values.length >= limits.maxItems) throw new LoomError(invalidInput, `the NDJSON body holds more than ${limits.maxItems} items; at most ${limits.maxItems} per request`);
    const finding: JsonTextFinding | null = scanJsonText(line, limits, budget);
    if (finding?.kind === 'limit') throw new LoomError(invalidInput, describeFinding(finding, where));
    try {
      values.push(JSON.parse(line));
    } catch (error) {
      throw new LoomError(invalidInput, `${where} is not valid JSON: ${(error as Error).message}`);
    }
    if (finding) throw new LoomError(invalidInput, describeFinding(finding, where));
  }
  return values;
}
