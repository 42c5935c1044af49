/** FindIndex.rankAmong: the best records a caller's own predicate admits, drawn best first until enough are found. */
import { expect } from 'chai';
import { FindIndex } from './find-index.js';

const THREAD = 'th_' + 'a'.repeat(64);
const OTHER = 'th_' + 'b'.repeat(64);
const id = (n: number) => n.toString(16).padStart(64, '0');

describe('FindIndex.rankAmong', () => {
  const index = new FindIndex();
  // 300 records elsewhere that match better (the word twice), then 5 of ours.
  for (let n = 0; n < 300; n++) index.addRecord({ type: 'thread', recordId: id(n), thread: OTHER, sequence: n + 1 }, 'did:sync:user:x', 'deploy deploy', 'deploy notes');
  for (let n = 300; n < 305; n++) index.addRecord({ type: 'thread', recordId: id(n), thread: THREAD, sequence: n + 1 }, 'did:sync:user:x', `memory ${n}`, n === 302 ? 'deploy on fridays' : 'never deploy');
  const ours = (recordId: string) => parseInt(recordId, 16) >= 300;

  it('finds the admitted records even when many better ones are not admitted, best first', () => {
    const ranked = index.rankAmong(index.queryTerms('deploy fridays', false), ours, 10);
    expect(ranked.map((r) => r.recordId)).to.have.length(5);
    expect(ranked[0]!.recordId).to.equal(id(302));
    expect(ranked.every((r, i) => i === 0 || ranked[i - 1]!.score >= r.score)).to.equal(true);
  });

  it('stops at the limit and answers nothing for no terms or no limit', () => {
    expect(index.rankAmong(index.queryTerms('deploy', false), ours, 2)).to.have.length(2);
    expect(index.rankAmong(index.queryTerms('', false), ours, 5)).to.deep.equal([]);
    expect(index.rankAmong(index.queryTerms('deploy', false), ours, 0)).to.deep.equal([]);
    expect(index.rankAmong(index.queryTerms('zebra', false), ours, 5)).to.deep.equal([]);
  });
});
