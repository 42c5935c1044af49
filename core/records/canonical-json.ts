/**
 * Canonical JSON (spec §2.1), following RFC 8785 (JCS) wherever the spec is
 * silent or looser:
 * - object keys sorted by UTF-16 code units (JS's default string order), at every depth;
 * - no whitespace;
 * - numbers in ECMAScript shortest round-trip form (`Number.prototype.toString`),
 *   `-0` written as `0`, NaN and ±Infinity refused;
 * - strings escaped as ECMAScript `JSON.stringify` does, which is what RFC 8785
 *   prescribes (short escapes for \b \t \n \f \r, `\u00hh` for other C0 controls,
 *   everything else raw UTF-8);
 * - lone surrogates refused (I-JSON, RFC 8785 §3.1), since no other
 *   implementation could hash them identically.
 * See docs/decisions.md for where this differs from the spec's wording.
 *
 * How: one walk checks every rule and builds a copy whose objects hold their
 * members in canonical order; one native `JSON.stringify` of that copy is
 * then the canonical text, since it emits members in insertion order and
 * escapes strings and formats numbers exactly as RFC 8785 asks. The one
 * exception is an object with array-index keys ("0", "17"): JS enumerates
 * those first, in numeric order, so such a value is written member by
 * member instead. Stringifying natively is about twice as fast as
 * concatenating per member, and the ingest path keeps the (frozen) copy as
 * the stored record's body, so the walk is not repeated to freeze it.
 */
import type { JsonValue } from './json.js';

export class CanonicalJsonError extends TypeError {
  constructor(message: string, readonly path: string) {
    super(`${message} at ${path}`);
    this.name = 'CanonicalJsonError';
  }
}

/** Refuses pathological nesting before the JS stack does it less politely. */
export const CANONICAL_JSON_MAX_DEPTH = 512;

/** A JSON value in canonical member order, and its canonical text. */
export interface CanonicalForm {
  readonly value: JsonValue;
  readonly text: string;
}

export function canonicalJson(value: unknown): string {
  return canonicalize(value, false).text;
}

/**
 * The canonical text of `value` and a deep-frozen copy of it whose objects
 * list their members in canonical order (the input is neither kept nor frozen).
 */
export function canonicalForm(value: unknown): CanonicalForm {
  return canonicalize(value, true);
}

/**
 * The members walked down to a value; turned into `$.a[0].b` text only when
 * an error needs it (building it for every member cost more than the rest).
 */
type PathStack = Array<string | number>;

interface Walk {
  readonly path: PathStack;
  readonly freeze: boolean;
  /** Some object has an array-index key, so native stringify would misorder it. */
  indexKeys: boolean;
}

function canonicalize(value: unknown, freeze: boolean): CanonicalForm {
  const walk: Walk = { path: [], freeze, indexKeys: false };
  const copy = copyCanonical(value, walk, 0);
  return { value: copy, text: walk.indexKeys ? writeMembers(copy) : JSON.stringify(copy) };
}

function pathText(stack: PathStack): string {
  let text = '$';
  for (const part of stack) text += typeof part === 'number' ? `[${part}]` : `.${part}`;
  return text;
}

/** Whether JS orders `key` as an array index (a canonical integer below 2^32 - 1). */
function isArrayIndex(key: string): boolean {
  const first = key.charCodeAt(0);
  if (!(first >= 48 && first <= 57) || key.length > 10) return false;
  if (first === 48) return key.length === 1;
  for (let i = 1; i < key.length; i++) {
    const c = key.charCodeAt(i);
    if (c < 48 || c > 57) return false;
  }
  return Number(key) < 4294967295;
}

function copyCanonical(value: unknown, walk: Walk, depth: number): JsonValue {
  if (depth > CANONICAL_JSON_MAX_DEPTH) {
    throw new CanonicalJsonError(`nesting deeper than ${CANONICAL_JSON_MAX_DEPTH} levels`, pathText(walk.path));
  }
  switch (typeof value) {
    case 'string':
      // isWellFormed: no unpaired UTF-16 surrogate.
      if (!value.isWellFormed()) throw new CanonicalJsonError('string contains a lone UTF-16 surrogate', pathText(walk.path));
      return value;
    case 'number':
      if (!Number.isFinite(value)) throw new CanonicalJsonError(`number ${value} is not representable in JSON`, pathText(walk.path));
      // -0 is written "0" (JSON.stringify agrees); store it as the 0 it is written as.
      return value === 0 ? 0 : value;
    case 'boolean':
      return value;
    case 'object': {
      if (value === null) return null;
      const { path } = walk;
      if (Array.isArray(value)) {
        const copy: JsonValue[] = new Array<JsonValue>(value.length);
        for (let i = 0; i < value.length; i++) {
          path.push(i);
          copy[i] = copyCanonical(value[i], walk, depth + 1);
          path.pop();
        }
        if (walk.freeze) Object.freeze(copy);
        return copy;
      }
      const proto = Object.getPrototypeOf(value);
      if (proto !== Object.prototype && proto !== null) {
        throw new CanonicalJsonError('only plain objects are JSON objects', pathText(path));
      }
      const keys = Object.keys(value).sort();
      const copy: Record<string, JsonValue> = {};
      for (const key of keys) {
        const member = (value as Record<string, unknown>)[key];
        if (member === undefined) throw new CanonicalJsonError(`undefined value for key ${JSON.stringify(key)}`, pathText(path));
        if (!key.isWellFormed()) throw new CanonicalJsonError('string contains a lone UTF-16 surrogate', pathText(path));
        if (!walk.indexKeys && isArrayIndex(key)) walk.indexKeys = true;
        path.push(key);
        const memberCopy = copyCanonical(member, walk, depth + 1);
        path.pop();
        // A "__proto__" member (JSON.parse makes it an own property) must stay a member, not set the prototype.
        if (key === '__proto__') Object.defineProperty(copy, key, { value: memberCopy, enumerable: true, writable: true, configurable: true });
        else copy[key] = memberCopy;
      }
      if (walk.freeze) Object.freeze(copy);
      return copy;
    }
    default:
      throw new CanonicalJsonError(`a ${typeof value} is not a JSON value`, pathText(walk.path));
  }
}

/** Member-by-member writer for a checked copy holding array-index keys (sorted here, not by JS's order). */
function writeMembers(value: JsonValue): string {
  if (typeof value !== 'object' || value === null) return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(writeMembers).join(',')}]`;
  const keys = Object.keys(value).sort();
  return `{${keys.map((key) => `${JSON.stringify(key)}:${writeMembers(value[key]!)}`).join(',')}}`;
}

/** Convenience for callers that already hold a typed JSON value. */
export function canonicalJsonOf(value: JsonValue): string {
  return canonicalJson(value);
}
