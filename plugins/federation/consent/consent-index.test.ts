import { expect } from 'chai';
import { computeRecordId } from '../../../core/records/record-id.js';
import { makeRecord, type LoomRecord, type RecordFields } from '../../../core/records/record.js';
import { TH_CONSENT } from '../../../core/records/reserved-threads.js';
import type { StoredRecord } from '../../../storage/contract/stored-record.js';
import { ConsentIndex } from './consent-index.js';
import { projectRecord, HASH_LEVELS } from './hash-levels.js';

let sequence = 0;
function stored(fields: Partial<RecordFields>): StoredRecord {
  const content: RecordFields = { parents: [], thread: TH_CONSENT, actor: 'did:sync:user:op', act: 'LEARN', body: {}, clock: sequence, data_type: 'SCALAR', judged_by: null, ...fields };
  return { sequence: ++sequence, createdAt: 0, record: makeRecord(computeRecordId(content), content) };
}
const grant = (body: Record<string, unknown>) => stored({ body: { kind: 'core.consent.grant.v1', ...body } as never });
const T = 'th_' + 'a'.repeat(64);

describe('consent index', () => {
  it('same namespace crosses whole; no grant withholds; the default level is L1', () => {
    const index = new ConsentIndex();
    expect(index.levelFor('acme', 'acme', T, 0)).to.equal('L0');
    expect(index.levelFor('acme', 'beta', T, 0)).to.equal(null);
    index.apply(grant({ source_namespace: 'acme', target_namespace: 'beta' }));
    expect(index.levelFor('acme', 'beta', T, 0)).to.equal('L1');
    expect(index.levelFor('acme/eu', 'beta', T, 0), 'an ancestor grant covers descendants').to.equal('L1');
    expect(index.levelFor('acmex', 'beta', T, 0)).to.equal(null);
    expect(index.levelFor('acme', 'beta/x', T, 0), 'the target is exact').to.equal(null);
  });

  it('the most recent grant decides; revocation and expiry end a grant; thread lists narrow it', () => {
    const index = new ConsentIndex();
    const wide = grant({ source_namespace: 'acme', target_namespace: 'beta', hash_levels: ['L1'] });
    index.apply(wide);
    index.apply(grant({ source_namespace: 'acme', target_namespace: 'beta', hash_levels: ['L3'] }));
    expect(index.levelFor('acme', 'beta', T, 0)).to.equal('L3');
    const later = grant({ source_namespace: 'acme', target_namespace: 'gamma', hash_levels: ['L2'], threads: ['th_' + 'b'.repeat(64)], expires_at: new Date(1000).toISOString() });
    index.apply(later);
    expect(index.levelFor('acme', 'gamma', T, 0)).to.equal(null);
    expect(index.levelFor('acme', 'gamma', 'th_' + 'b'.repeat(64), 999)).to.equal('L2');
    expect(index.levelFor('acme', 'gamma', 'th_' + 'b'.repeat(64), 1000), 'expired').to.equal(null);
    index.apply(stored({ act: 'DO', body: { kind: 'core.consent.revoke.v1', grant: wide.record.id } }));
    expect(index.levelFor('acme', 'beta', T, 0), 'the later L3 grant still stands').to.equal('L3');
  });

  it('L0 needs two-sided consent', () => {
    const index = new ConsentIndex();
    index.apply(grant({ source_namespace: 'acme', target_namespace: 'beta', hash_levels: ['L0', 'L2'] }));
    expect(index.levelFor('acme', 'beta', T, 0)).to.equal('L2');
    index.apply(grant({ source_namespace: 'beta', target_namespace: 'acme', hash_levels: ['L0'] }));
    expect(index.levelFor('acme', 'beta', T, 0)).to.equal('L0');
  });

  it('inForce lists live grants oldest first with the level each is served at', () => {
    const index = new ConsentIndex();
    const one = grant({ source_namespace: 'acme', target_namespace: 'beta', hash_levels: ['L0', 'L2'], purpose: 'audit' });
    const two = grant({ source_namespace: 'acme', target_namespace: 'gamma', expires_at: new Date(500).toISOString() });
    index.apply(one);
    index.apply(two);
    expect(index.inForce(0).map((g) => [g.id, g.served_level, g.two_sided, g.purpose])).to.deep.equal([
      [one.record.id, 'L2', false, 'audit'],
      [two.record.id, 'L1', false, null],
    ]);
    index.apply(grant({ source_namespace: 'beta', target_namespace: 'acme', hash_levels: ['L0'] }));
    expect(index.inForce(0)[0]).to.include({ served_level: 'L0', two_sided: true });
    expect(index.inForce(500).map((g) => g.id), 'expired grants are not in force').to.not.include(two.record.id);
  });
});

