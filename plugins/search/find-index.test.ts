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

describe('FindIndex documents by type', () => {
  const both = new Set(['thread', 'material'] as const);
  function build(): FindIndex {
    const index = new FindIndex();
    for (let n = 0; n < 20; n++) index.addRecord({ type: 'thread', recordId: id(n), thread: THREAD, sequence: n + 1 }, 'did:sync:user:x', `harbour ${n}`, 'lantern');
    for (let n = 0; n < 5; n++) index.putMaterial({ type: 'material', namespace: 'ns', path: `docs/harbour-${n}.md`, contentHash: `h${n}`, contents: true }, 'lantern notes');
    return index;
  }
  const types = (index: FindIndex) => index.search(index.queryTerms('lantern', false), 100, both).hits.map((hit) => hit.info.type);

  it('a record is indexed once by its id, however often it is sent, and removed by its record doc id', () => {
    const index = build();
    index.addRecord({ type: 'thread', recordId: id(3), thread: THREAD, sequence: 4 }, 'did:sync:user:x', 'harbour 3', 'lantern');
    expect(index.documents).to.deep.equal({ thread: 20, material: 5 });
    index.removeDoc(`r:${id(3)}`);
    index.removeDoc(`r:${id(3)}`);
    expect(index.documents).to.deep.equal({ thread: 19, material: 5 });
    expect(types(index).filter((type) => type === 'thread')).to.have.length(19);
  });

  it('drops the records alone, the files alone, or everything, and takes them again afterwards', () => {
    const index = build();
    expect(index.drop('thread')).to.equal(20);
    expect(index.documents).to.deep.equal({ thread: 0, material: 5 });
    expect(types(index)).to.deep.equal(Array(5).fill('material'));
    expect([...index.materialsOf('ns').keys()]).to.have.length(5);
    index.addRecord({ type: 'thread', recordId: id(3), thread: THREAD, sequence: 4 }, 'did:sync:user:x', 'harbour 3', 'lantern');
    expect(index.documents).to.deep.equal({ thread: 1, material: 5 });

    expect(index.drop('material')).to.equal(5);
    expect(index.documents).to.deep.equal({ thread: 1, material: 0 });
    expect(index.materialsOf('ns').size).to.equal(0);
    expect(types(index)).to.deep.equal(['thread']);

    expect(index.drop('all')).to.equal(1);
    expect(index.documents).to.deep.equal({ thread: 0, material: 0 });
    expect(types(index)).to.deep.equal([]);
  });
});
