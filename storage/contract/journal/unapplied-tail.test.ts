import { expect } from 'chai';
import type { StoredRecord } from '../stored-record.js';
import type { AcceptedRecord } from './accepted-record.js';
import { UnappliedTail } from './unapplied-tail.js';

function accepted(sequence: number): AcceptedRecord {
  const record = { id: sequence.toString(16).padStart(64, '0'), parents: [], thread: 'th_' + '0'.repeat(64), actor: 'did:sync:agent:tail', act: 'KNOW', body: {}, clock: sequence, data_type: 'SCALAR', judged_by: null };
  return { stored: { sequence, createdAt: 0, record } as unknown as StoredRecord, namespace: 'default' };
}

const sequences = (records: readonly StoredRecord[]) => records.map((r) => r.sequence);

describe('UnappliedTail', () => {
  it('select: the entries after a sequence, in order, bounded by limit and filtered by match, whatever was dropped and compacted', () => {
    const tail = new UnappliedTail();
    // Sequences 1..5000 with gaps (every seventh missing), added in batches as group commits do.
    const held = Array.from({ length: 5000 }, (_, i) => i + 1).filter((s) => s % 7 !== 0);
    for (let i = 0; i < held.length; i += 100) tail.add(held.slice(i, i + 100).map(accepted));
    const expectAfter = (after: number, limit: number, match?: (s: StoredRecord) => boolean) => {
      const want = held.filter((s) => s > after && (!match || match(accepted(s).stored))).slice(0, limit);
      expect(sequences(tail.select(after, limit, match)), `after ${after}`).to.deep.equal(want);
    };
    for (const after of [0, 1, 6, 7, 8, 2500, 4998, 4999, 5000, 9999]) expectAfter(after, 10);
    expectAfter(100, 1000, (s) => s.sequence % 2 === 0);
    // Drop the front past the compaction threshold (more than 1024 entries and more than half).
    tail.dropThrough(3500);
    const left = held.filter((s) => s > 3500);
    held.splice(0, held.length, ...left);
    expect(tail.size).to.equal(held.length);
    for (const after of [0, 3000, 3500, 3501, 4200, 5000]) expectAfter(after, 25);
    expect(tail.get(accepted(3499).stored.record.id)).to.equal(undefined);
    expect(tail.get(accepted(3501).stored.record.id)?.sequence).to.equal(3501);
  });
});
