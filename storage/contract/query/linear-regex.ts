/**
 * `$regex` in linear time. Clients write ECMAScript regular expressions (with
 * the `u` flag, plus i, m, s); they run on RE2JS, an RE2 automaton whose
 * match time grows with the input, never exponentially, so one query cannot
 * hold the event loop (a backtracking `(\w|\w)*` took 28 s over one record).
 *
 * The ECMAScript text is first checked by `RegExp` (its syntax is the
 * contract), then rewritten token by token into RE2 syntax with ECMAScript's
 * meaning: `.` excludes all four line terminators, `\s` is ECMAScript's
 * whitespace, `\u{…}` and `\cX` escapes, `[^]`, `[\b]`. What no automaton can
 * decide (backreferences, lookaround) or RE2 will not build (repeat counts
 * above 1000) is refused with a reason. One known difference remains: with
 * `m`, `^` and `$` meet lines ended by `\n` only (ECMAScript also ends lines
 * at `\r`, U+2028 and U+2029).
 */
import { RE2JS } from 're2js';

export interface LinearRegex {
  test(text: string): boolean;
}

/** Why a pattern cannot run in linear time; the parser turns it into INVALID_QUERY. */
export class UnboundedPatternError extends Error {}

const MAX_CODE_POINT = 0x10ffff;
/** ECMAScript's WhiteSpace and LineTerminator, the meaning of `\s`. */
const WHITESPACE: ReadonlyArray<readonly [number, number]> = [
  [0x09, 0x0d],
  [0x20, 0x20],
  [0xa0, 0xa0],
  [0x1680, 0x1680],
  [0x2000, 0x200a],
  [0x2028, 0x2029],
  [0x202f, 0x202f],
  [0x205f, 0x205f],
  [0x3000, 0x3000],
  [0xfeff, 0xfeff],
];
const LINE_TERMINATORS: ReadonlyArray<readonly [number, number]> = [
  [0x0a, 0x0a],
  [0x0d, 0x0d],
  [0x2028, 0x2029],
];

const hex = (cp: number) => `\\x{${cp.toString(16)}}`;
const rangesText = (ranges: ReadonlyArray<readonly [number, number]>) => ranges.map(([lo, hi]) => (lo === hi ? hex(lo) : `${hex(lo)}-${hex(hi)}`)).join('');

function complement(ranges: ReadonlyArray<readonly [number, number]>): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  let next = 0;
  for (const [lo, hi] of ranges) {
    if (lo > next) out.push([next, lo - 1]);
    next = hi + 1;
  }
  if (next <= MAX_CODE_POINT) out.push([next, MAX_CODE_POINT]);
  return out;
}

const SPACE = rangesText(WHITESPACE);
const NOT_SPACE = rangesText(complement(WHITESPACE));
/** One character (code point), whatever it is. */
export const ANY_CHARACTER = `[${hex(0)}-${hex(MAX_CODE_POINT)}]`;
const ANY = ANY_CHARACTER;
const NOT_LINE_TERMINATOR = `[${rangesText(complement(LINE_TERMINATORS))}]`;
const CONTROL_ESCAPES: Readonly<Record<string, number>> = { t: 0x09, n: 0x0a, v: 0x0b, f: 0x0c, r: 0x0d };
const MAX_REPEAT = 1000;

/** One character matched literally, whatever RE2 would read into it. */
export function literalAtom(ch: string): string {
  return hex(ch.codePointAt(0)!);
}

/** Rewrites one ECMAScript pattern (already accepted by `new RegExp(source, 'u' + flags)`) into RE2 syntax. */
class Translator {
  private i = 0;
  constructor(
    private readonly src: string,
    private readonly dotAll: boolean,
  ) {}

  translate(): string {
    let out = '';
    while (this.i < this.src.length) out += this.atom();
    return out;
  }

  private peek(offset = 0): string {
    return this.src[this.i + offset] ?? '';
  }

  private atom(): string {
    const ch = this.src[this.i]!;
    if (ch === '\\') return this.escape(false);
    if (ch === '[') return this.charClass();
    if (ch === '.') {
      this.i++;
      return this.dotAll ? ANY : NOT_LINE_TERMINATOR;
    }
    if (ch === '(') return this.group();
    if (ch === '{') return this.repeat();
    const cp = this.src.codePointAt(this.i)!;
    this.i += cp > 0xffff ? 2 : 1;
    // ) | * + ? ^ $ mean the same in RE2; any other character is literal in both (`u` refuses lone ] { }).
    return ')|*+?^$'.includes(ch) ? ch : hex(cp);
  }

  private group(): string {
    const rest = this.src.slice(this.i, this.i + 4);
    if (rest.startsWith('(?=') || rest.startsWith('(?!') || rest.startsWith('(?<=') || rest.startsWith('(?<!')) {
      throw new UnboundedPatternError('uses lookaround ((?=, (?!, (?<=, (?<!), which no linear-time engine can decide');
    }
    if (rest.startsWith('(?:')) {
      this.i += 3;
      return '(?:';
    }
    if (rest.startsWith('(?<')) {
      // A named group: captures are never read, so it is an ordinary group.
      this.i = this.src.indexOf('>', this.i) + 1;
      return '(?:';
    }
    this.i++;
    return '(?:';
  }

  private repeat(): string {
    const end = this.src.indexOf('}', this.i);
    const body = this.src.slice(this.i + 1, end);
    for (const count of body.split(',')) {
      if (count !== '' && Number(count) > MAX_REPEAT) throw new UnboundedPatternError(`repeats a part ${count} times; at most ${MAX_REPEAT} is accepted`);
    }
    this.i = end + 1;
    return `{${body}}`;
  }

