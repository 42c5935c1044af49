/**
 * Decisions over real HTTP (spec §2.7, §3, §4.9; issue 34, G6) against the
 * Anthropic fake: a run raises a decision (the `ask` built-in, a tool its
 * definition gates, a destructive tool where the tier says so, a blueprint
 * proposal), waits `waiting_on_you` with no provider call through a restart
 * and a simulated 24 hours, and resumes on the answer's words (never an
 * id). Every refusal leaves the log head where it was.
 */
import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { Type } from 'typebox';
import { definePlugin } from '../../core/plugin/plugin.js';
import { InstanceKey } from '../../plugins/federation/index.js';
import { KIND_SUITE, signBlueprint, ToolRegistryToken, type Blueprint } from '../../plugins/members/index.js';
import { resolve } from '../../core/di/token.js';
import { VENDORS } from '../fakes/provider-harness.js';
import { script } from '../fakes/script.js';
import { bearer, createAccount, type Credential } from '../helpers/auth.js';
import { newThread, recordInput, request, type HttpAnswer } from '../helpers/http-server.js';
import { loopWorld, MODEL_OF, TOOL_READ, TOOL_WRITE, type LoopWorld } from './loop-harness.js';

const DESTROY = 'test_destroy_note';
const HOUR = 3_600_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A destructive tool a member may be given (scope records:write): it echoes its input. */
const destroyPlugin = definePlugin({
  name: 'decision-test-tools',
  version: '1.0.0',
  dependencies: ['members'],
  register(scope) {
    resolve(scope.container, ToolRegistryToken).add({
      name: DESTROY,
      description: 'Deletes a note.',
      inputSchema: Type.Object({ thread: Type.String() }),
      scope: 'records:write',
      readOnly: false,
      destructive: true,
      plugin: scope.name,
      run: async (input) => input,
    });
  },
});

const anthropic = VENDORS.find((vendor) => vendor.provider === 'anthropic')!;

