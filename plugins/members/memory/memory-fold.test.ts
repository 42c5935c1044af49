/** member_memory: the newest memory per name stands, a cancellation drops it, stray records are skipped, and the checkpoint round-trips. */
import { expect } from 'chai';
import { replayFold } from '../../../core/folds/fold.js';
import type { JsonObject } from '../../../core/records/json.js';
import { TrustLog } from '../../../test/helpers/trust-log.js';
import { memberMemoryFold } from './memory-fold.js';
import { KIND_MEMORY, memoryThread } from './memory.js';

const MEMBER = 'did:sync:agent:reviewer-0123456789abcdef';
const OTHER = 'did:sync:agent:writer-0123456789abcdef';
const INSTANCE = 'did:sync:system:loom-test';

const created = (name: string, description: string, member = MEMBER): JsonObject => ({
  kind: KIND_MEMORY,
  status: 'created',
  name,
  memory_type: 'user',
  description,
  confidence: 0.8,
  tags: [],
  source_thread: null,
  domain: null,
  meta: { member, by: member, imported_from: null },
});

describe('member_memory fold', () => {
  const log = new TrustLog();
  log.add(INSTANCE, 'LEARN', created('a', 'first'), { thread: memoryThread(MEMBER) });
  log.add(INSTANCE, 'LEARN', created('b', 'kept'), { thread: memoryThread(MEMBER) });
  log.add(INSTANCE, 'LEARN', created('a', 'second'), { thread: memoryThread(MEMBER) });
  log.add(INSTANCE, 'LEARN', { kind: KIND_MEMORY, status: 'cancelled', name: 'b', meta: { member: MEMBER, by: MEMBER } }, { thread: memoryThread(MEMBER) });
  // Written on the wrong thread: it does not speak for OTHER.
  log.add(INSTANCE, 'LEARN', created('planted', 'x', OTHER), { thread: memoryThread(MEMBER) });
  log.add(INSTANCE, 'LEARN', created('c', 'other member', OTHER), { thread: memoryThread(OTHER) });
  log.add(INSTANCE, 'LEARN', { ...created('d', 'unknown type'), memory_type: 'opinion' }, { thread: memoryThread(MEMBER) });

  const state = () => log.inputs.reduce((s, input) => memberMemoryFold.apply(s, input), memberMemoryFold.initial('member_memory'));

  it('keeps the newest memory per name and drops cancelled ones', () => {
    const live = state().members.get(MEMBER)!;
    expect([...live.keys()]).to.deep.equal(['a']);
    expect(live.get('a')!.body.description).to.equal('second');
    expect(live.get('a')!.record).to.equal(log.inputs[2]!.record.id);
    expect([...state().members.get(OTHER)!.keys()]).to.deep.equal(['c']);
    expect(replayFold(memberMemoryFold, 'member_memory', log.inputs)).to.deep.equal({ members: 2, memories: 2 });
  });

  it('round-trips its checkpoint through JSON', () => {
    const checkpoint = memberMemoryFold.checkpoint!;
    const loaded = checkpoint.load(JSON.parse(JSON.stringify(checkpoint.save(state()))));
    expect(JSON.stringify(checkpoint.save(loaded))).to.equal(JSON.stringify(checkpoint.save(state())));
    expect(loaded.members.get(MEMBER)!.get('a')!.body.description).to.equal('second');
    expect(() => checkpoint.load({})).to.throw(/member_memory/);
  });
});