describe('hash-level projections', () => {
  const record: LoomRecord = (() => {
    const content: RecordFields = { parents: ['c'.repeat(64)], thread: T, actor: 'did:sync:user:carol', act: 'DO', body: { namespace: 'acme', kind: 'acme.plan.v1', topic: 'launch', secret: 'codes', n: 3, list: [1] }, clock: 7, data_type: 'SCALAR', judged_by: 'd'.repeat(64) };
    return makeRecord(computeRecordId(content), content);
  })();

  it('each level keeps strictly less, never a body value, and is a record with a recomputable id', () => {
    // What a level reveals of the original: the envelope fields it keeps as they were, and the body facts it keeps.
    const facts = (level: (typeof HASH_LEVELS)[number]) => {
      const projected = projectRecord(record, level, 'did:key:zSalt');
      const kept = (['parents', 'thread', 'actor', 'act', 'clock', 'data_type', 'judged_by'] as const).filter((f) => JSON.stringify(projected[f]) === JSON.stringify(record[f]));
      const body = Object.keys(projected.body).filter((k) => k in record.body && JSON.stringify(projected.body[k]) === JSON.stringify(record.body[k]));
      return new Set([...kept, ...body.map((k) => `body.${k}`), ...(projected.body['shape'] || level === 'L0' ? ['body.shape'] : [])]);
    };
    for (let i = 1; i < HASH_LEVELS.length; i++) {
      const weaker = facts(HASH_LEVELS[i]!);
      const stronger = facts(HASH_LEVELS[i - 1]!);
      for (const fact of weaker) expect(stronger.has(fact), `${HASH_LEVELS[i]} keeps ${fact}, ${HASH_LEVELS[i - 1]} must too`).to.equal(true);
      expect(stronger.size, `${HASH_LEVELS[i - 1]} reveals more than ${HASH_LEVELS[i]}`).to.be.above(weaker.size);
    }
    for (const level of ['L1', 'L2', 'L3'] as const) {
      const projected = projectRecord(record, level, 'did:key:zSalt');
      expect(JSON.stringify(projected)).to.not.include('codes');
      expect(projected.id).to.equal(computeRecordId(projected));
      expect(projected.body).to.include({ redacted: true, hash_level: level, source_id: record.id, namespace: 'acme', kind: 'acme.plan.v1' });
      expect(projected.clock).to.equal(7);
      expect(projected.thread).to.equal(T);
    }
    expect(projectRecord(record, 'L1', 's').body['shape']).to.deep.equal({ namespace: 'string', kind: 'string', topic: 'string', secret: 'string', n: 'number', list: 'array' });
    expect(projectRecord(record, 'L1', 's').actor).to.equal('did:sync:user:carol');
    expect(projectRecord(record, 'L2', 's').actor).to.match(/^did:sync:agent:anon-[0-9a-f]{16}$/);
    expect(projectRecord(record, 'L2', 's').actor).to.equal(projectRecord(record, 'L3', 's').actor);
    expect(projectRecord(record, 'L2', 's').parents).to.deep.equal(record.parents);
    expect(projectRecord(record, 'L3', 's').parents).to.deep.equal([]);
    expect(projectRecord(record, 'L0', 's')).to.equal(record);
  });
});
