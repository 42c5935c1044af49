import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import fc from 'fast-check';
import { nodeSha256Hex } from '../engine/native-hash.js';
import { CanonicalJsonError } from './canonical-json.js';
import { recordFieldsArbitrary } from './fixtures/record-arbitrary.js';
import { FIXTURES_DIR } from './fixtures/vectors-path.js';
import type { JsonObject } from './json.js';
import { canonicalRecordContent, computeRecordId, hashedCanonicalJson, isRecordId, RECORD_ID_PATTERN } from './record-id.js';
import { HASHED_FIELDS, type RecordFields } from './record.js';
import { nobleSha256Hex } from './sha256.js';
import { validateRecordInput } from './validate-record.js';

interface GoldenCase {
  name: string;
  record: RecordFields;
  canonical: string;
  canonical_utf8_hex: string;
  id: string;
}

const GOLDEN: GoldenCase[] = JSON.parse(readFileSync(join(FIXTURES_DIR, 'record-ids.json'), 'utf8')).cases;

const BASE: RecordFields = {
  parents: [],
  thread: 'th_' + 'ab'.repeat(32),
  actor: 'did:sync:user:alice',
  act: 'KNOW',
  body: { topic: 'status', observation: 'green', n: 1 },
  clock: 3,
  data_type: 'SCALAR',
  judged_by: null,
};

/** The same JSON value with every object's keys inserted in reverse order. */
function reverseKeys<T>(value: T): T {
  if (Array.isArray(value)) return value.map(reverseKeys) as T;
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).reverse().map(([k, v]) => [k, reverseKeys(v)])) as T;
  }
  return value;
}

