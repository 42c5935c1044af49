import { expect } from 'chai';
import type { Record as LoomRecord } from '../../../sdk/index.js';
import { exitCodeOf, RUN_EXIT_CODES, UNKNOWN_OUTCOME_EXIT } from './run-exit-codes.js';
import { compactInput, RunView } from './run-view.js';

const MEMBER = 'did:sync:agent:worker-0123456789abcdef';
const THREAD = `th_${'a'.repeat(64)}`;
let n = 0;
const rec = (body: Record<string, unknown>, actor = MEMBER): LoomRecord => ({ id: String(++n).padStart(64, '0'), thread: THREAD, actor, act: 'KNOW', body, parents: [], clock: n, data_type: 'SCALAR' }) as unknown as LoomRecord;

describe('RunView', () => {
  it('renders what the plain run shows no sign of: failures, retries, guardrails, budgets, other records', () => {
    const view = new RunView();
    const text = [
      rec({ kind: 'core.work.run.v1', goal: 'two\nlines', model: 'm', max_turns: 3, ceiling_usd: 0.01 }),
      rec({ kind: 'core.work.provider_error.v1', turn: 1, attempt: 1, final: false, retry_in_ms: 5, provider: 'anthropic', type: 'overloaded_error', status: 529, message: 'busy' }),
      rec({ kind: 'core.work.turn.v1', turn: 1, input_tokens: 10, output_tokens: 2, cost_usd: 0.004, text: '' }),
      rec({ kind: 'core.work.tool_call.v1', call_id: 'c1', tool: 'write', input: { text: 'x'.repeat(200) } }),
      rec({ kind: 'core.work.tool_result.v1', call_id: 'c1', ok: false, error: { code: 'TOOL_DENIED', message: 'no' }, duration_ms: 3.4 }),
      rec({ kind: 'core.work.guardrail.v1', verdict: 'block', tool: 'write', count: 3, threshold: 3 }),
      rec({ kind: 'core.work.turn.v1', turn: 2, input_tokens: 10, output_tokens: 2, cost_usd: 0.004 }, 'did:sync:user:intruder'),
      rec({ kind: 'example.note.v1' }),
      rec({ kind: 'core.work.loop_outcome.v1', outcome: 'budget_exhausted', budget_kind: 'cost', turns: 1, spent_usd: 0.004, summary: null }),
    ]
      .map((r) => view.render(r))
      .join('');
    expect(text).to.contain(`run ${THREAD} started: ${MEMBER} on m; at most 3 turns, ceiling $0.0100\n  goal: two\n        lines\n`);
    expect(text).to.contain('provider error on turn 1: anthropic overloaded_error (529): busy; retrying in 5 ms (attempt 1)\n');
    expect(text).to.contain('turn 1/3: 10 in, 2 out tokens, $0.0040; spent $0.0040 of $0.0100\n  call write {"text":"xxx');
    expect(text).to.contain('…\n  result write failed (3 ms): TOOL_DENIED no\n');
    expect(text).to.contain('guardrail: block write (3 of 3 identical failing calls)\n');
    // A turn record by someone else is not the run's own and is not counted.
    expect(text).not.to.contain('turn 2');
    expect(text).to.match(/\nrecord example\.note\.v1 0+8 by did:sync:agent:worker/);
    expect(text).to.match(/\noutcome: budget_exhausted \(cost\) after 1 turn, spent \$0\.0040 of \$0\.0100\n$/);
    expect(text).not.to.match(/ +\n/);
  });

  it('cuts a long tool input to one short line', () => {
    expect(compactInput({ a: 'y'.repeat(500) })).to.have.length(120);
    expect(compactInput(undefined)).to.equal('{}');
  });

  it('maps each outcome to its own exit status', () => {
    expect(exitCodeOf('completed')).to.equal(0);
    const codes = Object.keys(RUN_EXIT_CODES).map(exitCodeOf);
    expect(new Set(codes).size).to.equal(codes.length);
    expect(codes.every((code) => ![1, 2, 3].includes(code))).to.equal(true);
    expect(exitCodeOf('toString')).to.equal(UNKNOWN_OUTCOME_EXIT);
    expect(exitCodeOf('something_new')).to.equal(UNKNOWN_OUTCOME_EXIT);
  });
});
