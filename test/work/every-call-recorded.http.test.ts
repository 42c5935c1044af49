/**
 * Every tool call is a record (issue 33 G3), a property over random scripted
 * runs on each provider: the tool_call records are exactly the tool_use
 * blocks the provider sent, each answered by one tool_result with
 * `duration_ms`, linked by `parents` (result → call → turn), whether the
 * tool succeeded, failed, was not granted, or got input that was not JSON.
 */
import { expect } from 'chai';
import fc from 'fast-check';
import { VENDORS } from '../fakes/provider-harness.js';
import { script, type ScriptedToolCall, type ScriptedTurn } from '../fakes/script.js';
import { loopWorld, TOOL_FAIL, TOOL_READ, type LoopWorld } from './loop-harness.js';

type CallKind = 'ok' | 'fails' | 'not_granted' | 'bad_json';

let serial = 0;
function scriptedCall(kind: CallKind, provider: string): ScriptedToolCall {
  const thread = `th_${++serial}`;
  switch (kind) {
    case 'ok':
      return { name: TOOL_READ, input: { thread } };
    case 'fails':
      return { name: TOOL_FAIL, input: { thread } };
    case 'not_granted':
      return { name: 'test_rotate_keys', input: { thread } };
    case 'bad_json':
      // Ollama sends tool calls whole (always JSON): there it is an ordinary call.
      return provider === 'ollama' ? { name: TOOL_READ, input: { thread } } : { name: TOOL_READ, input: { thread }, fragments: ['{"thread": "', thread, '"'] };
  }
}

const runShape = fc.array(fc.array(fc.constantFrom<CallKind>('ok', 'fails', 'not_granted', 'bad_json'), { minLength: 1, maxLength: 3 }), { minLength: 0, maxLength: 4 });

for (const vendor of VENDORS) {
  describe(`every tool call is a record (${vendor.provider})`, function () {
    this.timeout(120_000);
    let world: LoopWorld;
    before(async () => {
      world = await loopWorld(vendor, { memberLoop: { tools: [TOOL_READ, TOOL_FAIL], max_turns: 10 } });
    });
    after(async () => world?.stop());

    it('tool_call records = tool_use blocks sent, each with exactly one result (property, random scripted runs)', async () => {
      await fc.assert(
        fc.asyncProperty(runShape, async (shape) => {
          const turns: ScriptedTurn[] = shape.map((calls) => script.toolCalls(calls.map((kind) => scriptedCall(kind, vendor.provider))));
          const requestsBefore = world.fake.requests.length;
          world.fake.enqueue(...turns, script.text('Finished.'));
          const thread = await world.run({ goal: 'do the scripted work' });
          const row = await world.ended(thread);
          expect(row.outcome).to.equal('completed');
          const records = await world.records(thread);
          const byId = new Map(records.map((record: any) => [record.id, record]));
          const calls = records.filter((record: any) => record.body.kind === 'core.work.tool_call.v1');
          const results = records.filter((record: any) => record.body.kind === 'core.work.tool_result.v1');
          const sent = shape.reduce((sum, calls) => sum + calls.length, 0);
          expect(calls).to.have.length(sent);
          expect(results).to.have.length(sent);
          for (const call of calls) {
            const answers = results.filter((result: any) => result.body.call_id === call.body.call_id);
            expect(answers, `results of ${call.body.call_id}`).to.have.length(1);
            expect(answers[0].parents).to.deep.equal([call.id]);
            expect(answers[0].body.duration_ms).to.be.a('number').and.at.least(0);
            expect(byId.get(call.parents[0])?.body.kind).to.equal('core.work.turn.v1');
          }
          expect(row.tool_calls_ok + row.tool_calls_failed).to.equal(sent);
          const expectedOk = shape.flat().filter((kind) => kind === 'ok' || (kind === 'bad_json' && vendor.provider === 'ollama')).length;
          expect(row.tool_calls_ok).to.equal(expectedOk);
          expect(world.fake.pending(), `shape ${JSON.stringify(shape)}: ${world.fake.requests.length - requestsBefore} requests; records ${records.map((record: any) => record.body.kind.replace('core.work.', '')).join(' ')}`).to.equal(0);
        }),
        { numRuns: vendor.provider === 'anthropic' ? 25 : 10 },
      );
    });
  });
}