describe('record id', () => {
  describe('golden fixture (core/records/fixtures/record-ids.json)', () => {
    it('has cases', () => {
      expect(GOLDEN.length).to.be.greaterThan(4);
    });

    for (const golden of GOLDEN) {
      describe(golden.name, () => {
        it('the record passes ingest validation', () => {
          expect(validateRecordInput(golden.record)).to.include({ ok: true });
        });

        it('hashedCanonicalJson gives the pinned canonical text and UTF-8 bytes', () => {
          const canonical = hashedCanonicalJson(golden.record);
          expect(canonical).to.equal(golden.canonical);
          expect(Buffer.from(canonical, 'utf8').toString('hex')).to.equal(golden.canonical_utf8_hex);
        });

        it('computeRecordId gives the pinned id with the noble and the node:crypto hash', () => {
          expect(computeRecordId(golden.record)).to.equal(golden.id);
          expect(computeRecordId(golden.record, nobleSha256Hex)).to.equal(golden.id);
          expect(computeRecordId(golden.record, nodeSha256Hex)).to.equal(golden.id);
        });
      });
    }
  });

  it('noble and node:crypto give identical ids for generated records (unicode bodies)', () => {
    fc.assert(
      fc.property(recordFieldsArbitrary, (record) => {
        const id = computeRecordId(record, nobleSha256Hex);
        expect(id).to.match(RECORD_ID_PATTERN);
        expect(computeRecordId(record, nodeSha256Hex)).to.equal(id);
      }),
      { numRuns: 400 },
    );
  });

  describe('canonicalRecordContent', () => {
    it('gives exactly hashedCanonicalJson and frozen canonical copies of body and parents, on generated records', () => {
      // Index-like keys too: JS enumerates those first, the canonical text sorts them as strings.
      const indexKeyed = fc.dictionary(fc.oneof(fc.nat(2000).map(String), fc.string({ maxLength: 3 })), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 6 });
      fc.assert(
        fc.property(recordFieldsArbitrary, indexKeyed, (generated, extra) => {
          const record = { ...generated, body: { ...generated.body, extra } as JsonObject };
          const content = canonicalRecordContent(record);
          expect(content.text).to.equal(hashedCanonicalJson(record));
          expect(content.body).to.deep.equal(JSON.parse(JSON.stringify(record.body)));
          expect(content.parents).to.deep.equal(record.parents);
          expect(Object.isFrozen(content.body) && Object.isFrozen(content.parents)).to.equal(true);
        }),
        { numRuns: 300 },
      );
    });

    it('reports refusals with the same paths and messages as hashedCanonicalJson', () => {
      for (const bad of [
        { ...BASE, body: { a: [1, { b: Number.POSITIVE_INFINITY }] } },
        { ...BASE, actor: 'did:sync:user:\ud800' },
        { ...BASE, parents: ['x', undefined as unknown as string] },
      ]) {
        let expected: unknown;
        let actual: unknown;
        try {
          hashedCanonicalJson(bad);
        } catch (error) {
          expected = error;
        }
        try {
          canonicalRecordContent(bad);
        } catch (error) {
          actual = error;
        }
        expect(actual).to.be.instanceOf(CanonicalJsonError);
        expect((actual as CanonicalJsonError).path).to.equal((expected as CanonicalJsonError).path);
        expect((actual as CanonicalJsonError).message).to.equal((expected as CanonicalJsonError).message);
      }
    });
  });

  it('the id is a pure function of the seven hashed fields: judged_by and an echoed id are ignored', () => {
    fc.assert(
      fc.property(recordFieldsArbitrary, fc.option(fc.string(), { nil: null }), (record, judgedBy) => {
        const judged: RecordFields = { ...record, judged_by: judgedBy };
        const withId = { ...record, id: 'f'.repeat(64) };
        expect(computeRecordId(judged)).to.equal(computeRecordId(record));
        expect(computeRecordId(withId)).to.equal(computeRecordId(record));
        expect(Object.keys(JSON.parse(hashedCanonicalJson(withId)))).to.deep.equal([...HASHED_FIELDS]);
      }),
      { numRuns: 200 },
    );
  });

  it('key order of the input (record and body, at every depth) is irrelevant', () => {
    fc.assert(
      fc.property(recordFieldsArbitrary, (record) => {
        expect(computeRecordId(reverseKeys(record))).to.equal(computeRecordId(record));
      }),
      { numRuns: 200 },
    );
  });

  it('parents order matters', () => {
    const a = '1'.repeat(64);
    const b = '2'.repeat(64);
    expect(computeRecordId({ ...BASE, parents: [a, b] })).not.to.equal(computeRecordId({ ...BASE, parents: [b, a] }));
  });

  describe('every hashed field changes the id', () => {
    const changes: Array<[string, Partial<RecordFields>]> = [
      ['parents', { parents: ['0'.repeat(64)] }],
      ['thread', { thread: 'th_' + 'cd'.repeat(32) }],
      ['actor', { actor: 'did:sync:user:bob' }],
      ['act', { act: 'LEARN' }],
      ['body', { body: { topic: 'status', observation: 'red', n: 1 } }],
      ['clock (two records that differ only in clock are distinct)', { clock: 4 }],
      ['data_type', { data_type: 'VOID' }],
    ];
    const baseId = computeRecordId(BASE);
    for (const [field, change] of changes) {
      it(field, () => {
        expect(computeRecordId({ ...BASE, ...change })).not.to.equal(baseId);
      });
    }
  });

  it('body number forms that denote the same double hash identically (1.0 / 1, 1e2 / 100, -0 / 0)', () => {
    const id = (body: JsonObject) => computeRecordId({ ...BASE, body });
    expect(id(JSON.parse('{"x":1.0,"y":1e2,"z":-0}'))).to.equal(id({ x: 1, y: 100, z: 0 }));
  });

  it('refuses a body canonical JSON cannot represent, with CanonicalJsonError', () => {
    expect(() => computeRecordId({ ...BASE, body: { x: Number.NaN } })).to.throw(CanonicalJsonError);
    expect(() => computeRecordId({ ...BASE, body: { x: '\ud800' } })).to.throw(CanonicalJsonError);
    expect(() => computeRecordId({ ...BASE, body: JSON.parse('{"x":1e400}') })).to.throw(CanonicalJsonError);
  });

  describe('isRecordId', () => {
    const cases: Array<[unknown, boolean]> = [
      ['0'.repeat(64), true],
      ['a'.repeat(64), true],
      ['A'.repeat(64), false],
      ['a'.repeat(63), false],
      ['a'.repeat(65), false],
      ['a'.repeat(64) + '\n', false],
      ['g'.repeat(64), false],
      ['th_' + 'a'.repeat(64), false],
      [123, false],
      [null, false],
    ];
    for (const [value, expected] of cases) {
      it(`${JSON.stringify(value)} → ${expected}`, () => {
        expect(isRecordId(value)).to.equal(expected);
      });
    }
  });
});
