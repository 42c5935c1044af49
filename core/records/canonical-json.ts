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
 */
import type { JsonValue } from './json.js';

export class CanonicalJsonError extends TypeError {
  constructor(message: string, readonly path: string) {
    super(`${message} at ${path}`);
    this.name = 'CanonicalJsonError';
  }
}

export function canonicalJson(value: unknown): string {
  return write(value, [], 0);
}

/** Refuses pathological nesting before the JS stack does it less politely. */
export const CANONICAL_JSON_MAX_DEPTH = 512;

/**
 * The members walked down to a value; turned into `$.a[0].b` text only when
 * an error needs it (building it for every member cost more than the rest).
 */
type PathStack = Array<string | number>;

function pathText(stack: PathStack): string {
  let text = '$';
  for (const part of stack) text += typeof part === 'number' ? `[${part}]` : `.${part}`;
  return text;
}

function write(value: unknown, path: PathStack, depth: number): string {
  if (depth > CANONICAL_JSON_MAX_DEPTH) {
    throw new CanonicalJsonError(`nesting deeper than ${CANONICAL_JSON_MAX_DEPTH} levels`, pathText(path));
  }
  switch (typeof value) {
    case 'string':
      return writeString(value, path);
    case 'number':
      if (!Number.isFinite(value)) throw new CanonicalJsonError(`number ${value} is not representable in JSON`, pathText(path));
      // JSON.stringify on a finite number is exactly Number.prototype.toString, except -0 -> "0".
      return JSON.stringify(value);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'object': {
      if (value === null) return 'null';
      if (Array.isArray(value)) {
        let out = '[';
        for (let i = 0; i < value.length; i++) {
          if (i > 0) out += ',';
          path.push(i);
          out += write(value[i], path, depth + 1);
          path.pop();
        }
        return out + ']';
      }
      const proto = Object.getPrototypeOf(value);
      if (proto !== Object.prototype && proto !== null) {
        throw new CanonicalJsonError('only plain objects are JSON objects', pathText(path));
      }
      const keys = Object.keys(value).sort();
      let out = '{';
      let first = true;
      for (const key of keys) {
        const member = (value as Record<string, unknown>)[key];
        if (member === undefined) throw new CanonicalJsonError(`undefined value for key ${JSON.stringify(key)}`, pathText(path));
        if (!first) out += ',';
        first = false;
        out += writeString(key, path) + ':';
        path.push(key);
        out += write(member, path, depth + 1);
        path.pop();
      }
      return out + '}';
    }
    default:
      throw new CanonicalJsonError(`a ${typeof value} is not a JSON value`, pathText(path));
  }
}

function writeString(text: string, path: PathStack): string {
  // isWellFormed: no unpaired UTF-16 surrogate.
  if (!text.isWellFormed()) throw new CanonicalJsonError('string contains a lone UTF-16 surrogate', pathText(path));
  return JSON.stringify(text);
}

/** Convenience for callers that already hold a typed JSON value. */
export function canonicalJsonOf(value: JsonValue): string {
  return canonicalJson(value);
}