describe('decisions (HTTP)', function () {
  this.timeout(90_000);
  let world: LoopWorld;
  let offset = 0;
  const trusted = InstanceKey.fromSeed(randomBytes(32));

  const head = () => world.server.loom.engine.store.watermark();
  const decide = (id: string, body: unknown, who: Credential = world.owner) => world.call('POST', `/v1/decisions/${id}/decide`, who, body);
  const refused = async (status: number, code: string, send: () => Promise<HttpAnswer>) => {
    const before = await head();
    const answer = await send();
    expect(answer.status, answer.text.slice(0, 400)).to.equal(status);
    expect(answer.json).to.include({ object: 'error', code });
    expect(await head(), `${code} wrote nothing`).to.equal(before);
  };
  /** Waits until the run is not running (waiting_on_you or ended). */
  const settled = (thread: string) => world.ended(thread);
  /** Waits until the run has its outcome (waiting_on_you is not one). */
  const finished = async (thread: string) => {
    const deadline = Date.now() + 15_000;
    for (;;) {
      const row = (await world.call('GET', `/v1/runs/${thread}`, world.admin)).json;
      if (row.outcome !== null) return row;
      if (Date.now() > deadline) throw new Error(`run ${thread} has no outcome: ${JSON.stringify(row)}`);
      await sleep(20);
    }
  };
  const toolResults = async (thread: string) => (await world.records(thread)).filter((r: any) => r.body.kind === 'core.work.tool_result.v1');
  /** The tool_result blocks of the last request the fake received (Anthropic wire). */
  const lastToolResults = (): any[] => {
    const body = JSON.parse(world.fake.requests.at(-1)!.rawBody);
    return body.messages.flatMap((m: any) => (Array.isArray(m.content) ? m.content : [])).filter((block: any) => block.type === 'tool_result');
  };

  before(async () => {
    world = await loopWorld(anthropic, {
      plugins: [destroyPlugin],
      clock: () => Date.now() + offset,
      memberLoop: { tools: [TOOL_READ, TOOL_WRITE, DESTROY, 'propose_blueprint'], approval_required: [TOOL_WRITE] },
    });
    const signers = await world.call('POST', '/v1/config/blueprint_signers', world.admin, { signer: trusted.did, note: 'tests' });
    expect(signers.status, signers.text).to.equal(201);
  });
  after(async () => world?.stop());

  it('ask: the run waits (no provider call) through refusals, a restart and 24 hours, then resumes on the label and description, never the id', async () => {
    world.fake.enqueue(
      script.toolCalls([
        {
          id: 'toolu_ask1',
          name: 'ask',
          input: {
            question: 'Which colour for the shed?',
            options: [
              { id: 'opt_zq7', label: 'Cerulean', description: 'The calm blue of the logo.', recommended: true },
              { id: 'opt_k2m', label: 'Vermilion', description: 'A loud red.' },
            ],
            allow_other: true,
          },
        },
      ]),
      script.text('Painted it cerulean.'),
    );
    const thread = await world.run({ goal: 'paint the shed' });
    const waiting = await settled(thread);
    expect(waiting.state).to.equal('waiting_on_you');
    expect(waiting.outcome).to.equal(null);
    expect(waiting.ask).to.include({ question: 'Which colour for the shed?', about: 'ask', proposal_kind: null, allow_other: true, multi: false, tool: 'ask', call_id: 'toolu_ask1' });
    expect(waiting.ask.options.map((o: any) => [o.id, o.recommended])).to.deep.equal([
      ['opt_zq7', true],
      ['opt_k2m', false],
    ]);
    const id: string = waiting.ask.id;
    const request = (await world.records(thread)).find((r: any) => r.body.kind === 'core.work.decision_request.v1');
    expect(request).to.include({ id, act: 'KNOW', actor: world.member });
    expect(request.body).to.include({ awaits: 'actor_decision', run: thread });
    const asked = world.fake.requests.length;

    const listed = await world.call('GET', `/v1/decisions?run=${thread}`);
    expect(listed.status, listed.text).to.equal(200);
    expect(listed.json.data.map((d: any) => d.id)).to.deep.equal([id]);
    expect(listed.json.data[0]).to.include({ object: 'decision', state: 'pending', run: thread, thread, actor: world.member, goal: 'paint the shed' });

    await refused(400, 'BAD_OPTION', () => decide(id, { decision: 'opt_nope' }));
    await refused(400, 'MULTI_NOT_ALLOWED', () => decide(id, { decision: 'opt_zq7', decisions: ['opt_k2m'] }));
    await refused(400, 'PROVIDED_VALUE_REQUIRED', () => decide(id, { decision: 'other' }));
    await refused(400, 'PROVIDED_VALUE_REQUIRED', () => decide(id, { decision: 'other', provided_value: '  ' }));
    await refused(422, 'INVALID_BODY', () => decide(id, { reason: 'no decision' }));
    await refused(404, 'NOT_FOUND', () => decide('f'.repeat(64), { decision: 'opt_zq7' }));

    // A restart, then a day passes: still waiting, and the provider was never asked meanwhile.
    await world.restart();
    offset += 24 * HOUR;
    await sleep(300);
    const later = await world.call('GET', `/v1/runs/${thread}`, world.admin);
    expect(later.json.state).to.equal('waiting_on_you');
    expect(later.json.ask.id).to.equal(id);
    expect(world.fake.requests.length, 'no provider call while waiting').to.equal(asked);

    const answered = await decide(id, { decision: 'opt_zq7', reason: 'matches the logo' });
    expect(answered.status, answered.text).to.equal(201);
    expect(answered.json).to.include({ object: 'decision_outcome', decision: id, kind: 'ask', run: thread, approved: null, installed: null, plan: null });
    expect(answered.json.words).to.equal('Cerulean: The calm blue of the logo.\nReason: matches the logo');
    const done = await settled(thread);
    // Not budget_exhausted: the day it waited is not on its (trial, 600 s) wall clock.
    expect(done).to.include({ state: 'done', outcome: 'completed', ask: null });
    const results = lastToolResults();
    expect(results).to.have.length(1);
    expect(JSON.stringify(results[0])).to.contain('Cerulean: The calm blue of the logo.').and.not.contain('opt_zq7');
    const records = await world.records(thread);
    const answer = records.find((r: any) => r.body.kind === 'core.work.decision_answer.v1');
    expect(answer).to.include({ act: 'DO', actor: world.owner.did });
    expect(answer.body).to.include({ fulfills: id });
    expect(answer.parents).to.deep.equal([id]);
    await refused(409, 'DECISION_CLOSED', () => decide(id, { decision: 'opt_k2m' }));
    // Back to the present: a run's start is stamped by the engine's own clock, so later runs start "now" again.
    offset = 0;
  });

  it('a gated call: rejection answers only that call (reason verbatim) while the other call of the turn runs; approval through the run-events door runs it', async () => {
    world.fake.enqueue(
      script.toolCalls([
        { id: 'toolu_w1', name: TOOL_WRITE, input: { thread: 'th_note' } },
        { id: 'toolu_r1', name: TOOL_READ, input: { thread: 'th_read' } },
      ]),
      script.text('Understood, no note.'),
    );
    const thread = await world.run({ goal: 'note it' });
    const waiting = await settled(thread);
    expect(waiting.state).to.equal('waiting_on_you');
    expect(waiting.ask).to.include({ about: 'tool_call', tool: TOOL_WRITE, call_id: 'toolu_w1', allow_other: false, multi: false });
    expect(waiting.ask.input).to.deep.equal({ thread: 'th_note' });
    expect(waiting.ask.options.map((o: any) => o.id)).to.deep.equal(['approve', 'reject']);
    expect(waiting.ask.reason).to.be.a('string');
    await refused(400, 'OTHER_NOT_ALLOWED', () => decide(waiting.ask.id, { decision: 'other', provided_value: 'write it elsewhere' }));

    const reason = 'Notes go to the wiki, not here.';
    const rejected = await decide(waiting.ask.id, { decision: 'reject', reason });
    expect(rejected.status, rejected.text).to.equal(201);
    expect(rejected.json).to.include({ kind: 'tool_call', approved: false });
    expect(await settled(thread)).to.include({ state: 'done', outcome: 'completed' });
    const results = await toolResults(thread);
    const byCall = Object.fromEntries(results.map((r: any) => [r.body.call_id, r.body]));
    expect(byCall['toolu_w1']).to.include({ ok: false });
    expect(byCall['toolu_w1'].error.code).to.equal('REJECTED');
    expect(byCall['toolu_w1'].error.message).to.contain(reason);
    expect(byCall['toolu_r1']).to.include({ ok: true });
    expect(JSON.stringify(lastToolResults())).to.contain(reason);

    // Approved through the run-events door: the call runs.
    world.fake.enqueue(script.toolCalls([{ id: 'toolu_w2', name: TOOL_WRITE, input: { thread: 'th_n2' } }]), script.text('Written.'));
    const second = await world.run({ goal: 'note it again' });
    expect((await settled(second)).state).to.equal('waiting_on_you');
    const viaEvents = await world.call('POST', `/v1/runs/${second}/events`, world.owner, { type: 'decision', decision: 'approve' });
    expect(viaEvents.status, viaEvents.text).to.equal(201);
    expect(viaEvents.json).to.include({ object: 'run_event', type: 'decision', thread: second });
    expect(viaEvents.json.decision).to.include({ kind: 'tool_call', approved: true });
    expect(await settled(second)).to.include({ state: 'done', tool_calls_ok: 1 });
    const approvedResult = (await toolResults(second))[0].body;
    expect(approvedResult).to.include({ ok: true });
    expect(approvedResult.output).to.deep.equal({ thread: 'th_n2' });
    // Nothing open any more: the door refuses, writing nothing.
    await refused(409, 'DECISION_CLOSED', () => world.call('POST', `/v1/runs/${second}/events`, world.owner, { type: 'decision', decision: 'approve' }));
  });

  it('a destructive tool waits on approval only where the tier says so (approve_destructive on the tier topic)', async () => {
    world.fake.enqueue(script.toolCalls([{ id: 'toolu_d1', name: DESTROY, input: { thread: 'th_a' } }]), script.text('Deleted.'));
    const free = await world.run({ goal: 'delete a' });
    expect(await settled(free)).to.include({ state: 'done' });
    expect((await world.records(free)).some((r: any) => r.body.kind === 'core.work.decision_request.v1')).to.equal(false);

    const tier = await world.call('POST', '/v1/config/tier', world.admin, { tier: 'trial', approve_destructive: true });
    expect(tier.status, tier.text).to.equal(201);
    world.fake.enqueue(script.toolCalls([{ id: 'toolu_d2', name: DESTROY, input: { thread: 'th_b' } }]), script.text('Deleted.'));
    const gated = await world.run({ goal: 'delete b' });
    const waiting = await settled(gated);
    expect(waiting.state).to.equal('waiting_on_you');
    expect(waiting.ask).to.include({ about: 'tool_call', tool: DESTROY });
    expect(waiting.ask.reason).to.contain('destructive');
    expect((await decide(waiting.ask.id, { decision: 'approve' })).status).to.equal(201);
    expect(await settled(gated)).to.include({ state: 'done', tool_calls_ok: 1 });
    const off = await world.call('POST', '/v1/config/tier', world.admin, { tier: 'trial', approve_destructive: false });
    expect(off.status, off.text).to.equal(201);
  });

  it('cancelling a waiting run cancels its ask (a DO with cancels); the ask is then closed', async () => {
    world.fake.enqueue(script.toolCalls([{ id: 'toolu_ask2', name: 'ask', input: { question: 'Proceed?' } }]));
    const thread = await world.run({ goal: 'maybe proceed' });
    const waiting = await settled(thread);
    expect(waiting.state).to.equal('waiting_on_you');
    expect(waiting.ask).to.include({ allow_other: true });
    const cancel = await world.call('POST', `/v1/work/loop/${thread}/cancel`, world.owner, { reason: 'not needed' });
    expect(cancel.status, cancel.text).to.equal(202);
    expect(await finished(thread)).to.include({ state: 'stopped', outcome: 'cancelled', ask: null });
    const records = await world.records(thread);
    const withdrawn = records.find((r: any) => r.body.kind === 'core.work.decision_answer.v1');
    expect(withdrawn).to.include({ act: 'DO' });
    expect(withdrawn.body).to.include({ cancels: waiting.ask.id });
    expect(withdrawn.body).to.not.have.property('fulfills');
    expect((await world.call('GET', `/v1/decisions?run=${thread}`)).json.data).to.deep.equal([]);
    await refused(409, 'DECISION_CLOSED', () => decide(waiting.ask.id, { decision: 'other', provided_value: 'yes' }));
  });

  it('lists by run, actor and thread, pages with next_cursor, shows only what the caller may read, and lets only the starter, the owner or an operator answer', async () => {
    world.fake.enqueue(script.toolCalls([{ id: 'toolu_a', name: 'ask', input: { question: 'First?' } }]), script.toolCalls([{ id: 'toolu_b', name: 'ask', input: { question: 'Second?' } }]));
    const first = await world.run({ goal: 'first' });
    expect((await settled(first)).state).to.equal('waiting_on_you');
    const second = await world.run({ goal: 'second' });
    expect((await settled(second)).state).to.equal('waiting_on_you');

    const mine = (await world.call('GET', `/v1/decisions?actor=${encodeURIComponent(world.member)}`)).json.data.map((d: any) => d.run);
    expect(mine).to.include.members([first, second]);
    expect((await world.call('GET', `/v1/decisions?thread=${second}`)).json.data.map((d: any) => d.run)).to.deep.equal([second]);
    expect((await world.call('GET', `/v1/decisions?actor=did:sync:agent:nobody`)).json.data).to.deep.equal([]);
    const page1 = await world.call('GET', `/v1/decisions?actor=${encodeURIComponent(world.member)}&limit=1`);
    expect(page1.json.has_more).to.equal(true);
    const page2 = await world.call('GET', `/v1/decisions?actor=${encodeURIComponent(world.member)}&limit=1&after=${page1.json.next_cursor}`);
    expect(page2.json.data[0].id).to.not.equal(page1.json.data[0].id);
    await refused(400, 'INVALID_CURSOR', () => world.call('GET', '/v1/decisions?after=nope'));

    // Another tenant: a credential reading only a thread of its own sees none of it.
    const elsewhere = newThread('elsewhere');
    const tenant = await createAccount(world.server.url, world.admin, 'tenant', [`thread:${elsewhere}:read`, `thread:${elsewhere}:write`]);
    const seen = await world.call('GET', '/v1/decisions', tenant);
    expect(seen.status, seen.text).to.equal(200);
    expect(seen.json.data).to.deep.equal([]);
    const firstAsk = (await world.call('GET', `/v1/decisions?run=${first}`)).json.data[0].id;
    await refused(404, 'NOT_FOUND', () => decide(firstAsk, { decision: 'other', provided_value: 'x' }, tenant));

    // Someone who may read it but neither started it nor owns the member: refused. The member itself: refused.
    const stranger = await createAccount(world.server.url, world.admin, 'stranger', ['records:read', 'records:write']);
    await refused(403, 'FORBIDDEN', () => decide(firstAsk, { decision: 'other', provided_value: 'x' }, stranger));
    await refused(403, 'FORBIDDEN', () =>
      request(world.server.url, 'POST', `/v1/decisions/${firstAsk}/decide`, { headers: { ...bearer(world.admin), 'x-service-actor': world.member }, json: { decision: 'other', provided_value: 'x' } }),
    );
    // An operator may.
    world.fake.enqueue(script.text('ok 1'), script.text('ok 2'));
    expect((await decide(firstAsk, { decision: 'other', provided_value: 'Go on.' }, world.admin)).status).to.equal(201);
    const secondAsk = (await world.call('GET', `/v1/decisions?run=${second}`)).json.data[0].id;
    expect((await decide(secondAsk, { decision: 'other', provided_value: 'Go on too.' })).status).to.equal(201);
    expect((await settled(first)).state).to.equal('done');
    expect((await settled(second)).state).to.equal('done');
  });

  it('a blueprint proposal: approving installs it as the approver ({kind: blueprint_proposal, installed}); a changed plan is 409 PLAN_HASH_MISMATCH; the proposer may not judge runs under it', async () => {
    const blueprint = (name: string, label: string): Blueprint =>
      signBlueprint(trusted, { blueprint_version: 1, name, actors: [{ label, work_loop: { model: MODEL_OF['anthropic'], tools: [TOOL_READ], max_turns: 3 } }] });
    world.fake.enqueue(script.toolCalls([{ id: 'toolu_p1', name: 'propose_blueprint', input: { blueprint: blueprint('team-a', 'Scout'), why: 'a scout reads threads' } }]), script.text('Scout installed.'));
    const thread = await world.run({ goal: 'grow the team' });
    const waiting = await settled(thread);
    expect(waiting.state, JSON.stringify((await toolResults(thread)).map((r: any) => r.body))).to.equal('waiting_on_you');
    expect(waiting.ask).to.include({ about: 'blueprint_proposal', proposal_kind: 'blueprint', tool: 'propose_blueprint', reason: 'a scout reads threads' });
    expect(waiting.ask.plan_hash).to.match(/^[0-9a-f]{64}$/);
    const approved = await decide(waiting.ask.id, { decision: 'approve' });
    expect(approved.status, approved.text).to.equal(201);
    expect(approved.json).to.include({ kind: 'blueprint_proposal', installed: true, approved: true });
    expect(approved.json.plan.plan_hash).to.equal(waiting.ask.plan_hash);
    const scout = approved.json.plan.members[0];
    const definition = await world.call('GET', `/v1/records/${scout.definition}`, world.admin);
    expect(definition.json.body).to.include({ owner: world.owner.did, by: world.owner.did, proposed_by: world.member, label: 'Scout' });
    expect(await settled(thread)).to.include({ state: 'done' });
    expect((await toolResults(thread))[0].body).to.include({ ok: true });

    // The proposer judging runs under what it proposed: 400 VERDICT_SELF_JUDGMENT, nothing written.
    const suite = await world.call('POST', '/v1/records', world.owner, recordInput({ thread: newThread('suites'), actor: world.owner.did, act: 'KNOW', body: { kind: KIND_SUITE, name: 's', cases: [{ id: 'c', expected_tools: [TOOL_READ] }] } }));
    expect(suite.status, suite.text).to.equal(201);
    await refused(400, 'VERDICT_SELF_JUDGMENT', () =>
      request(world.server.url, 'POST', '/v1/evals/score', { headers: { ...bearer(world.admin), 'x-service-actor': world.member }, json: { suite: suite.json.id, actor: scout.actor_did, definition: scout.definition } }),
    );

    // A plan that changed since it was proposed: refused, nothing written, still pending; then rejected.
    world.fake.enqueue(script.toolCalls([{ id: 'toolu_p2', name: 'propose_blueprint', input: { blueprint: blueprint('team-b', 'Ranger') } }]), script.text('Understood.'));
    const second = await world.run({ goal: 'grow again' });
    const proposal = await settled(second);
    expect(proposal.state).to.equal('waiting_on_you');
    const defined = await world.call('POST', '/v1/actors/define', world.owner, { label: 'Ranger', work_loop: { model: MODEL_OF['anthropic'], tools: [TOOL_READ], max_turns: 9 } });
    expect(defined.status, defined.text).to.equal(201);
    await refused(409, 'PLAN_HASH_MISMATCH', () => decide(proposal.ask.id, { decision: 'approve' }));
    expect((await world.call('GET', `/v1/runs/${second}`, world.admin)).json.state).to.equal('waiting_on_you');
    const rejected = await decide(proposal.ask.id, { decision: 'reject', reason: 'Ranger exists already.' });
    expect(rejected.json).to.include({ kind: 'blueprint_proposal', installed: false, approved: false });
    expect(await settled(second)).to.include({ state: 'done' });
    const result = (await toolResults(second))[0].body;
    expect(result.error.code).to.equal('REJECTED');
    expect(result.error.message).to.contain('Ranger exists already.');
  });

  it('a definition naming an unknown tool in approval_required is refused at define (TOOL_NOT_DECLARED), writing nothing', async () => {
    await refused(422, 'TOOL_NOT_DECLARED', () => world.call('POST', '/v1/actors/define', world.owner, { label: 'Gated', work_loop: { model: MODEL_OF['anthropic'], tools: [TOOL_READ], approval_required: ['no_such_tool'] } }));
  });

  it('GET /v1/capabilities names /v1/decisions as conventions.decisions_path', async () => {
    const answer = await world.call('GET', '/v1/capabilities');
    expect(answer.json.conventions.decisions_path).to.equal('/v1/decisions');
  });
});
