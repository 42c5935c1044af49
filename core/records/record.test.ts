import { expect } from 'chai';
import { ACTS, COORDINATION_ACTS, EFFECT_ACTS, isAct } from './acts.js';
import { DATA_TYPES, isDataType } from './data-types.js';
import { computeRecordId } from './record-id.js';
import { canonicalRecord } from './content-text.js';
import { HASHED_FIELDS, makeRecord, makeRecordOfFrozen, RECORD_FIELDS, type RecordFields } from './record.js';
import { isReservedThread, RESERVED_THREADS } from './reserved-threads.js';

const FIELDS: RecordFields = {
  parents: ['0a'.repeat(32)],
  thread: 'th_' + '3c'.repeat(32),
  actor: 'did:sync:user:alice',
  act: 'DO',
  body: { tool: 'git', args: ['push'], nested: { deep: [1, { x: 2 }] } },
  clock: 2,
  data_type: 'SCALAR',
  judged_by: null,
};

describe('record', () => {
  it('has the eight fields of spec §2.1; the seven hashed ones are all but judged_by, in sorted order', () => {
    expect(RECORD_FIELDS).to.deep.equal(['parents', 'thread', 'actor', 'act', 'body', 'clock', 'data_type', 'judged_by']);
    expect([...HASHED_FIELDS]).to.deep.equal(RECORD_FIELDS.filter((f) => f !== 'judged_by').sort());
  });

  describe('makeRecord', () => {
    it('returns the eight fields plus id', () => {
      const id = computeRecordId(FIELDS);
      const record = makeRecord(id, structuredClone(FIELDS));
      expect(Object.keys(record).sort()).to.deep.equal(['id', ...RECORD_FIELDS].sort());
      expect(record).to.deep.equal({ id, ...FIELDS });
    });

    it('freezes the record deeply (records are never modified)', () => {
      const record = makeRecord(computeRecordId(FIELDS), structuredClone(FIELDS));
      expect(Object.isFrozen(record)).to.equal(true);
      expect(Object.isFrozen(record.parents)).to.equal(true);
      expect(Object.isFrozen(record.body)).to.equal(true);
      expect(Object.isFrozen((record.body['nested'] as { deep: unknown[] }).deep[1])).to.equal(true);
      expect(() => {
        (record as { clock: number }).clock = 3;
      }).to.throw(TypeError);
      expect(() => {
        record.parents.push('ff'.repeat(32));
      }).to.throw(TypeError);
    });

    it('drops fields that are not record fields', () => {
      const extra = { ...structuredClone(FIELDS), foo: 1 } as RecordFields;
      expect(makeRecord('x', extra)).not.to.have.property('foo');
    });
  });

  describe('makeRecordOfFrozen', () => {
    it('refuses a body or parents that are not frozen, so no record is ever stored with a mutable part', () => {
      expect(() => makeRecordOfFrozen('x', structuredClone(FIELDS))).to.throw(TypeError, /frozen/);
      expect(() => makeRecordOfFrozen('x', { ...structuredClone(FIELDS), body: Object.freeze({}) })).to.throw(TypeError, /frozen/);
    });

    it('ingest\'s records (canonicalRecord) are frozen to the leaves, equal to makeRecord\'s, and leave the caller\'s fields unfrozen', () => {
      const fields = structuredClone(FIELDS);
      const { record } = canonicalRecord(fields);
      expect(record).to.deep.equal(makeRecord(computeRecordId(FIELDS), structuredClone(FIELDS)));
      expect(Object.isFrozen(record)).to.equal(true);
      expect(Object.isFrozen((record.body['nested'] as { deep: unknown[] }).deep[1])).to.equal(true);
      expect(Object.isFrozen(fields.body)).to.equal(false);
      expect(record.body).not.to.equal(fields.body);
    });
  });

  describe('enums', () => {
    it('acts: two groups of four', () => {
      expect([...COORDINATION_ACTS]).to.deep.equal(['INTEND', 'DO', 'KNOW', 'LEARN']);
      expect([...EFFECT_ACTS]).to.deep.equal(['GET', 'PUT', 'CALL', 'MAP']);
      expect(ACTS).to.have.length(8);
      for (const act of ACTS) expect(isAct(act)).to.equal(true);
      for (const bad of ['do', 'Do', '', 'JUDGE', null, 1]) expect(isAct(bad)).to.equal(false);
    });

    it('data types: the six of spec §2.1', () => {
      expect([...DATA_TYPES]).to.deep.equal(['SCALAR', 'FORMULA', 'DISTRIBUTION', 'REFERENCE', 'MORPHISM', 'VOID']);
      for (const dataType of DATA_TYPES) expect(isDataType(dataType)).to.equal(true);
      for (const bad of ['scalar', '', 'TEXT', null, 0]) expect(isDataType(bad)).to.equal(false);
    });

    it('reserved threads: the seven of spec §2.3', () => {
      expect([...RESERVED_THREADS]).to.deep.equal([
        'th_engine_config',
        'th_actor_registry',
        'th_namespace_registry',
        'th_instance_registry',
        'th_fleet_control',
        'th_consent',
        'th_federation_pairs',
      ]);
      for (const thread of RESERVED_THREADS) expect(isReservedThread(thread)).to.equal(true);
      for (const bad of ['th_consent ', 'TH_CONSENT', 'th_' + 'a'.repeat(64), null]) expect(isReservedThread(bad)).to.equal(false);
    });
  });
});
