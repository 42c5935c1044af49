/**
 * Cancel stops spending at once (issue 33 G1): after POST …/cancel answers,
 * the provider fake sees its socket closed within 100 ms (p99 over 50 runs)
 * and the `cancelled` outcome lands within 250 ms. The fake slow-drips its
 * stream, so the only way the socket closes early is the abort signal.
 */
import { expect } from 'chai';
import { performance } from 'node:perf_hooks';
import { VENDORS } from '../fakes/provider-harness.js';
import { script } from '../fakes/script.js';
import { loopWorld, type LoopWorld } from './loop-harness.js';

const RUNS = 50;

function p99(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(0.99 * sorted.length) - 1)]!;
}

for (const vendor of VENDORS) {
  describe(`cancel (${vendor.provider})`, function () {
    this.timeout(120_000);
    let world: LoopWorld;
    before(async () => {
      world = await loopWorld(vendor);
    });
    after(async () => world?.stop());

    it(`closes the provider socket within 100 ms and records the outcome within 250 ms (p99 of ${vendor.provider === 'anthropic' ? RUNS : 10} runs)`, async () => {
      const runs = vendor.provider === 'anthropic' ? RUNS : 10;
      const closed: number[] = [];
      const landed: number[] = [];
      for (let i = 0; i < runs; i++) {
        const index = world.fake.requests.length;
        world.fake.enqueue(script.text('a long answer that drips one byte at a time, far slower than anyone waits', { faults: { dripMs: 50 } }));
        // The operator's own loop: no daily loop cap to run into over 50 runs.
        const started = await world.call('POST', '/v1/work/loop', world.admin, { goal: `cancel me ${i}` });
        expect(started.status, started.text).to.equal(201);
        const thread = started.json.thread;
        while (world.fake.requests.length <= index) await new Promise((resolve) => setTimeout(resolve, 2));
        const answer = await world.call('POST', `/v1/work/loop/${thread}/cancel`, world.admin, { reason: 'changed my mind' });
        const answeredAt = performance.now();
        expect(answer.status, answer.text).to.equal(202);
        const request = await world.fake.closedRequest(index);
        expect(request.closedEarly).to.equal(true);
        closed.push(request.closedAt! - answeredAt);
        const row = await world.ended(thread, 5_000);
        landed.push(performance.now() - answeredAt);
        expect(row.outcome).to.equal('cancelled');
        expect(row.state).to.equal('stopped');
      }
      if (process.env['LOOM_TEST_FIGURES']) console.log(`      p99 socket closed ${p99(closed).toFixed(1)} ms, outcome landed ${p99(landed).toFixed(1)} ms after cancel (${runs} runs)`);
      expect(p99(closed), `socket closed after cancel (ms): ${closed.map((ms) => ms.toFixed(1)).join(', ')}`).to.be.at.most(100);
      expect(p99(landed), `outcome landed after cancel (ms): ${landed.map((ms) => ms.toFixed(1)).join(', ')}`).to.be.at.most(250);
    });

    it('the outcome names who cancelled and why; a second cancel writes nothing', async () => {
      world.fake.enqueue(script.text('slow', { faults: { dripMs: 50 } }));
      const index = world.fake.requests.length;
      const thread = await world.run({ goal: 'cancel me once' });
      while (world.fake.requests.length <= index) await new Promise((resolve) => setTimeout(resolve, 2));
      const first = await world.call('POST', `/v1/work/loop/${thread}/cancel`, world.owner, { reason: 'wrong goal' });
      expect(first.status, first.text).to.equal(202);
      await world.ended(thread);
      const records = await world.records(thread);
      const outcome = records.at(-1);
      expect(outcome.body.outcome).to.equal('cancelled');
      expect(outcome.body.cancelled_by).to.equal(world.owner.did);
      expect(outcome.body.summary).to.equal('wrong goal');
      const second = await world.call('POST', `/v1/work/loop/${thread}/cancel`, world.owner, {});
      expect(second.status, second.text).to.equal(200);
      expect(second.json.cancel).to.equal(null);
      expect(await world.records(thread)).to.have.length(records.length);
    });
  });
}
