/** searchMemories: through a ranker (index hits, then unindexed and tag matches), or by words without one. */
import { expect } from 'chai';
import type { MemoryEntry } from './memory-fold.js';
import { searchMemories, type MemoryRanker } from './memory-search.js';
import { KIND_MEMORY, type MemoryFields } from './memory.js';

const MEMBER = 'did:sync:agent:reviewer-0123456789abcdef';

function entry(sequence: number, fields: Partial<MemoryFields> & { name: string }): MemoryEntry {
  return {
    record: sequence.toString(16).padStart(64, '0'),
    sequence,
    at: new Date(sequence).toISOString(),
    body: { kind: KIND_MEMORY, status: 'created', memory_type: 'user', description: '', confidence: 0.8, tags: [], source_thread: null, domain: null, meta: { member: MEMBER, by: MEMBER, imported_from: null }, ...fields },
  };
}

const entries = [
  entry(1, { name: 'deploys', description: 'We deploy on Fridays.' }),
  entry(2, { name: 'lead', description: 'Ada leads the team.', tags: ['People'] }),
  entry(3, { name: 'lint', description: 'Run the Linter first.' }),
  entry(9, { name: 'late', description: 'Deploy freezes in December.' }),
];

/** A ranker that "indexed" records through sequence 5 and ranks the ones whose description holds the query, in reverse sequence order. */
const ranker: MemoryRanker = {
  rankRecords(q, admit, limit) {
    const ranked = entries
      .filter((e) => e.sequence <= 5 && e.body.description.toLowerCase().includes(q.toLowerCase()) && admit(e.record))
      .sort((a, b) => a.sequence - b.sequence)
      .map((e, i) => ({ recordId: e.record, score: 10 - i }));
    return { ranked: ranked.slice(0, limit), indexedThrough: 5 };
  },
};

const names = (found: { found: MemoryEntry[] }) => found.found.map((e) => e.body.name);

describe('searchMemories', () => {
  it('without a ranker: every word, ignoring case, in the name, description or a tag; newest first', () => {
    expect(names(searchMemories(entries, 'DEPLOY', 10, null))).to.deep.equal(['late', 'deploys']);
    expect(names(searchMemories(entries, 'deploy fridays', 10, null))).to.deep.equal(['deploys']);
    expect(names(searchMemories(entries, 'people', 10, null))).to.deep.equal(['lead']);
    expect(names(searchMemories(entries, 'lin', 10, null))).to.deep.equal(['lint']);
    const paged = searchMemories(entries, 'e', 2, null);
    expect(paged.found).to.have.length(2);
    expect(paged.more).to.equal(true);
  });

  it('with a ranker: its hits first, then memories above what it indexed and tag matches, newest first', () => {
    expect(names(searchMemories(entries, 'deploy', 10, ranker))).to.deep.equal(['deploys', 'late']);
    expect(names(searchMemories(entries, 'people', 10, ranker))).to.deep.equal(['lead']);
    expect(names(searchMemories(entries.slice(0, 3), 'deploy', 10, ranker))).to.deep.equal(['deploys']);
    expect(searchMemories(entries, 'deploy', 1, ranker)).to.deep.include({ more: true });
  });
});
