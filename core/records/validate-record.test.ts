/**
 * One case per rule of spec §2.1 "Validation at ingest". Tests assert `ok`,
 * `field` and that the message names the field; never whole message texts.
 */
import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import fc from 'fast-check';
import { ACTS } from './acts.js';
import { DATA_TYPES } from './data-types.js';
import { recordFieldsArbitrary } from './fixtures/record-arbitrary.js';
import { vectorsPath } from './fixtures/vectors-path.js';
import { computeRecordId } from './record-id.js';
import { RECORD_FIELDS } from './record.js';
import { RESERVED_THREADS } from './reserved-threads.js';
import { MAX_BODY_DEPTH, MAX_CLOCK, MAX_JUDGED_BY_LENGTH, MAX_PARENTS, validateRecordInput } from './validate-record.js';

type Input = { [key: string]: unknown };

const ID_A = '0a'.repeat(32);
const ID_B = '0b'.repeat(32);
const ID_C = 'fe'.repeat(32);

function valid(): Input {
  return {
    parents: [ID_A, ID_B],
    thread: 'th_' + '3c'.repeat(32),
    actor: 'did:sync:user:alice',
    act: 'KNOW',
    body: { topic: 'status', observation: 'green' },
    clock: 0,
    data_type: 'SCALAR',
    judged_by: null,
  };
}

function withField(field: string, value: unknown): Input {
  return { ...valid(), [field]: value };
}

function without(field: string): Input {
  const input = valid();
  delete input[field];
  return input;
}

/** `levels` nested objects counting the body itself: body = level 1. */
function nestedBody(levels: number): Input {
  let value: Input = { leaf: true };
  for (let i = 1; i < levels; i++) value = { k: value };
  return value;
}

function expectRefused(input: unknown, field: string): string {
  const result = validateRecordInput(input);
  if (result.ok) expect.fail(`expected ${field} to be refused, but the record was accepted`);
  expect(result.field).to.equal(field);
  expect(result.message).to.include(field);
  return result.message;
}

function expectAccepted(input: unknown) {
  const result = validateRecordInput(input);
  if (!result.ok) expect.fail(`expected the record to be accepted, got ${result.field}: ${result.message}`);
  return result;
}

const DID_KEYS: string[] = Object.keys(
  JSON.parse(readFileSync(vectorsPath('03-did-key', 'w3c-ccg-did-method-key', 'ed25519-x25519.json'), 'utf8')),
);

