import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { expect } from 'chai';
import fc from 'fast-check';
import { CANONICAL_JSON_MAX_DEPTH, CanonicalJsonError, canonicalForm, canonicalJson } from './canonical-json.js';
import { vectorsPath } from './fixtures/vectors-path.js';

const JCS = vectorsPath('01-jcs-rfc8785');

function hexToBytes(hex: string): Buffer {
  const clean = hex.replace(/\s+/g, '');
  if (clean.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(clean)) throw new Error(`not hex: ${hex.slice(0, 40)}`);
  return Buffer.from(clean, 'hex');
}

function utf8(text: string): Buffer {
  return Buffer.from(text, 'utf8');
}

/** The double whose IEEE-754 binary64 bit pattern is `hex` (vectors README, "How a test should use them" 3). */
function doubleFromBits(hex: string): number {
  return new Float64Array(new BigUint64Array([BigInt('0x' + hex)]).buffer)[0]!;
}

/** `depth` arrays around a scalar: the scalar sits at depth `depth` (the top value is depth 0). */
function nestedArrays(depth: number): unknown {
  let value: unknown = 0;
  for (let i = 0; i < depth; i++) value = [value];
  return value;
}

function nestedObjects(depth: number): unknown {
  let value: unknown = 0;
  for (let i = 0; i < depth; i++) value = { k: value };
  return value;
}

function expectRefused(value: unknown): CanonicalJsonError {
  let caught: unknown;
  try {
    canonicalJson(value);
  } catch (error) {
    caught = error;
  }
  expect(caught, 'canonicalJson should have thrown').to.be.instanceOf(CanonicalJsonError);
  return caught as CanonicalJsonError;
}

/**
 * An independent, member-by-member RFC 8785 writer for already valid JSON
 * values: the reference the native-stringify implementation is checked against.
 */
