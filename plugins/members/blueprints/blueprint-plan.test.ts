import { expect } from 'chai';
import { computeRecordId } from '../../../core/records/record-id.js';
import type { JsonObject } from '../../../core/records/json.js';
import { memberDid } from '../member-did.js';
import type { MemberEntry } from '../member-registry-fold.js';
import { promptBody, versionBody } from '../member-service.js';
import { actorFields, buildPlan, planHash, replaceIds, type EffectiveBlueprint, type PlanContext } from './blueprint-plan.js';

const INSTANCE = 'did:key:z6MkinstanceXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX';
const OWNER = 'did:sync:system:sa_owner';

const blueprint: EffectiveBlueprint = {
  name: 'team',
  description: null,
  source_hash: 'a'.repeat(64),
  signer: null,
  admitted_as: 'operator_unsigned',
  extends: [],
  prompts: { review: 'Review carefully.' },
  actors: [
    { label: 'Reviewer', prompt: 'review', work_loop: { model: 'gpt-5', tools: ['read'] } },
    { label: 'Clerk', work_loop: { model: 'gpt-5-mini' } },
  ],
};

function context(overrides: Partial<PlanContext> = {}): PlanContext {
  return { instanceDid: INSTANCE, owner: OWNER, highestClock: undefined, entry: () => null, promptText: async () => null, previous: null, ...overrides };
}

/** A member as the registry fold would hold it after one version. */
function existing(label: string, fields = actorFields({ label }), id = 'b'.repeat(64)): MemberEntry {
  const did = memberDid(OWNER, label);
  return { did, current: versionBody(OWNER, null, { label, owner: OWNER, did }, fields, 'defined', null), currentId: id, versions: [] };
}

describe('blueprint plans', () => {
  it('lists prompts, then definitions in actor order, then the blueprint record, with the ids they get at the next clocks', async () => {
    const plan = await buildPlan(blueprint, context({ highestClock: 41 }));
    expect(plan.records.map((r) => r.role)).to.deep.equal(['prompt', 'definition', 'definition', 'blueprint']);
    expect(plan.records.map((r) => r.record.clock)).to.deep.equal([42, 43, 44, 45]);
    for (const { record } of plan.records) {
      expect(record).to.include({ thread: 'th_actor_registry', actor: INSTANCE, act: 'LEARN', data_type: 'SCALAR', judged_by: null });
      expect(record.id).to.equal(computeRecordId(record));
    }
    const [prompt, reviewer, clerk, record] = plan.records.map((r) => r.record);
    expect(prompt!.body).to.deep.equal(promptBody(memberDid(OWNER, 'Reviewer'), 'Review carefully.'));
    expect((reviewer!.body['work_loop'] as JsonObject)['system_prompt_ref']).to.equal(`record:${prompt!.id}`);
    expect(clerk!.body).to.include({ actor_did: memberDid(OWNER, 'Clerk'), version: 1, owner: OWNER, by: OWNER });
    expect(record!.body['members']).to.deep.equal([
      { label: 'Reviewer', actor_did: memberDid(OWNER, 'Reviewer'), definition: reviewer!.id },
      { label: 'Clerk', actor_did: memberDid(OWNER, 'Clerk'), definition: clerk!.id },
    ]);
    expect(plan.blueprint_record).to.equal(record!.id);
  });

  it('hashes what is written, not the clocks: the same plan at other clocks has other ids and the same hash', async () => {
    const first = await buildPlan(blueprint, context());
    const later = await buildPlan(blueprint, context({ highestClock: 1000 }));
    expect(later.records.map((r) => r.record.id)).to.not.deep.equal(first.records.map((r) => r.record.id));
    expect(later.plan_hash).to.equal(first.plan_hash);
    expect((await buildPlan(blueprint, context())).plan_hash).to.equal(first.plan_hash);
    const changed = await buildPlan({ ...blueprint, prompts: { review: 'Review quickly.' } }, context());
    expect(changed.plan_hash).to.not.equal(first.plan_hash);
    const otherOwner = await buildPlan(blueprint, context({ owner: 'did:sync:system:sa_other' }));
    expect(otherOwner.plan_hash).to.not.equal(first.plan_hash);
    expect(planHash('team', 'a'.repeat(64), first.records)).to.equal(first.plan_hash);
    expect(planHash('team', 'c'.repeat(64), first.records)).to.not.equal(first.plan_hash);
  });

  it('pins the versions it replaces: another current version of a member is another hash', async () => {
    const clerk = (id: string) => existing('Clerk', actorFields({ label: 'Clerk', work_loop: { model: 'gpt-5' } }), id);
    const one = await buildPlan(blueprint, context({ entry: (did) => (did === memberDid(OWNER, 'Clerk') ? clerk('1'.repeat(64)) : null) }));
    const two = await buildPlan(blueprint, context({ entry: (did) => (did === memberDid(OWNER, 'Clerk') ? clerk('2'.repeat(64)) : null) }));
    expect(one.members[1]).to.include({ change: 'updated' });
    expect(one.records[2]!.record.parents).to.deep.equal(['1'.repeat(64)]);
    expect(one.records[2]!.record.body).to.include({ version: 2 });
    expect(two.plan_hash).to.not.equal(one.plan_hash);
  });

  it('writes nothing for what is already so: unchanged members, the same words, the same blueprint record', async () => {
    const fresh = await buildPlan(blueprint, context());
    const promptId = fresh.records[0]!.record.id;
    const reviewerFields = actorFields(blueprint.actors[0]!);
    reviewerFields.work_loop.system_prompt_ref = `record:${promptId}`;
    const entries = new Map([
      [memberDid(OWNER, 'Reviewer'), existing('Reviewer', reviewerFields, fresh.records[1]!.record.id)],
      [memberDid(OWNER, 'Clerk'), existing('Clerk', actorFields(blueprint.actors[1]!), fresh.records[2]!.record.id)],
    ]);
    const settled = context({ entry: (did) => entries.get(did) ?? null, promptText: async (id) => (id === promptId ? 'Review carefully.' : null) });
    const replan = await buildPlan(blueprint, settled);
    expect(replan.members.map((m) => m.change)).to.deep.equal(['unchanged', 'unchanged']);
    expect(replan.records.map((r) => r.role)).to.deep.equal(['blueprint']);
    const previous = { id: fresh.blueprint_record!, body: fresh.records[3]!.record.body };
    const done = await buildPlan(blueprint, { ...settled, previous });
    expect(done.records).to.deep.equal([]);
    expect(done.blueprint_record).to.equal(null);
    // New words for the same member: a prompt record parented to the old one, and a new version.
    const reworded = await buildPlan({ ...blueprint, prompts: { review: 'Review twice.' } }, { ...settled, previous });
    expect(reworded.records.map((r) => r.role)).to.deep.equal(['prompt', 'definition', 'blueprint']);
    expect(reworded.records[0]!.record.parents).to.deep.equal([promptId]);
    expect(reworded.records[2]!.record.parents).to.deep.equal([fresh.blueprint_record]);
  });

  it('replaces ids inside strings, arrays and objects, leaving other text alone', () => {
    const id = 'd'.repeat(64);
    const value = { ref: `record:${id}`, list: [id, 'e'.repeat(64)], nested: { n: 1, s: 'plain' } };
    expect(replaceIds(value, new Map([[id, 'plan:0']]))).to.deep.equal({ ref: 'record:plan:0', list: ['plan:0', 'e'.repeat(64)], nested: { n: 1, s: 'plain' } });
  });
});
