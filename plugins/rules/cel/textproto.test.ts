import { expect } from 'chai';
import { parseTextProto, textBool, textBytes, textEnum, textFloat, textInteger, textString, TextFormatError, TextMessage } from './textproto.js';

const bytesOf = (source: string): number[] => [...textBytes(parseTextProto(`v: ${source}`).get('v')!)];

describe('protobuf text format reader', () => {
  it('reads scalar fields, nested messages with and without a colon, and repeated fields in order', () => {
    const root = parseTextProto(`
      name: "basic"
      section {
        name: 'one'
        test: { name: "a" expr: "1 + 1" value: { int64_value: 2 } }
        test < name: "b" >
      }
      section { name: "two" }
    `);
    expect(root.string('name')).to.equal('basic');
    const sections = root.messages('section');
    expect(sections.map((s) => s.string('name'))).to.deep.equal(['one', 'two']);
    const tests = sections[0]!.messages('test');
    expect(tests.map((t) => t.string('name'))).to.deep.equal(['a', 'b']);
    expect(tests[0]!.string('expr')).to.equal('1 + 1');
    expect(textInteger(tests[0]!.message('value')!.get('int64_value')!)).to.equal(2n);
    expect(sections[1]!.messages('test')).to.deep.equal([]);
    expect(root.get('absent')).to.equal(undefined);
    expect(root.has('section')).to.equal(true);
  });

  it('accepts , and ; after fields, list values, bracketed names, and rejects a singular read of a repeated field', () => {
    const root = parseTextProto(`a: 1, a: 2; b: [3, 4] c: [] d: [{ x: 1 }, { x: 2 }] [type.googleapis.com/x.Y] { z: 1 }`);
    expect(root.all('a').map(textInteger)).to.deep.equal([1n, 2n]);
    expect(root.all('b').map(textInteger)).to.deep.equal([3n, 4n]);
    expect(root.all('c')).to.deep.equal([]);
    expect(root.messages('d').map((m) => textInteger(m.get('x')!))).to.deep.equal([1n, 2n]);
    expect(root.message('[type.googleapis.com/x.Y]')).to.be.instanceOf(TextMessage);
    expect(() => root.get('a')).to.throw(/2 times/);
  });

  it('skips # comments, including ones inside messages and at the end of input', () => {
    const root = parseTextProto('# header\nname: "x" # trailing\nm { # open\n  k: 1 ## twice\n}\n# end');
    expect(root.string('name')).to.equal('x');
    expect(textInteger(root.message('m')!.get('k')!)).to.equal(1n);
    expect(parseTextProto('s: "a#b"').string('s')).to.equal('a#b');
  });

  it('reads both quote styles with C escapes', () => {
    const root = parseTextProto(String.raw`a: "\a\b\f\n\r\t\v\"\'\\\?" b: '"it\'s"'`);
    expect(root.string('a')).to.equal('\x07\b\f\n\r\t\v"\'\\?');
    expect(root.string('b')).to.equal(`"it's"`);
  });

  it('reads octal and hex escapes as bytes, and \\u / \\U as UTF-8', () => {
    expect(bytesOf(String.raw`"\000\377\303\277\7\12"`)).to.deep.equal([0, 255, 0xc3, 0xbf, 7, 10]);
    expect(bytesOf(String.raw`"\x00\xff\xF\x41"`)).to.deep.equal([0, 255, 15, 0x41]);
    expect(bytesOf(String.raw`"\u00ff"`)).to.deep.equal([0xc3, 0xbf]);
    expect(bytesOf(String.raw`"\U0001F431"`)).to.deep.equal([0xf0, 0x9f, 0x90, 0xb1]);
    expect(bytesOf(String.raw`"\ud83d\udc31"`)).to.deep.equal([0xf0, 0x9f, 0x90, 0xb1]);
    expect(textString(parseTextProto(String.raw`v: "\xe2\x9c\x8c"`).get('v')!)).to.equal('\u270c');
    expect(bytesOf('"ÿ🐱"')).to.deep.equal([0xc3, 0xbf, 0xf0, 0x9f, 0x90, 0xb1]);
  });

  it('concatenates adjacent string literals', () => {
    expect(parseTextProto(`v: "ab" 'cd'\n  "ef" w: 1`).string('v')).to.equal('abcdef');
  });

  it('refuses invalid UTF-8 when a string is read as text, but keeps the bytes', () => {
    const v = parseTextProto(String.raw`v: "\377"`).get('v')!;
    expect([...textBytes(v)]).to.deep.equal([255]);
    expect(() => textString(v)).to.throw();
  });

  it('reads integers exactly: signs, hex, octal and 64-bit limits', () => {
    const ints = (s: string) => textInteger(parseTextProto(`v: ${s}`).get('v')!);
    expect(ints('0')).to.equal(0n);
    expect(ints('-12')).to.equal(-12n);
    expect(ints('- 12')).to.equal(-12n);
    expect(ints('0x1F')).to.equal(31n);
    expect(ints('-0x10')).to.equal(-16n);
    expect(ints('017')).to.equal(15n);
    expect(ints('9223372036854775807')).to.equal(9223372036854775807n);
    expect(ints('-9223372036854775808')).to.equal(-9223372036854775808n);
    expect(ints('18446744073709551615')).to.equal(18446744073709551615n);
    expect(() => ints('1.5')).to.throw(/integer/);
    expect(() => ints('"1"')).to.throw(/integer/);
  });

  it('reads floats: fractions, exponents, an f suffix, inf and nan', () => {
    const float = (s: string) => textFloat(parseTextProto(`v: ${s}`).get('v')!);
    expect(float('0')).to.equal(0);
    expect(float('9.8')).to.equal(9.8);
    expect(float('-1.5e3')).to.equal(-1500);
    expect(float('1E-2')).to.equal(0.01);
    expect(float('.5')).to.equal(0.5);
    expect(float('5.')).to.equal(5);
    expect(float('2.5f')).to.equal(2.5);
    expect(float('-0')).to.equal(-0);
    expect(float('inf')).to.equal(Infinity);
    expect(float('-Infinity')).to.equal(-Infinity);
    expect(float('nan')).to.be.NaN;
    expect(float('-nan')).to.be.NaN;
    expect(() => float('NULL_VALUE')).to.throw(/number/);
  });

  it('reads identifiers as enums and bools', () => {
    const root = parseTextProto('p: INT64 n: 0 t: true f: false');
    expect(textEnum(root.get('p')!)).to.equal('INT64');
    expect(textEnum(root.get('n')!)).to.equal(0n);
    expect(textBool(root.get('t')!)).to.equal(true);
    expect(textBool(root.get('f')!)).to.equal(false);
    expect(textBool(root.get('n')!)).to.equal(false);
    expect(root.bool('t')).to.equal(true);
    expect(() => textBool(root.get('p')!)).to.throw(/bool/);
  });

  it('reports syntax errors with a line and column', () => {
    const fails = (source: string, pattern: RegExp) => {
      let error: unknown;
      try {
        parseTextProto(source);
      } catch (e) {
        error = e;
      }
      expect(error, source).to.be.instanceOf(TextFormatError);
      expect((error as Error).message, source).to.match(pattern);
    };
    fails('a { b: 1', /expected '}' before the end of input/);
    fails('a: 1 }', /unexpected '}' at 1:6/);
    fails('a 1', /expected ':' or a message/);
    fails('a: "x\ny"', /newline in a string at 1:6/);
    fails('a: "abc', /unterminated string/);
    fails('a: "\\q"', /unknown escape/);
    fails('a: "\\u12"', /needs 4 hex digits/);
    fails('a: "\\x"', /without hex digits/);
    fails('a: "\\400"', /over 255/);
    fails('a: 12abc', /invalid number/);
    fails('a: -FOO', /'-' before 'FOO'/);
    fails('a:', /expected a value before the end of input/);
    fails('a: [1 2]', /expected ',' or ']'/);
    fails('\n\n  1: 2', /unexpected '1' at 3:3/);
  });

  it('reads an empty input as an empty message', () => {
    expect(parseTextProto('').fields).to.deep.equal([]);
    expect(parseTextProto('  # only a comment\n').fields).to.deep.equal([]);
  });

  it('reads a value with a string-typed accessor only when it is a string, and a message accessor only when a message', () => {
    const root = parseTextProto('n: 1 m {}');
    expect(() => root.string('n')).to.throw(/string/);
    expect(() => root.message('n')).to.throw(/not a message/);
    expect(() => root.messages('n')).to.throw(/not a message/);
  });
});
