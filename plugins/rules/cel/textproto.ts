/**
 * A reader for the subset of the protobuf text format used by the CEL
 * conformance vectors (plugins/rules/cel/vectors). No schema is involved:
 * the result is a tree of fields in file order, and the caller decides what
 * each field means.
 *
 * Supported: fields `name: value`, messages `name { … }`, `name: { … }` and
 * `name < … >`, repeated fields (a name given more than once, or
 * `name: [a, b]`), `,` or `;` after a field, `#` comments, extension and Any
 * names in brackets (`[type.googleapis.com/x.Y]`), string literals in '…' or
 * "…" with C escapes (\a \b \f \n \r \t \v \\ \' \" \?, octal \NNN, hex \xNN,
 * \uXXXX and \UXXXXXXXX), adjacent string literals (concatenated), numbers
 * (decimal, hex, octal, floats with exponent and an f suffix, a leading `-`,
 * inf/infinity/nan) and identifiers (enum values, true/false).
 *
 * Strings are kept as bytes, as protobuf does: octal and hex escapes are
 * bytes, \u and \U are code points encoded as UTF-8. Numbers are kept as
 * written, so 64-bit integers lose no precision.
 */

/** A string literal, as bytes. */
export interface TextString {
  readonly kind: 'string';
  readonly bytes: Uint8Array;
}

/** A number as written, sign included: `12`, `-0x1F`, `1.5e3`, `-inf`. */
export interface TextNumber {
  readonly kind: 'number';
  readonly text: string;
}

/** A bare identifier: an enum value, `true`, `false`, `inf`, `nan`. */
export interface TextIdentifier {
  readonly kind: 'identifier';
  readonly text: string;
}

export type TextScalar = TextString | TextNumber | TextIdentifier;
export type TextValue = TextScalar | TextMessage;

export interface TextField {
  readonly name: string;
  readonly value: TextValue;
}

export class TextFormatError extends Error {
  constructor(message: string, readonly line: number, readonly column: number) {
    super(`${message} at ${line}:${column}`);
    this.name = 'TextFormatError';
  }
}

/** A message: its fields in the order they were written. */
export class TextMessage {
  readonly kind = 'message';

  constructor(readonly fields: readonly TextField[]) {}

  /** Every value of a field, in order (empty when absent). */
  all(name: string): TextValue[] {
    return this.fields.filter((f) => f.name === name).map((f) => f.value);
  }

  has(name: string): boolean {
    return this.fields.some((f) => f.name === name);
  }

  /** A singular field: undefined when absent, an error when given more than once. */
  get(name: string): TextValue | undefined {
    const values = this.all(name);
    if (values.length > 1) throw new Error(`field '${name}' is given ${values.length} times`);
    return values[0];
  }

  /** A singular message field. */
  message(name: string): TextMessage | undefined {
    const value = this.get(name);
    if (value === undefined) return undefined;
    if (value.kind !== 'message') throw new Error(`field '${name}' is not a message`);
    return value;
  }

  /** A repeated message field. */
  messages(name: string): TextMessage[] {
    return this.all(name).map((value) => {
      if (value.kind !== 'message') throw new Error(`field '${name}' is not a message`);
      return value;
    });
  }

  /** A singular string field, decoded as UTF-8. */
  string(name: string): string | undefined {
    const value = this.get(name);
    return value === undefined ? undefined : textString(value);
  }

  /** A singular bool field. */
  bool(name: string): boolean | undefined {
    const value = this.get(name);
    return value === undefined ? undefined : textBool(value);
  }
}

const utf8 = new TextDecoder('utf-8', { fatal: true });
const encoder = new TextEncoder();

/** A string value decoded as UTF-8 (an error if it is not valid UTF-8). */
export function textString(value: TextValue): string {
  return utf8.decode(textBytes(value));
}

/** A string value's bytes. */
export function textBytes(value: TextValue): Uint8Array {
  if (value.kind !== 'string') throw new Error(`expected a string, got ${describe(value)}`);
  return value.bytes;
}

/** An integer value (decimal, hex or octal, signed) as a bigint. */
export function textInteger(value: TextValue): bigint {
  if (value.kind !== 'number') throw new Error(`expected an integer, got ${describe(value)}`);
  const negative = value.text.startsWith('-');
  const digits = negative ? value.text.slice(1) : value.text;
  let magnitude: bigint;
  if (/^0[xX][0-9a-fA-F]+$/.test(digits)) magnitude = BigInt(digits);
  else if (/^0[0-7]+$/.test(digits)) magnitude = BigInt('0o' + digits.slice(1));
  else if (/^(0|[1-9][0-9]*)$/.test(digits)) magnitude = BigInt(digits);
  else throw new Error(`expected an integer, got '${value.text}'`);
  return negative ? -magnitude : magnitude;
}

