import { expect } from 'chai';
import type { CallState, RunState, TurnState } from './run-state.js';
import { guardrail } from './tool-runner.js';

let n = 0;
function call(tool: string, input: Record<string, unknown>, result: { ok: boolean; code?: string } | null, raw?: string): CallState {
  n++;
  return {
    id: `r${n}`,
    callId: `c${n}`,
    tool,
    input: raw === undefined ? (input as never) : ({} as never),
    inputError: raw === undefined ? null : 'the tool input is not valid JSON',
    rawInput: raw ?? null,
    result: result === null ? null : { id: `x${n}`, ok: result.ok, content: '', errorCode: result.ok ? null : (result.code ?? 'NOT_FOUND') },
  };
}

function run(calls: CallState[], blocked: Record<string, number> = {}): RunState {
  const turn: TurnState = { id: 't', turn: 1, text: '', stopReason: 'tool_use', rawStopReason: null, calls, messagesAfter: [] };
  return { thread: 'th', openingId: 'o', opening: {}, actor: 'a', startedAt: 0, messagesBefore: [], turns: [turn], inputTokens: 0, outputTokens: 0, spentUsd: 0, cancel: null, outcome: null, blocked: new Map(Object.entries(blocked)), asks: new Map(), waitedMs: 0, lastOwnId: 'o', watermark: 0 };
}

describe('the guardrail on identical failing calls', () => {
  it('runs a call until three identical ones failed the same way, then blocks it, then halts', () => {
    const failed = [1, 2, 3].map(() => call('read', { thread: 'x' }, { ok: false }));
    const next = call('read', { thread: 'x' }, null);
    const verdict = guardrail(run([...failed, next]), next);
    expect(verdict.verdict).to.equal('block');
    if (verdict.verdict === 'run') return;
    expect(guardrail(run([...failed, next], { [verdict.key]: 1 }), next).verdict).to.equal('halt');
  });

  it('a success in between, another input or another error code starts the count again', () => {
    const x = (result: { ok: boolean; code?: string }) => call('read', { thread: 'x' }, result);
    const next = call('read', { thread: 'x' }, null);
    expect(guardrail(run([x({ ok: false }), x({ ok: false }), x({ ok: true }), x({ ok: false }), next]), next).verdict).to.equal('run');
    expect(guardrail(run([x({ ok: false }), x({ ok: false, code: 'SCOPE_FORBIDDEN' }), x({ ok: false }), next]), next).verdict).to.equal('run');
    const other = call('read', { thread: 'y' }, null);
    expect(guardrail(run([x({ ok: false }), x({ ok: false }), x({ ok: false }), other]), other).verdict).to.equal('run');
  });

  it('calls whose input was not JSON are told apart by what the model sent, not by the {} it parsed to', () => {
    const failed = ['{"thread": "a', '{"thread": "b', '{"thread": "c'].map((raw) => call('read', {}, { ok: false, code: 'INPUT_INVALID' }, raw));
    const next = call('read', {}, null, '{"thread": "d');
    expect(guardrail(run([...failed, next]), next).verdict).to.equal('run');
    const same = ['{"q', '{"q', '{"q'].map((raw) => call('read', {}, { ok: false, code: 'INPUT_INVALID' }, raw));
    const again = call('read', {}, null, '{"q');
    expect(guardrail(run([...same, again]), again).verdict).to.equal('block');
  });
});
