/**
 * The `graph` fold: what it keeps (and skips), its summary value, and its
 * checkpoint codec: a state saved, written as JSON and loaded (then folded
 * on) equals the state folded straight through, maps' orders included;
 * damaged checkpoints are refused.
 */
import { expect } from 'chai';
import { makeRecord, type RecordFields } from '../../core/records/record.js';
import { TH_ENGINE_CONFIG } from '../../core/records/reserved-threads.js';
import type { StoredRecord } from '../../storage/contract/stored-record.js';
import { GRAPH_CHECKPOINT_VERSION, graphCheckpoint } from './graph-checkpoint.js';
import { graphFold, KIND_MAX } from './graph-fold.js';
import { clip, idKey, referencesTo, type GraphState } from './graph-state.js';
import { foldState, randomGraph } from '../../test/helpers/random-graph.js';

const TH_A = `th_${'a'.repeat(64)}`;
const TH_B = `th_${'b'.repeat(64)}`;
const ALICE = 'did:sync:user:alice';
const BOB = 'did:sync:user:bob';
const CAROL = 'did:sync:agent:carol';
const id = (n: number) => n.toString(16).padStart(64, '0');

let sequence = 0;
function stored(n: number, fields: Partial<RecordFields>): StoredRecord {
  const record = makeRecord(id(n), { parents: [], thread: TH_A, actor: ALICE, act: 'DO', body: {}, clock: n, data_type: 'SCALAR', judged_by: null, ...fields });
  return { sequence: ++sequence, createdAt: 0, record };
}

/** Everything a state holds, maps as ordered entry lists, for deep comparison. */
function snapshot(state: GraphState): unknown {
  return {
    records: state.records,
    actors: [...state.actors.values()].map((a) => ({ did: a.did, records: a.records, threads: [...a.threads], assigned: [...a.assigned] })),
    threads: [...state.threads.values()].map((t) => ({ id: t.id, records: t.records, label: t.label, actors: [...t.actors] })),
    kinds: [...state.kinds],
    fulfilledBy: [...state.fulfilledBy],
    judgedBy: [...state.judgedBy],
  };
}

