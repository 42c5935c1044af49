/**
 * Dispatch does work (issue 33): RECONCILE's dispatch to a member with a
 * definition starts a run of it (the `member-run` adapter) with the
 * dispatch budget as its ceilings; the run's outcome answers the dispatch on
 * its thread; a verdict on the run's outcome is trust evidence for the
 * member in its trust_domain, and the member's own verdict is none.
 */
import { expect } from 'chai';
import { VENDORS } from '../fakes/provider-harness.js';
import { script } from '../fakes/script.js';
import { newThread, recordInput } from '../helpers/http-server.js';
import { loopWorld, TOOL_READ, type LoopWorld } from './loop-harness.js';

const anthropic = VENDORS.find((vendor) => vendor.provider === 'anthropic')!;

describe('dispatch to a member starts a run', function () {
  this.timeout(60_000);
  let world: LoopWorld;
  before(async () => {
    world = await loopWorld(anthropic, { memberLoop: { max_turns: 5 } });
    // The member scores its trust under a domain of its own.
    const patched = await world.call('POST', '/v1/actors/define', world.owner, { label: 'Worker', trust_domain: 'code-review', work_loop: { model: 'claude-haiku-4-5', tools: [TOOL_READ], max_turns: 5, budget_usd: 5 } });
    expect(patched.status, patched.text).to.equal(201);
  });
  after(async () => world?.stop());

  it('runs the goal under the dispatch budget, answers the dispatch, and a verdict on the outcome is trust evidence in the member’s domain', async () => {
    const parent = newThread('task');
    const seeded = await world.call('POST', '/v1/records', world.owner, recordInput({ thread: parent, actor: world.owner.did, act: 'KNOW', body: { text: 'please review' }, clock: 0 }));
    expect(seeded.status, seeded.text).to.equal(201);
    const adapters = await world.call('GET', '/v1/adapters', world.admin);
    expect(adapters.json.data.map((adapter: any) => adapter.name)).to.include('member-run');
    world.fake.enqueue(script.toolCalls([{ name: TOOL_READ, input: { thread: parent } }]), script.text('Reviewed: looks right.'));
    const dispatched = await world.call('POST', '/v1/dispatch', world.owner, { actor_did: world.member, goal: 'review the change', thread_id: parent, budget: { max_cost_usd: 0.5, max_duration_secs: 120 } });
    expect(dispatched.status, dispatched.text).to.equal(201);
    let runs: any[] = [];
    for (let i = 0; i < 200 && runs.length === 0; i++) {
      runs = (await world.call('GET', `/v1/actors/${encodeURIComponent(world.member)}/runs`, world.admin)).json.data;
      if (runs.length === 0) await new Promise((resolve) => setTimeout(resolve, 25));
    }
    expect(runs).to.have.length(1);
    const row = await world.ended(runs[0].thread);
    expect(row.state).to.equal('done');
    expect(row.ceiling_usd).to.equal(0.5);
    expect(row.source_thread).to.equal(parent);
    expect(row.domain).to.equal('code-review');
    const opening = (await world.records(row.thread))[0];
    expect(opening.act).to.equal('INTEND');
    expect(opening.parents).to.deep.equal([dispatched.json.id]);
    expect(opening.body.ceilings.wall_clock_secs).to.equal(120);
    // The dispatch is answered on its own thread, by the member.
    const answers = (await world.records(dispatched.json.thread)).filter((record: any) => record.body.kind === 'core.work.dispatch_answer.v1');
    expect(answers).to.have.length(1);
    expect(answers[0].actor).to.equal(world.member);
    expect(answers[0].body.fulfills).to.equal(dispatched.json.id);
    // A verdict on the outcome: evidence for the member, in its domain; the member judging itself is none.
    const outcome = (await world.records(row.thread)).at(-1);
    expect(outcome.body.fulfills).to.equal(opening.id);
    const verdict = await world.call('POST', '/v1/records', world.owner, recordInput({ thread: row.thread, actor: world.owner.did, act: 'KNOW', body: { verdict: 'approved', fulfills: outcome.id }, clock: 0 }));
    expect(verdict.status, verdict.text).to.equal(201);
    const trust = await world.call('GET', `/v1/trust?actor=${encodeURIComponent(world.member)}`, world.admin);
    expect(trust.status, trust.text).to.equal(200);
    const rows = trust.json.data.filter((entry: any) => entry.actor === world.member);
    expect(rows).to.have.length(1);
    expect(rows[0].domain).to.equal('code-review');
    expect(rows[0].judged_by).to.equal(world.owner.did);
  });

  it('a start the member cannot make now (no provider for its model) is a failed delivery, recorded by RECONCILE', async () => {
    const defined = await world.call('POST', '/v1/actors/define', world.owner, { label: 'Elsewhere', work_loop: { model: 'gpt-5-mini', tools: [TOOL_READ] } });
    expect(defined.status, defined.text).to.equal(201);
    const parent = newThread('task');
    await world.call('POST', '/v1/records', world.owner, recordInput({ thread: parent, actor: world.owner.did, act: 'KNOW', body: { text: 'x' }, clock: 0 }));
    const dispatched = await world.call('POST', '/v1/dispatch', world.owner, { actor_did: defined.json.actor_did, goal: 'do it', thread_id: parent });
    expect(dispatched.status, dispatched.text).to.equal(201);
    let failed: any[] = [];
    for (let i = 0; i < 200 && failed.length === 0; i++) {
      failed = (await world.records(dispatched.json.thread)).filter((record: any) => record.body.kind === 'core.dispatch.failed.v1');
      if (failed.length === 0) await new Promise((resolve) => setTimeout(resolve, 25));
    }
    expect(failed).to.have.length(1);
  });
});
