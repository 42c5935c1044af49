/**
 * Test helper: a log of real records (content-addressed ids, clocks per
 * actor and thread) for fold tests, a generator of random coordination
 * scenarios full of corrections and cancellations, and the check that a
 * fold applied in random batches (with reads, and checkpoint round trips
 * for global folds, between them) equals the one-shot replay.
 */
import { expect } from 'chai';
import fc from 'fast-check';
import type { Act } from '../../core/records/acts.js';
import type { JsonObject } from '../../core/records/json.js';
import { makeRecord, type LoomRecord } from '../../core/records/record.js';
import { computeRecordId } from '../../core/records/record-id.js';
import { replayFold, type AnyFold, type FoldInput } from '../../core/folds/fold.js';

export const TH_1 = 'th_' + '1'.repeat(64);
export const TH_2 = 'th_' + '2'.repeat(64);
export const ALICE = 'did:sync:user:alice';
export const BOB = 'did:sync:agent:bob';
export const CAROL = 'did:sync:user:carol';

export class TestLog {
  readonly inputs: FoldInput[] = [];
  private readonly clocks = new Map<string, number>();

  add(actor: string, act: Act, body: JsonObject, options: { thread?: string; judged_by?: string | null } = {}): LoomRecord {
    const thread = options.thread ?? TH_1;
    const key = `${actor} ${thread}`;
    const clock = (this.clocks.get(key) ?? -1) + 1;
    this.clocks.set(key, clock);
    const fields = { parents: [], thread, actor, act, body, clock, data_type: 'SCALAR' as const, judged_by: options.judged_by ?? null };
    const record = makeRecord(computeRecordId(fields), fields);
    this.inputs.push({ sequence: this.inputs.length + 1, record });
    return record;
  }

  onThread(thread: string): FoldInput[] {
    return this.inputs.filter((input) => input.record.thread === thread);
  }
}

/** One step of a scenario: what to write, by whom, where, and (by index) about which earlier record. */
export interface ScenarioStep {
  op: number;
  actor: number;
  thread: number;
  target: number;
  word: number;
}

const ACTORS = [ALICE, BOB, CAROL];
const THREADS = [TH_1, TH_2];
const WORDS = ['accept', 'reject', 'revise'];

export const scenarioArbitrary = fc.array(
  fc.record({ op: fc.nat(9), actor: fc.nat(2), thread: fc.nat(1), target: fc.nat(1000), word: fc.nat(2) }),
  { minLength: 1, maxLength: 60 },
);

/** Builds the records of a scenario: tasks, plain intents, completions, verdicts, corrections, cancellations, notes. */
export function scenarioLog(steps: readonly ScenarioStep[]): TestLog {
  const log = new TestLog();
  const ids: string[] = [];
  for (const [i, step] of steps.entries()) {
    const actor = ACTORS[step.actor]!;
    const thread = THREADS[step.thread]!;
    const target = ids.length > 0 ? ids[step.target % ids.length]! : '0'.repeat(64);
    let record: LoomRecord;
    switch (step.op) {
      case 0:
        record = log.add(actor, 'INTEND', { task: true, goal: `task ${i}`, priority: step.word, labels: ['l' + step.word] }, { thread });
        break;
      case 1:
        record = log.add(actor, 'INTEND', { goal: `goal ${i}`, ...(step.word === 0 ? { assigned_to: BOB } : {}) }, { thread });
        break;
      case 2:
        record = log.add(actor, 'KNOW', { fulfills: target, summary: `done ${i}` }, { thread });
        break;
      case 3:
        record = log.add(actor, 'KNOW', { fulfills: target, verdict: WORDS[step.word]!, summary: `verdict ${i}` }, { thread, judged_by: target });
        break;
      case 4:
        record = log.add(actor, 'KNOW', { topic: 'correction', supersedes: target, reason: `fix ${i}`, goal: `corrected ${i}`, verdict: WORDS[step.word]! }, { thread });
        break;
      case 5:
      case 6:
        record = log.add(actor, 'DO', { cancels: target, reason: `stop ${i}` }, { thread });
        break;
      case 7:
        record = log.add(actor, 'DO', { tool: 'editor', step: i, dispatch_handled: step.word === 0 }, { thread });
        break;
      default:
        record = log.add(actor, 'KNOW', { observation: `note ${i}` }, { thread });
    }
    ids.push(record.id);
  }
  return log;
}

/**
 * Applies `inputs` in batches cut at `cuts`, reading the value after each
 * batch and (global folds with a checkpoint) saving, serialising and loading
 * the state there; every read must equal the one-shot replay of the prefix.
 */
export function expectBatchesMatchReplay(fold: AnyFold, key: string, inputs: readonly FoldInput[], cuts: readonly number[]): void {
  const points = [...new Set(cuts.map((cut) => cut % (inputs.length + 1)))].sort((a, b) => a - b);
  let state = fold.initial(key);
  let applied = 0;
  for (const point of [...points, inputs.length]) {
    for (; applied < point; applied++) state = fold.apply(state, inputs[applied]!);
    expect(fold.value(state), `after ${applied} records`).to.deep.equal(replayFold(fold, key, inputs.slice(0, applied)));
    if (fold.checkpoint) {
      const saved = JSON.stringify(fold.checkpoint.save(state));
      state = fold.checkpoint.load(JSON.parse(saved));
      expect(JSON.stringify(fold.checkpoint.save(state)), 'a loaded checkpoint is the state it saved').to.equal(saved);
    }
  }
  expect(fold.value(state)).to.deep.equal(replayFold(fold, key, inputs));
}

/** The property: any scenario, cut anywhere, folds to the same value. */
export function checkBatchSplits(fold: AnyFold, key: (log: TestLog) => { key: string; inputs: readonly FoldInput[] }, numRuns = 60): void {
  fc.assert(
    fc.property(scenarioArbitrary, fc.array(fc.nat(200), { maxLength: 6 }), (steps, cuts) => {
      const { key: k, inputs } = key(scenarioLog(steps));
      expectBatchesMatchReplay(fold, k, inputs, cuts);
    }),
    { numRuns },
  );
}