describe('graph fold', () => {
  const log = [
    stored(1, { act: 'INTEND', body: { task: true, goal: 'ship the graph', assigned_to: BOB, kind: 'core.task.v1' } }),
    stored(2, { actor: BOB, act: 'DO', parents: [id(1)], body: { kind: 'core.task.v1' } }),
    stored(3, { actor: BOB, thread: TH_B, act: 'INTEND', body: { title: 'second thread' } }),
    stored(4, { actor: CAROL, act: 'KNOW', body: { fulfills: id(2), verdict: 'accept' }, judged_by: id(2) }),
    stored(5, { actor: CAROL, act: 'KNOW', body: { fulfills: id(2), verdict: 'reject' }, judged_by: id(5) }),
    stored(6, { thread: TH_ENGINE_CONFIG, act: 'LEARN', body: { kind: 'core.config.v1', fulfills: id(1) } }),
    stored(7, { act: 'INTEND', body: { goal: 'a later goal', assigned_to: 'not a did', kind: 'k'.repeat(KIND_MAX + 1), fulfills: 'not-an-id' }, judged_by: 'free text' }),
    stored(8, { actor: ALICE, thread: TH_B, act: 'DO' }),
  ];
  const state = foldState(log);

  it('keeps the actor/thread layer: authorship with counts in first-seen order, labels, assignments, kinds', () => {
    expect(state.records).to.equal(7);
    expect([...state.threads.keys()]).to.deep.equal([TH_A, TH_B]);
    expect([...state.threads.get(TH_A)!.actors]).to.deep.equal([[ALICE, 2], [BOB, 1], [CAROL, 2]]);
    expect([...state.threads.get(TH_B)!.actors]).to.deep.equal([[BOB, 1], [ALICE, 1]]);
    expect(state.threads.get(TH_A)!.label).to.equal('ship the graph');
    expect(state.threads.get(TH_B)!.label).to.equal('second thread');
    expect([...state.actors.keys()]).to.deep.equal([ALICE, BOB, CAROL]);
    expect([...state.actors.get(ALICE)!.threads]).to.deep.equal([[TH_A, 2], [TH_B, 1]]);
    expect(state.actors.get(BOB)!.assigned).to.deep.equal([log[0]!.sequence]);
    expect(state.actors.get(ALICE)!.records).to.equal(3);
    expect([...state.kinds]).to.deep.equal([['core.task.v1', 2]]);
  });

  it('indexes fulfills and judged_by backwards, skipping self-references and malformed ids', () => {
    // Sources are held as their sequences, under the target's 52-bit id key.
    expect(referencesTo(state.fulfilledBy, id(2))).to.deep.equal([log[3]!.sequence, log[4]!.sequence]);
    expect(referencesTo(state.judgedBy, id(2))).to.deep.equal([log[3]!.sequence]);
    expect(state.judgedBy.size).to.equal(1); // record 5 names itself: no entry
    expect([...state.fulfilledBy.keys()]).to.deep.equal([idKey(id(2))]);
    // These test ids share their first 52 bits, so a lookup returns candidates the reader must check.
    expect(referencesTo(state.judgedBy, id(5))).to.deep.equal([log[3]!.sequence]);
    expect(idKey('0123456789abcdef'.repeat(4))).to.equal(0x0123456789abc);
  });

  it('never sees reserved threads, even when the engine would hand it one', () => {
    const direct = graphFold.apply(graphFold.initial('graph'), log[5]!);
    expect(snapshot(direct)).to.deep.equal(snapshot(graphFold.initial('graph')));
    expect(graphFold.ignoresSystemThreads).to.equal(true);
  });

  it('values as counts only', () => {
    expect(graphFold.value(state)).to.deep.equal({ records: 7, actors: 3, threads: 2, kinds: 1, authorship_pairs: 5, assignments: 1, fulfilled_records: 1, judged_records: 1 });
  });

  it('checkpoints: saved, written as JSON, loaded and folded on, equals folding straight through (random logs)', () => {
    expect(graphCheckpoint.version).to.equal(GRAPH_CHECKPOINT_VERSION);
    for (let seed = 1; seed <= 200; seed++) {
      const { records, rng } = randomGraph(seed);
      const cut = Math.floor(rng() * (records.length + 1));
      const straight = foldState(records);
      const saved = JSON.parse(JSON.stringify(graphCheckpoint.save(foldState(records.slice(0, cut)))));
      const resumed = foldState(records.slice(cut), undefined, graphCheckpoint.load(saved));
      expect(snapshot(resumed), `seed ${seed} cut ${cut}`).to.deep.equal(snapshot(straight));
    }
  });

  it('refuses a damaged checkpoint instead of trusting part of it', () => {
    const good = JSON.parse(JSON.stringify(graphCheckpoint.save(state)));
    const damaged: unknown[] = [
      null,
      [],
      { ...good, records: -1 },
      { ...good, threads: 'x' },
      { ...good, actors: [[ALICE, 1, [99], []]] },
      { ...good, threads: [[TH_A, 1, null, [0]]] },
      { ...good, kinds: [['k', 'many']] },
      { ...good, fulfilled_by: [[id(2), 7]] },
      { ...good, judged_by: [[1, [2, 'x']]] },
      { ...good, actors: [[ALICE, 1, [0], [id(1)]], ...good.actors.slice(1)] },
      { ...good, actors: [...good.actors, good.actors[0]] },
    ];
    for (const saved of damaged) expect(() => graphCheckpoint.load(saved), JSON.stringify(saved)?.slice(0, 80)).to.throw(/graph checkpoint/);
  });
});

describe('graph labels', () => {
  it('clips to the limit with an ellipsis and never splits a surrogate pair', () => {
    expect(clip('short', 10)).to.equal('short');
    expect(clip('abcdefghijkl', 10)).to.equal('abcdefghi…');
    const emoji = 'abcdefgh\u{1F600}xyz'; // the pair sits at units 8-9
    expect(clip(emoji, 10)).to.equal('abcdefgh…');
    expect(clip(emoji, 11)).to.equal('abcdefgh\u{1F600}…');
  });
});
