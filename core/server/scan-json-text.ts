/**
 * One linear pass over a JSON request text, before anything else reads it,
 * that finds what Loom refuses in every JSON body:
 *
 * - structure past the limits (nesting depth, members in one object, values
 *   in the whole request), so a hostile body is refused before JSON.parse,
 *   validation or canonicalisation spend time on it;
 * - a member named twice in one object (I-JSON, RFC 7493 §2.3: parsers
 *   disagree on which value wins, so two of them could derive different
 *   record ids from the same bytes);
 * - a number JSON.parse would silently change (I-JSON §2.2): its decimal text
 *   must denote exactly the double it parses to, written in shortest
 *   round-trip form, so `9007199254740993`, `1.00000000000000000001` and
 *   `1e400` are refused rather than stored as another value.
 *
 * It is safe on malformed text (it never reads past the end and never loops
 * back), so it can run before JSON.parse; the caller lets a syntax error take
 * precedence over the I-JSON findings. Each finding names where it is as a
 * path (`[3].body.amount`).
 */

/** Structural limits; each is far beyond what a real record or query needs (docs: notes/regex.md). */
export interface JsonTextLimits {
  /** Nested objects and arrays. Record bodies stop at 64 levels; the envelope and a batch add two. */
  readonly maxDepth: number;
  /** Members in one object. */
  readonly maxMembers: number;
  /** Values (objects, arrays, strings, numbers, literals) in the whole request, NDJSON lines together. */
  readonly maxValues: number;
  /** Items in a top-level array (a batch route's `maxItems`), when the route declares one. */
  readonly maxItems?: number;
}

export const DEFAULT_JSON_TEXT_LIMITS: JsonTextLimits = { maxDepth: 128, maxMembers: 10_000, maxValues: 1_000_000 };

export type JsonTextFinding =
  | { readonly kind: 'limit'; readonly path: string; readonly message: string }
  | { readonly kind: 'duplicate'; readonly path: string; readonly key: string }
  | { readonly kind: 'number'; readonly path: string; readonly text: string; readonly parsed: number };

interface Frame {
  /** Member names seen so far; null for an array. */
  readonly keys: Set<string> | null;
  key: string;
  index: number;
}

/** Values counted so far; share one across the lines of an NDJSON body. */
export interface ValueBudget {
  used: number;
}

const IDENTIFIER = /^[A-Za-z_$][\w$-]*$/;
const MAX_PATH_SEGMENTS = 12;

function pathOf(stack: readonly Frame[], depth = stack.length): string {
  let path = '';
  const shown = Math.min(depth, MAX_PATH_SEGMENTS);
  for (let d = 0; d < shown; d++) {
    const frame = stack[d]!;
    if (frame.keys === null) path += `[${frame.index}]`;
    else path += IDENTIFIER.test(frame.key) ? `${path === '' ? '' : '.'}${frame.key}` : `[${JSON.stringify(frame.key)}]`;
  }
  return depth > shown ? `${path}…` : path;
}

/** Decimal digits without leading or trailing zeros, and the power of ten of the last one: "120.50" → ["1205", -1]. */
function normalise(text: string): [string, number] {
  let i = text.charCodeAt(0) === 0x2d ? 1 : 0;
  const e = text.search(/[eE]/);
  const mantissa = e === -1 ? text.slice(i) : text.slice(i, e);
  let exponent = e === -1 ? 0 : Number(text.slice(e + 1));
  const dot = mantissa.indexOf('.');
  let digits = mantissa;
  if (dot !== -1) {
    digits = mantissa.slice(0, dot) + mantissa.slice(dot + 1);
    exponent -= mantissa.length - dot - 1;
  }
  i = 0;
  while (i < digits.length - 1 && digits.charCodeAt(i) === 0x30) i++;
  let end = digits.length;
  while (end > i + 1 && digits.charCodeAt(end - 1) === 0x30) {
    end--;
    exponent++;
  }
  digits = digits.slice(i, end);
  return digits === '0' ? ['0', 0] : [digits, exponent];
}

/** Whether the number text denotes exactly the double JSON.parse reads, written in shortest form. */
export function isExactNumber(text: string): boolean {
  // Fast path: at most 15 characters without an exponent is at most 15 significant digits within ±1e15, which a double round-trips.
  if (text.length <= 15 && !/[eE]/.test(text)) return true;
  const value = Number(text);
  if (!Number.isFinite(value)) return false;
  const [digits, exponent] = normalise(text);
  const [roundTrip, roundTripExponent] = normalise(String(Math.abs(value)));
  return digits === roundTrip && (digits === '0' || exponent === roundTripExponent);
}

