/** The find index's snapshot: written and read back, it ranks, explains, finds by prefix and removes exactly as the index it was taken of. */
import { mkdtemp, rm, truncate, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { FindIndex } from './find-index.js';
import { FIND_SNAPSHOT_FORMAT, loadFindSnapshot, saveFindSnapshot, type FindSnapshotHeader } from './find-snapshot.js';

const WORDS = ['deploy', 'budget', 'garden', 'release', 'invoice', 'harbour', 'violin', 'glacier', 'pepper', 'lantern', 'orbit', 'meadow'];
const id = (n: number) => n.toString(16).padStart(64, '0');
const thread = (n: number) => 'th_' + (n % 7).toString(16).padStart(64, '0');
const header = (through: number): FindSnapshotHeader => ({ format: FIND_SNAPSHOT_FORMAT, through, through_id: 'x', materials: true, dirty: [['ns', 4]], saved_at: new Date(0).toISOString() });

function build(count = 12_000): FindIndex {
  const index = new FindIndex();
  // Enough terms (over 10k) and postings (over 262k) to span several frames of each kind.
  for (let n = 0; n < count; n++) {
    const text = Array.from({ length: 12 }, (_, i) => `${WORDS[(n * (i + 3)) % WORDS.length]} w${(n * 7 + i * 131) % 25_000}`).join(' ');
    index.addRecord({ type: 'thread', recordId: id(n), thread: thread(n), sequence: n + 1 }, `did:sync:user:u${n % 30}`, n % 5 === 0 ? `title ${WORDS[n % WORDS.length]} ${n}` : '', text);
  }
  for (let n = 0; n < 40; n++) index.putMaterial({ type: 'material', namespace: 'ns', path: `docs/${WORDS[n % WORDS.length]}/file-${n}.md`, contentHash: `h${n}`, contents: true }, `notes on the ${WORDS[(n + 3) % WORDS.length]}`);
  // Removed documents (their postings are compacted away by the snapshot).
  for (let n = 0; n < count; n += 11) index.removeDoc(`r:${id(n)}`);
  index.putMaterial({ type: 'material', namespace: 'ns', path: 'docs/deploy/file-0.md', contentHash: 'h0b', contents: true }, 'replaced deploy glacier');
  return index;
}

const answers = (index: FindIndex) =>
  ['deploy glacier', 'budget', 'violin meadow w77', 'orb', 'title garden', 'nothing-here'].map((q) => {
    const terms = index.queryTerms(q, q === 'orb');
    const { hits, matched } = index.search(terms, 25, new Set(['thread', 'material']));
    return { matched, hits: hits.map((hit) => ({ ...hit, explain: index.explain(terms, hit.doc) })) };
  });

describe('find snapshot', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'loom-find-snapshot-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('reads back an index that answers, explains and changes exactly as the original', async () => {
    const index = build();
    const expected = answers(index);
    const bytes = await saveFindSnapshot(dir, header(12_040), index);
    expect(bytes).to.equal((await stat(join(dir, 'find-snapshot.bin'))).size);
    const loaded = await loadFindSnapshot(dir, async () => true);
    expect(loaded!.header).to.deep.equal(header(12_040));
    const copy = loaded!.index;
    expect(answers(copy)).to.deep.equal(expected);
    expect(answers(index), 'the original after its compaction').to.deep.equal(expected);
    expect(copy.documents).to.deep.equal(index.documents);
    expect(copy.gist(thread(3))).to.equal(index.gist(thread(3)));
    expect(copy.participantsOf(thread(2))).to.deep.equal(index.participantsOf(thread(2)));
    expect([...copy.materialsOf('ns')]).to.deep.equal([...index.materialsOf('ns')]);
    // Both go on alike: a removal, a new record, an existing id added again.
    for (const target of [index, copy]) {
      target.removeDoc(`r:${id(5)}`);
      target.addRecord({ type: 'thread', recordId: id(9999), thread: thread(1), sequence: 9999 }, 'did:sync:user:z', 'fresh deploy', 'glacier violin');
      target.addRecord({ type: 'thread', recordId: id(7), thread: thread(7), sequence: 8 }, 'did:sync:user:z', 'ignored', 'ignored');
    }
    expect(answers(copy)).to.deep.equal(answers(index));
  });

  it('is not used when refused, absent, or cut short', async () => {
    expect(await loadFindSnapshot(dir, async () => true)).to.equal(null);
    await saveFindSnapshot(dir, header(10), build(500));
    expect(await loadFindSnapshot(dir, async (h) => h.through > 10)).to.equal(null);
    const file = join(dir, 'find-snapshot.bin');
    await truncate(file, (await stat(file)).size - 100);
    let failure: unknown = null;
    await loadFindSnapshot(dir, async () => true).catch((error: unknown) => (failure = error));
    expect(failure).to.be.instanceOf(Error);
  });
});