  /** An escape; inside a class it must yield class items (no brackets), outside a whole atom. */
  private escape(inClass: boolean): string {
    const c = this.src[this.i + 1]!;
    this.i += 2;
    switch (c) {
      case 'd':
      case 'D':
      case 'w':
      case 'W':
        return `\\${c}`;
      case 'b':
      case 'B':
        return inClass ? hex(8) : `\\${c}`;
      case 's':
        return inClass ? SPACE : `[${SPACE}]`;
      case 'S':
        return inClass ? NOT_SPACE : `[${NOT_SPACE}]`;
      case 'k':
        throw new UnboundedPatternError('uses a named backreference (\\k<…>), which no linear-time engine can decide');
      case 'p':
      case 'P':
        return this.property(c);
      case 'u':
        return hex(this.unicodeEscape());
      case 'x': {
        const cp = parseInt(this.src.slice(this.i, this.i + 2), 16);
        this.i += 2;
        return hex(cp);
      }
      case 'c': {
        const cp = this.src.charCodeAt(this.i) % 32;
        this.i++;
        return hex(cp);
      }
      case '0':
        return hex(0);
    }
    if (c >= '1' && c <= '9') throw new UnboundedPatternError(`uses a backreference (\\${c}), which no linear-time engine can decide`);
    if (c in CONTROL_ESCAPES) return hex(CONTROL_ESCAPES[c]!);
    // An identity escape of a syntax character (or `-` in a class): the character itself.
    return hex(c.codePointAt(0)!);
  }

  /** `\uXXXX` (joining a surrogate pair written as two escapes, as `u` does) or `\u{X…}`; `this.i` is past the `u`. */
  private unicodeEscape(): number {
    if (this.peek() === '{') {
      const end = this.src.indexOf('}', this.i);
      const cp = parseInt(this.src.slice(this.i + 1, end), 16);
      this.i = end + 1;
      return cp;
    }
    const unit = parseInt(this.src.slice(this.i, this.i + 4), 16);
    this.i += 4;
    if (unit >= 0xd800 && unit <= 0xdbff && this.src.startsWith('\\u', this.i)) {
      const low = parseInt(this.src.slice(this.i + 2, this.i + 6), 16);
      if (low >= 0xdc00 && low <= 0xdfff) {
        this.i += 6;
        return 0x10000 + ((unit - 0xd800) << 10) + (low - 0xdc00);
      }
    }
    return unit;
  }

  /** `\p{…}`: RE2 names scripts and general categories bare (`Greek`, `L`, `Lu`). */
  private property(c: 'p' | 'P'): string {
    const end = this.src.indexOf('}', this.i);
    let name = this.src.slice(this.i + 1, end);
    this.i = end + 1;
    const eq = name.indexOf('=');
    if (eq !== -1) {
      const key = name.slice(0, eq);
      if (!['Script', 'sc', 'General_Category', 'gc'].includes(key)) throw new UnboundedPatternError(`uses the Unicode property ${key}, which the linear-time engine does not know`);
      name = name.slice(eq + 1);
    }
    return `\\${c}{${name}}`;
  }

  private charClass(): string {
    this.i++;
    let negated = false;
    if (this.peek() === '^') {
      negated = true;
      this.i++;
    }
    let items = '';
    while (this.peek() !== ']') {
      const start = this.classAtom();
      // A range: a single character, `-`, then another single character (`u` refuses ranges of escapes like \w).
      if (start.single !== null && this.peek() === '-' && this.peek(1) !== ']' && this.peek(1) !== '') {
        this.i++;
        const end = this.classAtom();
        items += `${hex(start.single)}-${hex(end.single!)}`;
      } else {
        items += start.text;
      }
    }
    this.i++;
    // `[]` matches nothing and `[^]` any character; RE2 has no empty class.
    if (items === '') return negated ? ANY : `[^${hex(0)}-${hex(MAX_CODE_POINT)}]`;
    return `[${negated ? '^' : ''}${items}]`;
  }

  private classAtom(): { text: string; single: number | null } {
    if (this.peek() === '\\') {
      const c = this.peek(1);
      const text = this.escape(true);
      const single = /^\\x\{[0-9a-f]+\}$/.test(text) ? parseInt(text.slice(3, -1), 16) : null;
      return { text, single: 'dDwWsSpP'.includes(c) ? null : single };
    }
    const cp = this.src.codePointAt(this.i)!;
    this.i += cp > 0xffff ? 2 : 1;
    return { text: hex(cp), single: cp };
  }
}

/**
 * Compiles an ECMAScript pattern with flags drawn from `imsu` into a linear-time matcher.
 * Throws UnboundedPatternError when the pattern cannot be decided in linear time,
 * SyntaxError when it is not an ECMAScript regular expression.
 */
export function compileLinearRegex(source: string, flags: string): LinearRegex {
  new RegExp(source, [...new Set(flags + 'u')].join(''));
  const translated = new Translator(source, flags.includes('s')).translate();
  let re2Flags = 0;
  if (flags.includes('i')) re2Flags |= RE2JS.CASE_INSENSITIVE;
  if (flags.includes('m')) re2Flags |= RE2JS.MULTILINE;
  try {
    return RE2JS.compile(translated, re2Flags);
  } catch (error) {
    throw new UnboundedPatternError(`is not accepted by the linear-time regular expression engine (${(error as Error).message})`);
  }
}
