import { expect } from 'chai';
import { computeRecordId } from '../../../core/records/record-id.js';
import { makeRecord, type LoomRecord, type RecordFields } from '../../../core/records/record.js';
import { exactPairKey, SlotKnowledge } from './slot-knowledge.js';

function record(actor: string, thread: string, clock: number): LoomRecord {
  const fields: RecordFields = { parents: [], thread, actor, act: 'KNOW', body: {}, clock, data_type: 'SCALAR', judged_by: null };
  return makeRecord(computeRecordId(fields), fields);
}

async function* keys(list: readonly string[]): AsyncIterable<string> {
  yield* list;
}

const threads = Array.from({ length: 200 }, (_, i) => `th_${String(i).padStart(64, '0')}`);
const actors = Array.from({ length: 50 }, (_, i) => `did:sync:agent:a${i}`);

describe('SlotKnowledge', () => {
  it('never calls a seeded pair certainly free, for any of 10,000 pairs', async () => {
    const pairs = actors.flatMap((actor) => threads.map((thread) => record(actor, thread, 5)));
    const knowledge = new SlotKnowledge();
    await knowledge.seed(keys(pairs.map(exactPairKey)), pairs.length);
    for (const r of pairs) expect(knowledge.certainlyFree(r, exactPairKey(r)), exactPairKey(r)).to.equal(false);
  });

  it('calls most unseen pairs free (the filter is not saturated)', async () => {
    const knowledge = new SlotKnowledge();
    await knowledge.seed(keys(threads.map((thread) => exactPairKey(record(actors[0]!, thread, 1)))), threads.length);
    const unseen = threads.map((thread) => record(actors[1]!, thread, 1));
    const free = unseen.filter((r) => knowledge.certainlyFree(r, exactPairKey(r))).length;
    expect(free).to.be.greaterThan(195);
  });

  it('knows the exact ceiling of a pair first seen after open, and only clocks above it are free', async () => {
    const knowledge = new SlotKnowledge();
    await knowledge.seed(keys([]), 0);
    const first = record(actors[0]!, threads[0]!, 3);
    const key = exactPairKey(first);
    expect(knowledge.certainlyFree(first, key)).to.equal(true);
    knowledge.noteAccepted(first, key, true);
    for (const clock of [0, 1, 2, 3]) expect(knowledge.certainlyFree(record(actors[0]!, threads[0]!, clock), key), `clock ${clock}`).to.equal(false);
    expect(knowledge.certainlyFree(record(actors[0]!, threads[0]!, 4), key)).to.equal(true);
    knowledge.noteAccepted(record(actors[0]!, threads[0]!, 9), key, true);
    expect(knowledge.certainlyFree(record(actors[0]!, threads[0]!, 8), key)).to.equal(false);
    expect(knowledge.certainlyFree(record(actors[0]!, threads[0]!, 10), key)).to.equal(true);
  });

  it('while seeding (in the background of a start), calls nothing free by the filter, and keeps the pairs accepted meanwhile', async () => {
    const knowledge = new SlotKnowledge();
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const stored = record(actors[0]!, threads[0]!, 1);
    async function* slowKeys(): AsyncIterable<string> {
      yield exactPairKey(stored);
      await gate;
    }
    const seeding = knowledge.seed(slowKeys(), 1);
    const unseen = record(actors[2]!, threads[2]!, 0);
    expect(knowledge.certainlyFree(unseen, exactPairKey(unseen))).to.equal(false);
    // Accepted while the filter is incomplete: the driver found it free, so no ceiling is guessed.
    const during = record(actors[1]!, threads[1]!, 7);
    knowledge.noteAccepted(during, exactPairKey(during), false);
    release();
    await seeding;
    expect(knowledge.certainlyFree(record(actors[1]!, threads[1]!, 0), exactPairKey(during))).to.equal(false);
    expect(knowledge.certainlyFree(record(actors[0]!, threads[0]!, 0), exactPairKey(stored))).to.equal(false);
    expect(knowledge.certainlyFree(unseen, exactPairKey(unseen))).to.equal(true);
  });

  it('a seeding stopped (the store closing) publishes no filter', async () => {
    const knowledge = new SlotKnowledge();
    knowledge.stopSeeding();
    await knowledge.seed(keys(['a', 'b']), 2);
    const r = record(actors[3]!, threads[3]!, 0);
    expect(knowledge.certainlyFree(r, exactPairKey(r))).to.equal(false);
  });

  it('does not guess a ceiling for a pair that existed before open', async () => {
    const old = record(actors[0]!, threads[0]!, 50);
    const knowledge = new SlotKnowledge();
    await knowledge.seed(keys([exactPairKey(old)]), 1);
    const next = record(actors[0]!, threads[0]!, 51);
    // Found free by the driver, not by this: clock 51 tells nothing about what else is stored.
    knowledge.noteAccepted(next, exactPairKey(next), false);
    expect(knowledge.certainlyFree(record(actors[0]!, threads[0]!, 52), exactPairKey(next))).to.equal(false);
  });

  it('without a seed (a driver that cannot list pairs), calls nothing free but known ceilings', () => {
    const knowledge = new SlotKnowledge();
    const r = record(actors[0]!, threads[0]!, 1);
    expect(knowledge.certainlyFree(r, exactPairKey(r))).to.equal(false);
  });
});
