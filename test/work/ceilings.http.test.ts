/**
 * Ceilings are outcomes, not crashes (issue 33 G5), and budgets overshoot
 * by at most one clamped turn (G4), also for concurrent runs of one member
 * against one daily cap. Over real HTTP with the Anthropic fake (the
 * official SDK's protocol); the per-vendor loop tests cover the adapters.
 */
import { expect } from 'chai';
import { VENDORS } from '../fakes/provider-harness.js';
import { script } from '../fakes/script.js';
import { loopWorld, TOOL_READ, type LoopWorld } from './loop-harness.js';

/** The shipped catalog's list prices of each vendor's test model, USD per token (Ollama's local models are free: no budget to test). */
const PRICES: Record<string, { IN: number; OUT: number }> = { anthropic: { IN: 1 / 1_000_000, OUT: 5 / 1_000_000 }, openai: { IN: 0.25 / 1_000_000, OUT: 2 / 1_000_000 } };

const readCall = (n: number, usage = { input: 10, output: 50 }) => script.toolCalls([{ name: TOOL_READ, input: { thread: `th_${n}` } }], { usage });

for (const vendor of VENDORS) {
  describe(`ceilings end runs with a recorded outcome (G5, ${vendor.provider})`, function () {
    this.timeout(60_000);
    let world: LoopWorld;
    beforeEach(async () => {
      world = await loopWorld(vendor, { memberLoop: { max_turns: 2 } });
    });
    afterEach(async () => world?.stop());

    it('max_turns: the run stops short after its last turn, and a new run can continue from its thread', async () => {
      world.fake.enqueue(readCall(1), readCall(2));
      const thread = await world.run({ goal: 'read three threads' });
      const row = await world.ended(thread);
      expect(row.outcome).to.equal('max_turns');
      expect(row.state).to.equal('stopped_short');
      expect(row.turns).to.equal(2);
      // Both turns' calls were answered before the run ended.
      expect(row.tool_calls_ok).to.equal(2);
      expect(world.fake.requests).to.have.length(2);
      world.fake.enqueue(script.text('Picked up where it stopped.'));
      const next = await world.run({ goal: 'finish the reading', source_thread: thread });
      const after = await world.ended(next);
      expect(after.state).to.equal('done');
      expect(after.source_thread).to.equal(thread);
    });

    it('wall clock: a loop past its seconds is cut mid-stream and ends budget_exhausted (wall_clock)', async () => {
      world.fake.enqueue(script.text('a very slow answer that takes far longer than a second to arrive', { faults: { dripMs: 100 } }));
      const started = await world.call('POST', '/v1/work/loop', world.owner, { goal: 'answer slowly', wall_clock_secs: 1 });
      expect(started.status, started.text).to.equal(201);
      const row = await world.ended(started.json.thread, 10_000);
      expect(row.outcome).to.equal('budget_exhausted');
      expect(row.state).to.equal('stopped_short');
      const records = await world.records(started.json.thread);
      expect(records.at(-1).body.budget_kind).to.equal('wall_clock');
      // The stream was aborted, not read to its end.
      const request = await world.fake.closedRequest(0);
      expect(request.closedEarly).to.equal(true);
    });

    it('token budget: the next call is refused once the budget cannot hold it, budget_exhausted (tokens)', async () => {
      world.fake.enqueue(readCall(1, { input: 100, output: 40 }), readCall(2, { input: 100, output: 40 }));
      const started = await world.call('POST', '/v1/work/loop', world.owner, { goal: 'read until the tokens run out', token_budget: 200, tools: ['read_thread'] });
      expect(started.status, started.text).to.equal(201);
      const row = await world.ended(started.json.thread);
      expect(row.outcome).to.equal('budget_exhausted');
      expect(row.state).to.equal('stopped_short');
      const records = await world.records(started.json.thread);
      const outcome = records.at(-1).body;
      expect(outcome.budget_kind).to.equal('tokens');
      // Spent at most the budget plus the one turn whose max_tokens was clamped to what was left.
      expect(outcome.input_tokens + outcome.output_tokens).to.be.at.most(200 + 140);
      for (const request of world.fake.requests) expect(request.body.max_tokens).to.be.at.most(200);
    });
  });

}

