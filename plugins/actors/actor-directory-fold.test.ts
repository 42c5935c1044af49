import { expect } from 'chai';
import { computeRecordId } from '../../core/records/record-id.js';
import type { LoomRecord } from '../../core/records/record.js';
import type { FoldInput } from '../../core/folds/fold.js';
import { actorDirectoryFold, didKind, summarise, type ActorDirectoryState } from './actor-directory-fold.js';

const A = 'th_' + 'a'.repeat(64);
const B = 'th_' + 'b'.repeat(64);
const alice = 'did:sync:user:alice';
const bot = 'did:sync:agent:bot';

function input(sequence: number, fields: Partial<LoomRecord> & { actor: string; act: LoomRecord['act'] }): FoldInput {
  const base = { parents: [], thread: A, body: {}, clock: sequence, data_type: 'SCALAR' as const, judged_by: null, ...fields };
  return { sequence, createdAt: Date.UTC(2026, 0, 1) + sequence * 1000, record: { ...base, id: computeRecordId(base) } as LoomRecord };
}

const inputs = [
  input(1, { actor: alice, act: 'INTEND', body: { goal: 'ship', task: true, assigned_to: bot, domain: 'code' } }),
  input(2, { actor: bot, act: 'DO', body: { tool: 'git' } }),
  input(3, { actor: bot, act: 'KNOW', body: { fulfills: 'x' } }),
  input(4, { actor: alice, act: 'KNOW', thread: B, body: { verdict: 'accept' } }),
];

function replay(list: readonly FoldInput[]): ActorDirectoryState {
  let state = actorDirectoryFold.initial(actorDirectoryFold.name);
  for (const one of list) state = actorDirectoryFold.apply(state, one);
  return state;
}

describe('actor_directory fold', () => {
  it('tracks first and last seen, records by act, threads and task domains per actor', () => {
    const state = replay(inputs);
    const a = state.actors.get(alice)!;
    expect(a.first_seen).to.deep.equal({ sequence: 1, createdAt: Date.parse('2026-01-01T00:00:01.000Z') });
    // The wire form writes the receipt time as ISO text.
    expect(summarise(a).first_seen).to.deep.equal({ sequence: 1, at: '2026-01-01T00:00:01.000Z' });
    expect(a.last_seen.sequence).to.equal(4);
    expect(a.by_act).to.deep.equal({ INTEND: 1, KNOW: 1 });
    expect([...a.threads.keys()]).to.deep.equal([A, B]);
    expect(Object.fromEntries(a.domains)).to.deep.equal({ code: 1 });
    const b = state.actors.get(bot)!;
    // Known from its assignment (sequence 1) before it first wrote.
    expect(b.first_seen.sequence).to.equal(1);
    expect(b.record_count).to.equal(2);
    expect(b.assigned).to.equal(1);
    expect(Object.fromEntries(b.domains)).to.deep.equal({ code: 1 });
    expect(actorDirectoryFold.value(state).map((s) => [s.did, s.kind, s.thread_count])).to.deep.equal([
      [bot, 'agent', 1],
      [alice, 'user', 2],
    ]);
  });

  it('names the kind of a DID', () => {
    expect(didKind('did:sync:system:loom')).to.equal('system');
    expect(didKind('did:key:z6Mk')).to.equal('key');
    expect(didKind('did:web:example.com')).to.equal('web');
  });

  it('a checkpoint round trip gives the same state, and resuming from it equals a full replay', () => {
    const codec = actorDirectoryFold.checkpoint!;
    const half = replay(inputs.slice(0, 2));
    let resumed = codec.load(JSON.parse(JSON.stringify(codec.save(half))));
    for (const one of inputs.slice(2)) resumed = actorDirectoryFold.apply(resumed, one);
    expect(actorDirectoryFold.value(resumed)).to.deep.equal(actorDirectoryFold.value(replay(inputs)));
    expect(codec.save(resumed)).to.deep.equal(codec.save(replay(inputs)));
  });
});
