import { expect } from 'chai';
import type { StoredRecord } from '../../storage/contract/stored-record.js';
import { LiveTail } from './live-tail.js';

const stored = (sequence: number): StoredRecord => ({ sequence, record: { id: `r${sequence}` } }) as unknown as StoredRecord;
const sequences = (page: StoredRecord[] | null) => page?.map((s) => s.sequence) ?? null;

describe('LiveTail', () => {
  it('hands a consumer at its start the records published after it, a batch at a time', () => {
    const tail = new LiveTail(10);
    tail.offer([stored(5), stored(6)], 4);
    tail.offer([stored(7)], 6);
    expect(sequences(tail.take(4, 2))).to.deep.equal([5, 6]);
    expect(sequences(tail.take(6, 2))).to.deep.equal([7]);
    expect(sequences(tail.take(7, 2))).to.deep.equal([]);
  });

  it('answers null to a consumer behind it (the store has those records)', () => {
    const tail = new LiveTail(10);
    tail.offer([stored(5)], 4);
    expect(tail.take(2, 10)).to.equal(null);
    expect(sequences(tail.take(4, 10))).to.deep.equal([5]);
  });

  it('drops what a cursor that moved past part of it has passed', () => {
    const tail = new LiveTail(10);
    tail.offer([stored(5), stored(6), stored(7)], 4);
    expect(sequences(tail.take(6, 10))).to.deep.equal([7]);
    tail.offer([stored(8)], 7);
    expect(tail.take(9, 10)).to.equal(null);
  });

  it('past its capacity keeps nothing, and starts again from the next publish', () => {
    const tail = new LiveTail(2);
    tail.offer([stored(1), stored(2)], 0);
    tail.offer([stored(3)], 2);
    expect(tail.take(0, 10)).to.equal(null);
    tail.offer([stored(4)], 3);
    expect(tail.take(0, 10)).to.equal(null);
    expect(sequences(tail.take(3, 10))).to.deep.equal([4]);
  });
});