for (const vendor of VENDORS.filter((candidate) => PRICES[candidate.provider])) {
  const { IN, OUT } = PRICES[vendor.provider]!;
  describe(`budget overshoot is at most one clamped turn (G4, ${vendor.provider})`, function () {
    this.timeout(120_000);

    it('a run budget: spend stops within one turn of the budget, each call clamped to what is left', async () => {
      // Each turn costs 10 input + 50 output tokens (0.00026 USD on Anthropic's model): a budget of four of them.
      const budget = 4 * (10 * IN + 50 * OUT);
      const world = await loopWorld(vendor, { memberLoop: { budget_usd: budget, max_turns: 50 } });
      try {
        world.fake.enqueue(...Array.from({ length: 20 }, (_, i) => readCall(i)));
        const thread = await world.run({ goal: 'spend it' });
        const row = await world.ended(thread);
        expect(row.outcome).to.equal('budget_exhausted');
        expect(row.state).to.equal('stopped_short');
        const records = await world.records(thread);
        expect(records.at(-1).body.budget_kind).to.equal('cost');
        const turns = records.filter((record) => record.body.kind === 'core.work.turn.v1');
        const lastTurnCost = turns.at(-1).body.cost_usd;
        expect(row.spent_usd).to.be.at.most(budget + lastTurnCost + 1e-12);
        // Every call's output ceiling fitted the budget left before it (at its estimated input).
        let spent = 0;
        for (const turn of turns) {
          expect(spent + turn.body.max_tokens * OUT).to.be.at.most(budget + 1e-9);
          spent += turn.body.cost_usd;
        }
        expect(spent).to.be.closeTo(turns.length * (10 * IN + 50 * OUT), 1e-12);
      } finally {
        await world.stop();
      }
    });

    it('20 concurrent runs of one member against one daily cap: no two runs both spend the last cent', async () => {
      const cap = 40 * (10 * IN + 50 * OUT);
      const world = await loopWorld(vendor, { memberLoop: { daily_cost_cap_usd: cap, budget_usd: 1, max_turns: 100 }, work: { maxConcurrentRuns: 32 } });
      try {
        // The Team tier runs 64 at once (Trial: 4).
        expect((await world.call('POST', '/v1/config/actor_tier', world.admin, { actor: world.member, tier: 'team' })).status).to.equal(201);
        world.fake.enqueue(...Array.from({ length: 400 }, (_, i) => readCall(i)));
        const threads = await Promise.all(Array.from({ length: 20 }, (_, i) => world.run({ goal: `run ${i}` })));
        const rows = await Promise.all(threads.map((thread) => world.ended(thread, 30_000)));
        const total = rows.reduce((sum, row) => sum + row.spent_usd, 0);
        const perTurn = 10 * IN + 50 * OUT;
        for (const row of rows) expect(row.outcome).to.equal('budget_exhausted');
        // The reservations keep every run inside the cap: at most one turn's cost over, in all.
        expect(total).to.be.at.most(cap + perTurn + 1e-12);
        // And the cap was used, not refused early: within one turn per run of it.
        expect(total).to.be.at.least(cap - 20 * perTurn);
        const usage = await world.call('GET', `/v1/actors/${encodeURIComponent(world.member)}/usage`, world.admin);
        expect(usage.json.loop_count).to.equal(20);
        expect(usage.json.cost_usd).to.be.closeTo(total, 1e-9);
        // Another start today is refused once the cap is spent (429 WORK_DAILY_CAP_EXCEEDED), or ends at once on the little left.
        const another = await world.call('POST', `/v1/actors/${encodeURIComponent(world.member)}/runs`, world.owner, { goal: 'one more' });
        if (total >= cap) expect(another.json.code, another.text).to.equal('WORK_DAILY_CAP_EXCEEDED');
        else expect((await world.ended(another.json.thread)).outcome).to.equal('budget_exhausted');
      } finally {
        await world.stop();
      }
    });
  });
}