/** A floating-point value: any number, or inf/infinity/nan (either case, with an optional `-`). */
export function textFloat(value: TextValue): number {
  if (value.kind === 'string' || value.kind === 'message') throw new Error(`expected a number, got ${describe(value)}`);
  const negative = value.text.startsWith('-');
  const body = (negative ? value.text.slice(1) : value.text).toLowerCase();
  let magnitude: number;
  if (body === 'inf' || body === 'infinity') magnitude = Infinity;
  else if (body === 'nan') magnitude = NaN;
  else if (value.kind === 'identifier') throw new Error(`expected a number, got '${value.text}'`);
  else if (/^0x[0-9a-f]+$/.test(body) || /^0[0-7]+$/.test(body)) magnitude = Number(textInteger({ kind: 'number', text: body }));
  else magnitude = Number(body.endsWith('f') ? body.slice(0, -1) : body);
  if (Number.isNaN(magnitude) && body !== 'nan') throw new Error(`expected a number, got '${value.text}'`);
  return negative ? -magnitude : magnitude;
}

/** A bool value: true/false/t/f (any case) or 1/0. */
export function textBool(value: TextValue): boolean {
  if (value.kind === 'identifier' || value.kind === 'number') {
    const text = value.text.toLowerCase();
    if (text === 'true' || text === 't' || text === '1') return true;
    if (text === 'false' || text === 'f' || text === '0') return false;
  }
  throw new Error(`expected a bool, got ${describe(value)}`);
}

/** An enum value by name (an identifier), or by number. */
export function textEnum(value: TextValue): string | bigint {
  if (value.kind === 'identifier') return value.text;
  if (value.kind === 'number') return textInteger(value);
  throw new Error(`expected an enum value, got ${describe(value)}`);
}

function describe(value: TextValue): string {
  return value.kind === 'message' ? 'a message' : value.kind === 'string' ? 'a string' : `'${value.text}'`;
}

/** Parses one text-format message (a whole file). */
export function parseTextProto(source: string): TextMessage {
  return new Reader(source).file();
}

const SIMPLE_ESCAPES: Readonly<Record<string, number>> = {
  a: 0x07, b: 0x08, f: 0x0c, n: 0x0a, r: 0x0d, t: 0x09, v: 0x0b, '\\': 0x5c, "'": 0x27, '"': 0x22, '?': 0x3f,
};

