/**
 * The work loop end to end over real HTTP, on each provider's fake (the
 * official SDKs' wire protocols): a member runs a goal, every turn, tool
 * call and result is a record on the run thread, the run row folds them.
 */
import { expect } from 'chai';
import { VENDORS } from '../fakes/provider-harness.js';
import { script } from '../fakes/script.js';
import { loopWorld, TOOL_FAIL, TOOL_READ, type LoopWorld } from './loop-harness.js';

const kinds = (records: any[]) => records.map((record) => record.body.kind);

for (const vendor of VENDORS) {
  describe(`work loop (${vendor.provider})`, function () {
    this.timeout(60_000);
    let world: LoopWorld;
    before(async () => {
      world = await loopWorld(vendor, { memberLoop: { tools: [TOOL_READ, TOOL_FAIL] } });
    });
    after(async () => world?.stop());

    it('runs a goal: a tool call, its result, a closing turn, the outcome, all as records of the member', async () => {
      world.fake.enqueue(script.toolCalls([{ id: 'call_1', name: TOOL_READ, input: { thread: 'th_x' } }], { usage: { input: 100, output: 20 } }), script.text('All done.', { usage: { input: 150, output: 10 } }));
      const thread = await world.run({ goal: 'read th_x and report' });
      const row = await world.ended(thread);
      expect(row.state).to.equal('done');
      expect(row.outcome).to.equal('completed');
      expect(row.turns).to.equal(2);
      expect(row.tool_calls_ok).to.equal(1);
      expect(row.summary).to.equal('All done.');
      const records = await world.records(thread);
      expect(kinds(records)).to.deep.equal(['core.work.run.v1', 'core.work.turn.v1', 'core.work.tool_call.v1', 'core.work.tool_result.v1', 'core.work.turn.v1', 'core.work.loop_outcome.v1']);
      for (const record of records) expect(record.actor).to.equal(world.member);
      const result = records[3];
      expect(result.body.ok).to.equal(true);
      expect(result.body.duration_ms).to.be.a('number');
      expect(result.parents).to.deep.equal([records[2].id]);
      // The second request carried the call and its result back, in the vendor's own shape.
      expect(world.fake.requests).to.have.length(2);
      expect(world.fake.requests[1]!.rawBody).to.contain('th_x');
    });

    it('the guardrail: after three identical failures the next identical call is blocked, and one more halts the run', async () => {
      const failing = () => script.toolCalls([{ name: TOOL_FAIL, input: { thread: 'th_same' } }]);
      world.fake.enqueue(failing(), failing(), failing(), failing(), failing(), script.text('never asked for'));
      const thread = await world.run({ goal: 'keep trying' });
      const row = await world.ended(thread);
      expect(row.outcome).to.equal('guardrail_halt');
      expect(row.state).to.equal('stopped');
      const records = await world.records(thread);
      const verdicts = records.filter((record: any) => record.body.kind === 'core.work.guardrail.v1').map((record: any) => record.body.verdict);
      expect(verdicts).to.deep.equal(['block', 'halt']);
      const codes = records.filter((record: any) => record.body.kind === 'core.work.tool_result.v1').map((record: any) => record.body.error?.code);
      expect(codes).to.deep.equal(['NOT_FOUND', 'NOT_FOUND', 'NOT_FOUND', 'GUARDRAIL_BLOCKED', 'RUN_ENDED']);
      expect(records.at(-1).body).to.include({ outcome: 'guardrail_halt', tool: TOOL_FAIL, threshold: 3 });
      // The sixth answer was never asked for.
      expect(world.fake.pending()).to.equal(1);
    });
  });
}
