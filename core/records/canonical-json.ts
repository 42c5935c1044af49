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

// In unicode mode a well-formed surrogate pair is one code point and does not
// match this class; only unpaired halves do.
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;

export function canonicalJson(value: unknown): string {
  return write(value, '$', 0);
}

/** Refuses pathological nesting before the JS stack does it less politely. */
export const CANONICAL_JSON_MAX_DEPTH = 512;

function write(value: unknown, path: string, depth: number): string {
  if (depth > CANONICAL_JSON_MAX_DEPTH) {
    throw new CanonicalJsonError(`nesting deeper than ${CANONICAL_JSON_MAX_DEPTH} levels`, path);
  }
  switch (typeof value) {
    case 'string':
      return writeString(value, path);
    case 'number':
      if (!Number.isFinite(value)) throw new CanonicalJsonError(`number ${value} is not representable in JSON`, path);
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
          out += write(value[i], `${path}[${i}]`, depth + 1);
        }
        return out + ']';
      }
      const proto = Object.getPrototypeOf(value);
      if (proto !== Object.prototype && proto !== null) {
        throw new CanonicalJsonError('only plain objects are JSON objects', path);
      }
      const keys = Object.keys(value).sort();
      let out = '{';
      let first = true;
      for (const key of keys) {
        const member = (value as Record<string, unknown>)[key];
        if (member === undefined) throw new CanonicalJsonError(`undefined value for key ${JSON.stringify(key)}`, path);
        if (!first) out += ',';
        first = false;
        out += writeString(key, path) + ':' + write(member, `${path}.${key}`, depth + 1);
      }
      return out + '}';
    }
    default:
      throw new CanonicalJsonError(`a ${typeof value} is not a JSON value`, path);
  }
}

function writeString(text: string, path: string): string {
  if (LONE_SURROGATE.test(text)) throw new CanonicalJsonError('string contains a lone UTF-16 surrogate', path);
  return JSON.stringify(text);
}

/** Convenience for callers that already hold a typed JSON value. */
export function canonicalJsonOf(value: JsonValue): string {
  return canonicalJson(value);
}