const IDENTIFIER = /[A-Za-z_][A-Za-z0-9_]*/y;
const NUMBER = /(?:0[xX][0-9a-fA-F]+|(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?[fF]?)/y;

class Reader {
  private pos = 0;

  constructor(private readonly src: string) {}

  file(): TextMessage {
    const message = this.fields(null);
    this.skip();
    if (this.pos < this.src.length) this.fail(`unexpected '${this.src[this.pos]}'`);
    return message;
  }

  /** Fields up to `close` (or the end of input when close is null); consumes `close`. */
  private fields(close: string | null): TextMessage {
    const fields: TextField[] = [];
    for (;;) {
      this.skip();
      if (this.pos >= this.src.length) {
        if (close !== null) this.fail(`expected '${close}' before the end of input`);
        return new TextMessage(fields);
      }
      if (close !== null && this.src[this.pos] === close) {
        this.pos++;
        return new TextMessage(fields);
      }
      this.field(fields);
      this.skip();
      if (this.src[this.pos] === ',' || this.src[this.pos] === ';') this.pos++;
    }
  }

  private field(into: TextField[]): void {
    const name = this.fieldName();
    this.skip();
    const colon = this.src[this.pos] === ':';
    if (colon) {
      this.pos++;
      this.skip();
    }
    const c = this.src[this.pos];
    if (c === '{' || c === '<') {
      into.push({ name, value: this.message() });
      return;
    }
    if (!colon) this.fail(`expected ':' or a message after '${name}'`);
    if (c === '[') {
      this.pos++;
      this.skip();
      if (this.src[this.pos] === ']') {
        this.pos++;
        return;
      }
      for (;;) {
        this.skip();
        const d = this.src[this.pos];
        into.push({ name, value: d === '{' || d === '<' ? this.message() : this.scalar() });
        this.skip();
        if (this.src[this.pos] === ',') {
          this.pos++;
          continue;
        }
        if (this.src[this.pos] === ']') {
          this.pos++;
          return;
        }
        this.fail("expected ',' or ']' in a list value");
      }
    }
    into.push({ name, value: this.scalar() });
  }

  private fieldName(): string {
    if (this.src[this.pos] === '[') {
      const end = this.src.indexOf(']', this.pos);
      if (end < 0) this.fail("unterminated '[' in a field name");
      const name = this.src.slice(this.pos, end + 1).replace(/\s+/g, '');
      if (!/^\[[A-Za-z0-9_.\/]+\]$/.test(name)) this.fail(`invalid field name ${name}`);
      this.pos = end + 1;
      return name;
    }
    const name = this.match(IDENTIFIER);
    if (name === null) this.fail(this.pos >= this.src.length ? 'unexpected end of input' : `unexpected '${this.src[this.pos]}'`);
    return name;
  }

  private message(): TextMessage {
    const open = this.src[this.pos++];
    return this.fields(open === '{' ? '}' : '>');
  }

  private scalar(): TextScalar {
    const c = this.src[this.pos];
    if (c === '"' || c === "'") {
      const parts: Uint8Array[] = [];
      do {
        parts.push(this.stringLiteral());
        this.skip();
      } while (this.src[this.pos] === '"' || this.src[this.pos] === "'");
      return { kind: 'string', bytes: concat(parts) };
    }
    let sign = '';
    if (c === '-') {
      sign = '-';
      this.pos++;
      this.skip();
    }
    const number = this.match(NUMBER);
    if (number !== null) {
      IDENTIFIER.lastIndex = this.pos;
      if (IDENTIFIER.test(this.src) || this.src[this.pos] === '.') this.fail(`invalid number '${number}${this.src[this.pos]}'`);
      return { kind: 'number', text: sign + number };
    }
    const word = this.match(IDENTIFIER);
    if (word === null) this.fail(this.pos >= this.src.length ? 'expected a value before the end of input' : `unexpected '${this.src[this.pos]}'`);
    if (sign) {
      if (!/^(inf|infinity|nan)$/i.test(word)) this.fail(`'-' before '${word}'`);
      return { kind: 'number', text: sign + word };
    }
    return { kind: 'identifier', text: word };
  }

  private stringLiteral(): Uint8Array {
    const quote = this.src[this.pos++];
    const out: number[] = [];
    for (;;) {
      if (this.pos >= this.src.length) this.fail('unterminated string');
      const c = this.src[this.pos];
      if (c === quote) {
        this.pos++;
        return Uint8Array.from(out);
      }
      if (c === '\n') this.fail('newline in a string');
      if (c !== '\\') {
        const cp = this.src.codePointAt(this.pos)!;
        this.pos += cp > 0xffff ? 2 : 1;
        pushCodePoint(out, cp);
        continue;
      }
      this.pos++;
      const e = this.src[this.pos];
      if (e === undefined) this.fail('unterminated string');
      if (e in SIMPLE_ESCAPES) {
        out.push(SIMPLE_ESCAPES[e]!);
        this.pos++;
      } else if (e >= '0' && e <= '7') {
        const digits = /[0-7]{1,3}/y;
        digits.lastIndex = this.pos;
        const oct = digits.exec(this.src)![0];
        const byte = parseInt(oct, 8);
        if (byte > 0xff) this.fail(`octal escape \\${oct} is over 255`);
        out.push(byte);
        this.pos += oct.length;
      } else if (e === 'x' || e === 'X') {
        const digits = /[0-9a-fA-F]{1,2}/y;
        digits.lastIndex = this.pos + 1;
        const hex = digits.exec(this.src)?.[0];
        if (hex === undefined) this.fail('\\x without hex digits');
        out.push(parseInt(hex, 16));
        this.pos += 1 + hex.length;
      } else if (e === 'u' || e === 'U') {
        let cp = this.hexDigits(e === 'u' ? 4 : 8);
        if (e === 'u' && cp >= 0xd800 && cp <= 0xdbff && this.src.startsWith('\\u', this.pos)) {
          const save = this.pos;
          this.pos++;
          const low = this.hexDigits(4);
          if (low >= 0xdc00 && low <= 0xdfff) cp = 0x10000 + ((cp - 0xd800) << 10) + (low - 0xdc00);
          else this.pos = save;
        }
        if (cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) this.fail(`invalid code point U+${cp.toString(16).toUpperCase()}`);
        pushCodePoint(out, cp);
      } else {
        this.fail(`unknown escape \\${e}`);
      }
    }
  }

  /** At the `u`/`U` of an escape: reads exactly `count` hex digits after it. */
  private hexDigits(count: number): number {
    const text = this.src.slice(this.pos + 1, this.pos + 1 + count);
    if (!new RegExp(`^[0-9a-fA-F]{${count}}$`).test(text)) this.fail(`\\${this.src[this.pos]} needs ${count} hex digits`);
    this.pos += 1 + count;
    return parseInt(text, 16);
  }

  private match(re: RegExp): string | null {
    re.lastIndex = this.pos;
    const m = re.exec(this.src);
    if (m === null) return null;
    this.pos += m[0].length;
    return m[0];
  }

  /** Skips whitespace and `#` comments. */
  private skip(): void {
    for (;;) {
      const c = this.src[this.pos];
      if (c === ' ' || c === '\t' || c === '\n' || c === '\r' || c === '\f' || c === '\v') this.pos++;
      else if (c === '#') {
        const end = this.src.indexOf('\n', this.pos);
        this.pos = end < 0 ? this.src.length : end + 1;
      } else return;
    }
  }

  private fail(message: string): never {
    let line = 1;
    let column = 1;
    for (let i = 0; i < this.pos && i < this.src.length; i++) {
      if (this.src[i] === '\n') {
        line++;
        column = 1;
      } else column++;
    }
    throw new TextFormatError(message, line, column);
  }
}

function pushCodePoint(out: number[], cp: number): void {
  for (const byte of encoder.encode(String.fromCodePoint(cp))) out.push(byte);
}

function concat(parts: Uint8Array[]): Uint8Array {
  if (parts.length === 1) return parts[0]!;
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}