const isNumberChar = (c: number) => (c >= 0x30 && c <= 0x39) || c === 0x2d || c === 0x2b || c === 0x2e || c === 0x65 || c === 0x45;

/**
 * The first finding in `text`, or null. A limit finding is returned as soon
 * as it is met; otherwise the scan goes on to the end. `budget` carries the
 * value count across the lines of one NDJSON request.
 */
export function scanJsonText(text: string, limits: JsonTextLimits = DEFAULT_JSON_TEXT_LIMITS, budget: ValueBudget = { used: 0 }): JsonTextFinding | null {
  const stack: Frame[] = [];
  let expectKey = false;
  let first: JsonTextFinding | null = null;
  const n = text.length;
  const value = (): JsonTextFinding | null => (++budget.used > limits.maxValues ? { kind: 'limit', path: pathOf(stack), message: `holds more than ${limits.maxValues} values` } : null);
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22 /* " */) {
      const start = i + 1;
      // The closing quote is the first one not escaped: native indexOf finds each candidate, and a quote after an odd
      // run of backslashes is escaped. Half the cost of walking every character of every string.
      for (i = text.indexOf('"', start); i !== -1; i = text.indexOf('"', i + 1)) {
        let backslashes = 0;
        while (i - 1 - backslashes >= start && text.charCodeAt(i - 1 - backslashes) === 0x5c) backslashes++;
        if (backslashes % 2 === 0) break;
      }
      if (i === -1) i = n;
      const top = stack[stack.length - 1];
      if (expectKey && top?.keys) {
        expectKey = false;
        const raw = text.slice(start, i);
        let key = raw;
        if (raw.includes('\\')) {
          try {
            key = JSON.parse(`"${raw}"`) as string;
          } catch {
            return null; // Not JSON: JSON.parse will say where.
          }
        }
        top.key = key;
        if (top.keys.has(key)) first ??= { kind: 'duplicate', path: pathOf(stack), key };
        else if (top.keys.size >= limits.maxMembers) return { kind: 'limit', path: pathOf(stack, stack.length - 1), message: `has more than ${limits.maxMembers} members in one object` };
        top.keys.add(key);
      } else {
        const over = value();
        if (over) return over;
      }
    } else if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
      const over = value();
      if (over) return over;
      if (stack.length >= limits.maxDepth) return { kind: 'limit', path: pathOf(stack), message: `nests objects and arrays deeper than ${limits.maxDepth} levels` };
      stack.push({ keys: c === 0x7b ? new Set() : null, key: '', index: 0 });
      expectKey = c === 0x7b;
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
      stack.pop();
      expectKey = false;
    } else if (c === 0x2c /* , */) {
      const top = stack[stack.length - 1];
      if (top) {
        if (top.keys) expectKey = true;
        else if (++top.index >= (limits.maxItems ?? Infinity) && stack.length === 1) return { kind: 'limit', path: '', message: `holds more than ${limits.maxItems} items; at most ${limits.maxItems} per request` };
      }
    } else if ((c >= 0x30 && c <= 0x39) || c === 0x2d) {
      const start = i;
      while (i + 1 < n && isNumberChar(text.charCodeAt(i + 1))) i++;
      const over = value();
      if (over) return over;
      if (first === null) {
        const token = text.slice(start, i + 1);
        if (!isExactNumber(token)) first = { kind: 'number', path: pathOf(stack), text: token, parsed: Number(token) };
      }
    } else if (c === 0x74 /* t */ || c === 0x66 /* f */ || c === 0x6e /* n */) {
      while (i + 1 < n && text.charCodeAt(i + 1) >= 0x61 && text.charCodeAt(i + 1) <= 0x7a) i++;
      const over = value();
      if (over) return over;
    }
  }
  return first;
}

/** How a finding reads in a 400 message; `where` says which text ("request body", "line 3 of the NDJSON body"). */
export function describeFinding(finding: JsonTextFinding, where: string): string {
  const at = finding.path === '' ? where : `${where}: ${finding.path}`;
  switch (finding.kind) {
    case 'limit':
      return `${at} ${finding.message}; such a body is refused before it is read`;
    case 'duplicate':
      return `${where} names ${JSON.stringify(finding.key)} twice in one object (at ${finding.path}); send each member once (I-JSON, RFC 7493)`;
    case 'number': {
      const shown = finding.text.length > 40 ? `${finding.text.slice(0, 37)}...` : finding.text;
      const read = Number.isFinite(finding.parsed) ? `would be read as ${String(finding.parsed)}` : 'is beyond the range of a double';
      return `${at}: the number ${shown} is not exactly an IEEE-754 double (it ${read}); send such a value as a string (I-JSON, RFC 7493)`;
    }
  }
}