describe('validateRecordInput', () => {
  it('accepts the valid base record and returns exactly the eight fields', () => {
    const result = expectAccepted(valid());
    expect(Object.keys(result.fields).sort()).to.deep.equal([...RECORD_FIELDS].sort());
    expect(result.fields).to.deep.equal(valid());
    expect(result.claimedId).to.equal(undefined);
  });

  it('accepts every generated valid record', () => {
    fc.assert(
      fc.property(recordFieldsArbitrary, (record) => {
        expect(validateRecordInput(record).ok).to.equal(true);
      }),
      { numRuns: 300 },
    );
  });

  describe('the record itself', () => {
    const notObjects: Array<[string, unknown]> = [
      ['null', null],
      ['an array', [valid()]],
      ['a string', JSON.stringify(valid())],
      ['a number', 1],
      ['undefined', undefined],
    ];
    for (const [what, input] of notObjects) {
      it(`refuses ${what} (field "record")`, () => expectRefused(input, 'record'));
    }
  });

  describe('all 8 fields present with correct types', () => {
    for (const field of ['thread', 'actor', 'act', 'body', 'clock', 'data_type']) {
      it(`refuses a record without ${field}`, () => expectRefused(without(field), field));
    }

    it('parents MAY be omitted → []', () => {
      expect(expectAccepted(without('parents')).fields.parents).to.deep.equal([]);
    });

    it('judged_by MAY be omitted → null', () => {
      expect(expectAccepted(without('judged_by')).fields.judged_by).to.equal(null);
    });

    it('parents and judged_by both omitted (the spec ingest examples) is accepted', () => {
      const input = without('parents');
      delete input['judged_by'];
      const result = expectAccepted(input);
      expect(result.fields.parents).to.deep.equal([]);
      expect(result.fields.judged_by).to.equal(null);
    });

    const wrongTypes: Array<[string, unknown, string?]> = [
      ['parents', 'not-an-array'],
      ['parents', { 0: ID_A }],
      ['parents', [1], 'parents[0]'],
      ['parents', [null], 'parents[0]'],
      ['thread', 42],
      ['thread', null],
      ['thread', ['th_' + '3c'.repeat(32)]],
      ['actor', 42],
      ['actor', null],
      ['actor', { did: 'did:sync:user:alice' }],
      ['act', 1],
      ['act', null],
      ['body', null],
      ['body', []],
      ['body', 'text'],
      ['body', 7],
      ['clock', '1'],
      ['clock', null],
      ['clock', true],
      ['data_type', 0],
      ['data_type', null],
      ['judged_by', 5],
      ['judged_by', {}],
      ['judged_by', ''],
      ['judged_by', 'x'.repeat(MAX_JUDGED_BY_LENGTH + 1)],
      ['judged_by', 'a\u0000b'],
    ];
    for (const [field, value, reported = field] of wrongTypes) {
      it(`refuses ${field} = ${JSON.stringify(value)?.slice(0, 40)}`, () => expectRefused(withField(field, value), reported));
    }

    it('accepts judged_by as a record id, and as any non-empty string up to the maximum length', () => {
      expect(expectAccepted(withField('judged_by', ID_C)).fields.judged_by).to.equal(ID_C);
      expectAccepted(withField('judged_by', 'x'.repeat(MAX_JUDGED_BY_LENGTH)));
    });

    // Omission is allowed (docs/decisions.md); an explicit null is a wrong type, not omission.
    it('refuses parents = null', () => {
      expectRefused(withField('parents', null), 'parents');
    });
  });

  describe('thread matches ^th_[0-9a-f]{64}$ or is reserved', () => {
    for (const reserved of RESERVED_THREADS) {
      it(`accepts the reserved thread ${reserved}`, () => expectAccepted(withField('thread', reserved)));
    }
    const bad: string[] = [
      '',
      'th_',
      'th_' + 'a'.repeat(63),
      'th_' + 'a'.repeat(65),
      'th_' + 'A'.repeat(64),
      'th_' + 'g'.repeat(64),
      'TH_' + 'a'.repeat(64),
      'a'.repeat(64),
      ' th_' + 'a'.repeat(64),
      'th_' + 'a'.repeat(64) + '\n',
      'th_unknown_registry',
      'TH_ENGINE_CONFIG',
      'th_engine_config ',
    ];
    for (const thread of bad) {
      it(`refuses ${JSON.stringify(thread.length > 20 ? thread.slice(0, 12) + '…' + thread.slice(-6) : thread)}`, () =>
        expectRefused(withField('thread', thread), 'thread'));
    }
  });

  describe('actor is valid DID syntax', () => {
    const good = [
      ...DID_KEYS,
      'did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK',
      'did:web:example.com',
      'did:web:w3c-ccg.github.io',
      'did:web:localhost%3A8443',
      'did:web:example.com%3A3000:user:alice',
      'did:web:w3c-ccg.github.io:user:alice',
      'did:sync:user:alice',
      'did:sync:agent:code-reviewer.v2',
      'did:sync:system:reconcile',
      'did:sync:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08',
    ];
    for (const did of good) {
      it(`accepts ${did}`, () => expectAccepted(withField('actor', did)));
    }
    const bad = [
      '',
      'did:',
      'did:sync:',
      'did:example:123',
      'did:plc:ewvi7nxzyoun6zhxrhs64oiz',
      'did:KEY:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK',
      'DID:sync:user:alice',
      'did:sync:robot:alice',
      'did:sync:user:',
      'did:sync:user:alice:extra',
      'did:sync:user:al ice',
      ' did:sync:user:alice',
      'did:sync:user:alice\n',
      'did:key:abc',
      'did:key:z0OIl',
      'did:web:-bad.example',
      'did:web:exa_mple.com',
      'did:web:example.com:',
      'did:web:example.com#key-1',
      'did:sync:user:' + 'a'.repeat(600),
    ];
    for (const did of bad) {
      it(`refuses ${JSON.stringify(did.length > 50 ? did.slice(0, 30) + '…' : did)}`, () => expectRefused(withField('actor', did), 'actor'));
    }
  });

  describe('act and data_type are in their enums', () => {
    for (const act of ACTS) it(`accepts act ${act}`, () => expectAccepted(withField('act', act)));
    for (const dataType of DATA_TYPES) it(`accepts data_type ${dataType}`, () => expectAccepted(withField('data_type', dataType)));
    for (const act of ['know', 'Know', 'JUDGE', '', ' KNOW']) it(`refuses act ${JSON.stringify(act)}`, () => expectRefused(withField('act', act), 'act'));
    for (const dataType of ['scalar', 'TEXT', '', 'VOID ']) {
      it(`refuses data_type ${JSON.stringify(dataType)}`, () => expectRefused(withField('data_type', dataType), 'data_type'));
    }
    it('has 8 acts and 6 data types', () => {
      expect(ACTS).to.have.length(8);
      expect(DATA_TYPES).to.have.length(6);
    });
  });

  describe('clock is a non-negative integer (i64, capped at 2^53-1)', () => {
    for (const clock of [0, 1, 5, 1_000_000, MAX_CLOCK, 2 ** 53 - 1]) {
      it(`accepts ${clock}`, () => expect(expectAccepted(withField('clock', clock)).fields.clock).to.equal(clock));
    }
    const bad: Array<[string, unknown]> = [
      ['-1', -1],
      ['-2^53', -(2 ** 53)],
      ['0.5', 0.5],
      ['1.5', 1.5],
      ['NaN', Number.NaN],
      ['Infinity', Number.POSITIVE_INFINITY],
      ['the string "1"', '1'],
      ['the string "9223372036854775807"', '9223372036854775807'],
    ];
    for (const [what, clock] of bad) {
      it(`refuses ${what}`, () => expectRefused(withField('clock', clock), 'clock'));
    }
    it('refuses 2^53 with a message mentioning 2^53-1', () => {
      expect(expectRefused(withField('clock', 2 ** 53), 'clock')).to.include('2^53-1');
    });
    it('refuses 9223372036854775807 (i64 max, as JSON.parse reads it) with a message mentioning 2^53-1', () => {
      const input = JSON.parse(JSON.stringify(valid()).replace('"clock":0', '"clock":9223372036854775807'));
      expect(expectRefused(input, 'clock')).to.include('2^53-1');
    });
  });

  describe('parents is an ascending array of valid ids', () => {
    it('accepts [] and a sorted list', () => {
      expectAccepted(withField('parents', []));
      expectAccepted(withField('parents', [ID_A, ID_B, ID_C]));
    });
    it(`accepts ${MAX_PARENTS} parents and refuses ${MAX_PARENTS + 1}`, () => {
      const ids = Array.from({ length: MAX_PARENTS + 1 }, (_, i) => i.toString(16).padStart(64, '0'));
      expectAccepted(withField('parents', ids.slice(0, MAX_PARENTS)));
      expectRefused(withField('parents', ids), 'parents');
    });
    const bad: Array<[string, unknown[], string]> = [
      ['unsorted', [ID_B, ID_A], 'parents'],
      ['duplicate', [ID_A, ID_A], 'parents'],
      ['sorted then unsorted', [ID_A, ID_C, ID_B], 'parents'],
      ['non-hex', ['z'.repeat(64)], 'parents[0]'],
      ['uppercase hex', [ID_A, ID_C.toUpperCase()], 'parents[1]'],
      ['63 hex', ['a'.repeat(63)], 'parents[0]'],
      ['65 hex', ['a'.repeat(65)], 'parents[0]'],
      ['a thread id', ['th_' + 'a'.repeat(64)], 'parents[0]'],
      ['hex plus newline', ['a'.repeat(64) + '\n'], 'parents[0]'],
    ];
    for (const [what, parents, field] of bad) {
      it(`refuses ${what} (field ${field})`, () => expectRefused(withField('parents', parents), field));
    }
  });

  describe('only the record fields', () => {
    for (const extra of ['foo', 'ID', 'Id', 'signature', 'namespace', 'created_at']) {
      it(`refuses the unknown field ${extra}`, () => expectRefused(withField(extra, 'x'), extra));
    }
    it('refuses an own "__proto__" key (as JSON.parse creates it)', () => {
      const input = JSON.parse(JSON.stringify(valid()).replace('{', '{"__proto__":{"x":1},'));
      expectRefused(input, '__proto__');
    });
    it('allows an id echo when it is 64 lowercase hex, and returns it as claimedId', () => {
      const id = computeRecordId(expectAccepted(valid()).fields);
      expect(expectAccepted(withField('id', id)).claimedId).to.equal(id);
    });
    const badIds: Array<[string, unknown]> = [
      ['uppercase hex', 'A'.repeat(64)],
      ['63 hex', 'a'.repeat(63)],
      ['the empty string', ''],
      ['a thread id', 'th_' + 'a'.repeat(64)],
      ['null', null],
      ['a number', 1],
    ];
    for (const [what, id] of badIds) {
      it(`refuses an id echo that is ${what}`, () => expectRefused(withField('id', id), 'id'));
    }
  });

  describe('body is an object, nested at most MAX_BODY_DEPTH levels', () => {
    it('accepts an empty body', () => expectAccepted(withField('body', {})));
    it(`accepts ${MAX_BODY_DEPTH} levels and refuses ${MAX_BODY_DEPTH + 1}`, () => {
      expectAccepted(withField('body', nestedBody(MAX_BODY_DEPTH)));
      expectRefused(withField('body', nestedBody(MAX_BODY_DEPTH + 1)), 'body');
    });
    it('counts arrays as levels', () => {
      const arrays = (levels: number): unknown => {
        let value: unknown = [1];
        for (let i = 1; i < levels; i++) value = [value];
        return value;
      };
      expectAccepted(withField('body', { a: arrays(MAX_BODY_DEPTH - 1) }));
      expectRefused(withField('body', { a: arrays(MAX_BODY_DEPTH) }), 'body');
    });
    it('refuses 100,000 levels without overflowing the stack', () => {
      expectRefused(withField('body', nestedBody(100_000)), 'body');
    });
  });

  it('reports the first failing field in the spec table order when several are wrong', () => {
    const input = { ...valid(), thread: 'bad', actor: 'bad', clock: -1 };
    expectRefused(input, 'thread');
  });
});