function referenceJcs(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(referenceJcs).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const members = Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${referenceJcs((value as Record<string, unknown>)[key])}`);
    return `{${members.join(',')}}`;
  }
  return JSON.stringify(value);
}

function isDeepFrozen(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return true;
  return Object.isFrozen(value) && Object.values(value).every(isDeepFrozen);
}

function caseNames(dir: string): string[] {
  return readdirSync(join(dir, 'input'))
    .filter((name) => name.endsWith('.json'))
    .map((name) => basename(name, '.json'))
    .sort();
}

function runJcsCase(dir: string, name: string): void {
  const input = readFileSync(join(dir, 'input', `${name}.json`), 'utf8');
  const actual = utf8(canonicalJson(JSON.parse(input)));
  const expected = readFileSync(join(dir, 'output', `${name}.json`));
  expect(actual.toString('hex')).to.equal(expected.toString('hex'));
  const expectedFromHex = hexToBytes(readFileSync(join(dir, 'outhex', `${name}.txt`), 'utf8'));
  expect(actual.equals(expectedFromHex), `outhex/${name}.txt bytes`).to.equal(true);
}

describe('canonicalJson', () => {
  describe('RFC 8785 vectors (cyberphone/json-canonicalization testdata)', () => {
    const names = caseNames(JCS);

    it('finds the six upstream cases', () => {
      expect(names).to.deep.equal(['arrays', 'french', 'structures', 'unicode', 'values', 'weird']);
    });

    for (const name of names) {
      it(`${name}.json: input → exact output bytes and outhex bytes`, () => runJcsCase(JCS, name));
    }

    it('NON-NORMATIVE (unmerged upstream PR) simpleString.json: a top-level string', () => {
      const extra = join(JCS, 'extra-unmerged-pr');
      expect(caseNames(extra)).to.deep.equal(['simpleString']);
      runJcsCase(extra, 'simpleString');
    });
  });

  describe('ES6 number serialization (es6testfile100m.txt excerpts)', () => {
    const numbersDir = join(JCS, 'numbers');
    const files = readdirSync(numbersDir).filter((name) => name.endsWith('.txt')).sort();

    it('has the two excerpts, 3,000 lines in all', () => {
      expect(files).to.deep.equal(['es6testfile100m-lines-00001-01000.txt', 'es6testfile100m-lines-02169-04168.txt']);
      const lines = files.flatMap((file) => readFileSync(join(numbersDir, file), 'utf8').split('\n').filter((l) => l !== ''));
      expect(lines).to.have.length(3000);
    });

    it('the first excerpt has the checksum upstream publishes for lines 1-1000', () => {
      const bytes = readFileSync(join(numbersDir, 'es6testfile100m-lines-00001-01000.txt'));
      expect(createHash('sha256').update(bytes).digest('hex')).to.equal('be18b62b6f69cdab33a7e0dae0d9cfa869fda80ddc712221570f9f40a5878687');
    });

    it('the second excerpt has the checksum recorded in the README', () => {
      const bytes = readFileSync(join(numbersDir, 'es6testfile100m-lines-02169-04168.txt'));
      expect(createHash('sha256').update(bytes).digest('hex')).to.equal('1192e2212248193ae9ecc1cfcb63963ee7bf9abeae13a68effbc19a279dcf658');
    });

    for (const file of files) {
      it(`${file}: every line's double serializes to the expected text`, () => {
        const lines = readFileSync(join(numbersDir, file), 'utf8').split('\n').filter((l) => l !== '');
        const failures: string[] = [];
        for (const line of lines) {
          const [bits, expected] = line.split(',');
          const actual = canonicalJson(doubleFromBits(bits!));
          if (actual !== expected) failures.push(`${bits}: expected ${expected}, got ${actual}`);
        }
        expect(failures.slice(0, 20), `${failures.length} of ${lines.length} lines differ`).to.deep.equal([]);
        expect(lines.length).to.be.greaterThan(999);
      });
    }
  });

  describe('numbers', () => {
    for (const value of [Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY]) {
      it(`refuses ${value}, at top level and nested`, () => {
        expectRefused(value);
        expectRefused([1, value]);
        expectRefused({ a: { b: value } });
      });
    }

    it('writes -0 as "0" (top level, in arrays, in objects)', () => {
      expect(canonicalJson(-0)).to.equal('0');
      expect(canonicalJson([-0, 0])).to.equal('[0,0]');
      expect(canonicalJson({ z: -0 })).to.equal('{"z":0}');
      expect(canonicalJson(doubleFromBits('8000000000000000'))).to.equal('0');
    });

    it('uses the ECMAScript forms: exponent from 1e21 and below 1e-6, no trailing zeros', () => {
      expect(canonicalJson([1e21, 1e20, 1e-7, 0.000001, 56.0, 4.5, 1e30, -1.5e-9])).to.equal('[1e+21,100000000000000000000,1e-7,0.000001,56,4.5,1e+30,-1.5e-9]');
      expect(canonicalJson(Number.MAX_SAFE_INTEGER)).to.equal('9007199254740991');
      expect(canonicalJson(Number.MIN_VALUE)).to.equal('5e-324');
      expect(canonicalJson(Number.MAX_VALUE)).to.equal('1.7976931348623157e+308');
    });
  });

  describe('strings', () => {
    it('uses short escapes for \\b \\t \\n \\f \\r and lowercase \\u00hh for other C0 controls', () => {
      expect(canonicalJson('\b\t\n\f\r')).to.equal('"\\b\\t\\n\\f\\r"');
      expect(canonicalJson('\u0000\u000f\u001f')).to.equal('"\\u0000\\u000f\\u001f"');
      expect(canonicalJson('"\\')).to.equal('"\\"\\\\"');
    });

    it('passes DEL, C1 controls, "/", U+2028, U+2029 and non-ASCII through raw', () => {
      const text = '\u007f\u0080\u009f/\u2028\u2029é€😂';
      expect(canonicalJson(text)).to.equal(`"${text}"`);
      expect(utf8(canonicalJson('\u2028')).toString('hex')).to.equal('22e280a822');
    });

    it('does not normalize Unicode (A + combining ring stays two code points)', () => {
      expect(canonicalJson('A\u030a')).to.equal('"A\u030a"');
      expect(canonicalJson('A\u030a')).not.to.equal(canonicalJson('\u00c5'));
    });

    it('accepts a well-formed surrogate pair', () => {
      expect(canonicalJson('\ud83d\ude02')).to.equal('"😂"');
      expect(canonicalJson({ '\ud83d\ude02': 1 })).to.equal('{"😂":1}');
    });

    const lone: Array<[string, string]> = [
      ['a lone high surrogate', '\ud800'],
      ['a lone low surrogate', '\udc00'],
      ['a high surrogate at the end', 'abc\ud83d'],
      ['a pair in the wrong order', '\ude02\ud83d'],
      ['a high surrogate followed by text', '\ud83dx'],
    ];
    for (const [what, text] of lone) {
      it(`refuses ${what} in a value and in a key`, () => {
        expectRefused(text);
        expectRefused([text]);
        expectRefused({ ok: text });
        expectRefused({ [text]: 1 });
        expectRefused({ nested: { [text]: 'v' } });
      });
    }
  });

  describe('objects', () => {
    it('sorts keys by UTF-16 code units, not code points (weird.json: 😂 before U+FB33)', () => {
      expect(canonicalJson({ '\ufb33': 2, '\ud83d\ude02': 1 })).to.equal('{"😂":1,"\ufb33":2}');
    });

    it('sorts keys without locale rules, at every depth, and keeps array order', () => {
      expect(canonicalJson({ b: [3, 1, 2], a: { z: 1, Z: 2, é: 3, e: 4 }, B: null })).to.equal('{"B":null,"a":{"Z":2,"e":4,"z":1,"é":3},"b":[3,1,2]}');
    });

    it('gives the same bytes whatever the insertion order', () => {
      fc.assert(
        fc.property(fc.dictionary(fc.string({ unit: 'binary' }), fc.jsonValue({ stringUnit: 'binary' })), (object) => {
          const reversed = Object.fromEntries(Object.entries(object).reverse());
          expect(canonicalJson(reversed)).to.equal(canonicalJson(object));
        }),
        { numRuns: 200 },
      );
    });

    it('accepts objects without a prototype', () => {
      const bare = Object.create(null) as Record<string, unknown>;
      bare['b'] = 1;
      bare['a'] = true;
      expect(canonicalJson(bare)).to.equal('{"a":true,"b":1}');
    });

    it('writes an own "__proto__" key (as JSON.parse creates it) like any other key', () => {
      expect(canonicalJson(JSON.parse('{"__proto__":{"x":1},"a":0}'))).to.equal('{"__proto__":{"x":1},"a":0}');
    });

    it('sorts array-index keys as strings too, although JS enumerates them first and numerically', () => {
      const value = { b: 1, '10': 2, '9': 3, '-1': 4, '01': 5, '4294967295': 6, '4294967294': 7 };
      expect(canonicalJson(value)).to.equal('{"-1":4,"01":5,"10":2,"4294967294":7,"4294967295":6,"9":3,"b":1}');
      expect(canonicalJson({ nested: [{ '2': 'x', '10': 'y' }] })).to.equal('{"nested":[{"10":"y","2":"x"}]}');
    });

    it('matches an independent member-by-member writer on arbitrary JSON, index-like keys included', () => {
      const key = fc.oneof(fc.string({ unit: 'binary' }), fc.nat().map(String), fc.constantFrom('__proto__', '0', '00', '4294967295'));
      const json = fc.letrec((tie) => ({
        value: fc.oneof(
          { depthSize: 'small' },
          fc.oneof(fc.string({ unit: 'binary' }), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.boolean(), fc.constant(null)),
          fc.array(tie('value')),
          fc.dictionary(key, tie('value')),
        ),
      })).value;
      fc.assert(
        fc.property(json, (value) => {
          // JSON.parse gives the value the shape a client's body has ("__proto__" as an own key).
          const parsed: unknown = JSON.parse(JSON.stringify(value));
          expect(canonicalJson(parsed)).to.equal(referenceJcs(parsed));
        }),
        { numRuns: 500 },
      );
    });
  });

  describe('canonicalForm', () => {
    it('returns the canonical text and a deep-frozen copy in canonical member order, leaving the input alone', () => {
      const input = { z: [{ b: 1, a: -0 }], a: 'x', '10': true, '9': null };
      const form = canonicalForm(input);
      expect(form.text).to.equal(canonicalJson(input));
      expect(form.text).to.equal('{"10":true,"9":null,"a":"x","z":[{"a":0,"b":1}]}');
      expect(form.value).to.deep.equal({ '9': null, '10': true, a: 'x', z: [{ a: 0, b: 1 }] });
      const copy = form.value as { z: Array<Record<string, number>> };
      expect(Object.keys(copy.z[0]!)).to.deep.equal(['a', 'b']);
      expect(Object.is(copy.z[0]!['a'], 0), '-0 is stored as the 0 it is written as').to.equal(true);
      expect(isDeepFrozen(form.value)).to.equal(true);
      expect(Object.isFrozen(input) || Object.isFrozen(input.z) || Object.isFrozen(input.z[0])).to.equal(false);
      expect(form.value).not.to.equal(input);
      expect(copy.z).not.to.equal(input.z);
    });

    it('keeps an own "__proto__" member as a member of the copy, not as its prototype', () => {
      const form = canonicalForm(JSON.parse('{"__proto__":{"polluted":true},"a":1}'));
      const copy = form.value as Record<string, unknown>;
      expect(Object.getPrototypeOf(copy)).to.equal(Object.prototype);
      expect(Object.keys(copy)).to.deep.equal(['__proto__', 'a']);
      expect(({} as Record<string, unknown>)['polluted']).to.equal(undefined);
      expect(form.text).to.equal('{"__proto__":{"polluted":true},"a":1}');
    });

    it('refuses what canonicalJson refuses, with the same path', () => {
      expect(() => canonicalForm({ a: [0, { b: Number.NaN }] }))
        .to.throw(CanonicalJsonError)
        .with.property('path', '$.a[1].b');
    });
  });

  describe('refusals', () => {
    class Point {
      constructor(readonly x: number) {}
    }
    const nonPlain: Array<[string, unknown]> = [
      ['a Date (toJSON is not honoured)', new Date(0)],
      ['a Map', new Map([['a', 1]])],
      ['a Set', new Set([1])],
      ['a RegExp', /x/],
      ['a class instance', new Point(1)],
      ['a Uint8Array', new Uint8Array([1])],
      ['a boxed string', new String('x')],
    ];
    for (const [what, value] of nonPlain) {
      it(`refuses ${what}, at top level and nested`, () => {
        expectRefused(value);
        expectRefused({ v: value });
        expectRefused([value]);
      });
    }

    const nonJson: Array<[string, unknown]> = [
      ['undefined', undefined],
      ['a function', () => 1],
      ['a symbol', Symbol('s')],
      ['a bigint', 1n],
    ];
    for (const [what, value] of nonJson) {
      it(`refuses ${what}, at top level, as an object member and as an array element`, () => {
        expectRefused(value);
        expectRefused({ v: value });
        expectRefused([1, value]);
      });
    }

    it('refuses a hole in a sparse array', () => {
      // eslint-disable-next-line no-sparse-arrays
      expectRefused([1, , 3]);
    });

    it('reports the path of the offending value', () => {
      const error = expectRefused({ a: [0, { b: Number.NaN }] });
      expect(error.path).to.equal('$.a[1].b');
    });
  });

  describe('nesting', () => {
    it(`accepts a value at depth ${CANONICAL_JSON_MAX_DEPTH} and refuses one at depth ${CANONICAL_JSON_MAX_DEPTH + 1}`, () => {
      expect(canonicalJson(nestedArrays(CANONICAL_JSON_MAX_DEPTH))).to.equal('['.repeat(CANONICAL_JSON_MAX_DEPTH) + '0' + ']'.repeat(CANONICAL_JSON_MAX_DEPTH));
      expectRefused(nestedArrays(CANONICAL_JSON_MAX_DEPTH + 1));
      expect(() => canonicalJson(nestedObjects(CANONICAL_JSON_MAX_DEPTH))).not.to.throw();
      expectRefused(nestedObjects(CANONICAL_JSON_MAX_DEPTH + 1));
    });

    it('refuses very deep nesting with CanonicalJsonError, not a stack overflow', () => {
      expectRefused(nestedArrays(200_000));
      expectRefused(nestedObjects(200_000));
    });
  });

  describe('properties', () => {
    const json = fc.jsonValue({ stringUnit: 'binary', maxDepth: 6 });

    it('is idempotent through JSON.parse and round-trips the value', () => {
      fc.assert(
        fc.property(json, (value) => {
          const text = canonicalJson(value);
          expect(canonicalJson(JSON.parse(text))).to.equal(text);
          // JSON.stringify maps -0 to 0 just as canonical JSON does.
          expect(JSON.parse(text)).to.deep.equal(JSON.parse(JSON.stringify(value)));
        }),
        { numRuns: 300 },
      );
    });

    it('has no whitespace outside strings', () => {
      fc.assert(
        fc.property(json, (value) => {
          const text = canonicalJson(value);
          const outsideStrings = text.replace(/"(?:[^"\\]|\\.)*"/g, '""');
          expect(outsideStrings).not.to.match(/\s/);
        }),
        { numRuns: 300 },
      );
    });
  });
});
