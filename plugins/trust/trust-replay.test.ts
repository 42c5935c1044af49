/**
 * The trust fold as a whole, on generated logs: the O(1) accumulators agree
 * with a brute-force reference that recomputes every row from the log;
 * applying records one at a time equals replaying them from scratch; a
 * checkpoint saved, serialized and loaded answers and continues exactly as
 * the live state; rebasing the decay reference keeps the weights.
 */
import { expect } from 'chai';
import { replayFold } from '../../core/folds/fold.js';
import { isValidDid } from '../../core/records/did-syntax.js';
import type { LoomRecord } from '../../core/records/record.js';
import { isRecordId } from '../../core/records/record-id.js';
import { seededRandom } from '../../storage/compliance/fixtures.js';
import { decayWeight, HALF_LIFE_MS, REBASE_AFTER_HALF_LIVES } from './decay.js';
import { trustCheckpoint } from './trust-checkpoint.js';
import { applyTrust, createTrustFold } from './trust-fold.js';
import { emptyTrustState, type TrustState } from './trust-state.js';
import { DAY_MS, did, T0, TrustLog, type StoredInput } from '../../test/helpers/trust-log.js';
import { FAILURE_WORDS, SUCCESS_WORDS } from './verdict-words.js';
import { wilsonLowerBound } from './wilson.js';

const WORKERS = ['w0', 'w1', 'w2', 'w3'].map(did);
const JUDGES = ['j0', 'j1', 'w0'].map(did); // w0 judges too: some verdicts are self-judgments
const DOMAINS = ['code', 'docs', 'ops'];
const WORDS = [...SUCCESS_WORDS, ...FAILURE_WORDS, 'Accept', 'maybe'];

/** A random but meaningful log: tasks, claims, verdicts (some on unknown records), corrections and cancellations by the right and the wrong actor. */
function generate(seed: number, records: number, stepMs = 3 * DAY_MS): TrustLog {
  const random = seededRandom(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const log = new TrustLog();
  const intends: LoomRecord[] = [];
  const claims: LoomRecord[] = [];
  const verdicts: LoomRecord[] = [];
  while (log.inputs.length < records) {
    log.time += Math.floor(random() * stepMs);
    const roll = random();
    if (roll < 0.15 || intends.length === 0) {
      const body: Record<string, string> = {};
      if (random() < 0.6) body['domain'] = pick(DOMAINS);
      if (random() < 0.5) body['assigned_to'] = pick(WORKERS);
      intends.push(log.intend(did('requester'), body));
    } else if (roll < 0.35) {
      claims.push(log.claim(pick(WORKERS), pick(intends).id));
    } else if (roll < 0.8) {
      const target = random() < 0.7 && claims.length > 0 ? pick(claims).id : random() < 0.9 ? pick(intends).id : 'e'.repeat(64);
      const body: Record<string, string> = {};
      if (random() < 0.2) body['domain'] = pick(DOMAINS);
      if (random() < 0.1) body['judged_by_did'] = pick(JUDGES);
      verdicts.push(log.verdict(pick(JUDGES), target, pick(WORDS), body, { judged_by: random() < 0.8 ? target : null }));
    } else if (verdicts.length > 0) {
      const verdict = pick(verdicts);
      const actor = random() < 0.8 ? verdict.actor : pick(JUDGES);
      if (random() < 0.6) log.correction(actor, verdict.id, pick(WORDS));
      else log.cancel(actor, verdict.id);
    }
  }
  return log;
}

interface ReferenceRow {
  successes: number;
  failures: number;
  weightedSuccesses: number;
  weightedTotal: number;
}

/** Brute force: every row recomputed from the whole log, each weight computed directly. */
function reference(inputs: readonly StoredInput[], now: number): Map<string, ReferenceRow> {
  const byId = new Map<string, StoredInput>();
  const latestClaim = new Map<string, string>();
  const verdicts: Array<{ input: StoredInput; key: string }> = [];
  const word = (w: string) => (SUCCESS_WORDS.includes(w.trim().toLowerCase()) ? 'success' : FAILURE_WORDS.includes(w.trim().toLowerCase()) ? 'failure' : 'none');
  for (const input of inputs) {
    const { record } = input;
    const b = record.body as Record<string, unknown>;
    byId.set(record.id, input);
    if (record.act === 'KNOW' && b['topic'] !== 'correction' && typeof b['fulfills'] === 'string' && b['verdict'] === undefined) {
      if (byId.get(b['fulfills'])?.record.act === 'INTEND') latestClaim.set(b['fulfills'], record.actor);
    }
    if (record.act !== 'KNOW' || b['topic'] === 'correction' || typeof b['fulfills'] !== 'string' || typeof b['verdict'] !== 'string') continue;
    const judged = byId.get(isRecordId(record.judged_by) ? record.judged_by : b['fulfills'])?.record;
    if (!judged) continue;
    const jb = judged.body as Record<string, unknown>;
    const isClaim = judged.act === 'KNOW' && typeof jb['fulfills'] === 'string' && jb['verdict'] === undefined && jb['topic'] !== 'correction';
    const worker = isClaim ? judged.actor : judged.act === 'INTEND' ? (latestClaim.get(judged.id) ?? (isValidDid(jb['assigned_to']) ? jb['assigned_to'] : null)) : null;
    if (!worker) continue;
    const judge = isValidDid(b['judged_by_did']) ? b['judged_by_did'] : record.actor;
    if (judge === worker || record.actor === worker) continue;
    const task = isClaim ? byId.get(jb['fulfills'] as string)?.record : judged;
    const taskDomain = task?.act === 'INTEND' && byId.get(task.id)!.sequence < input.sequence ? (task.body as Record<string, unknown>)['domain'] : undefined;
    const domain = typeof b['domain'] === 'string' ? b['domain'] : typeof taskDomain === 'string' ? taskDomain : 'general';
    verdicts.push({ input, key: `${worker}|${domain}|${judge}` });
  }
  const rows = new Map<string, ReferenceRow>();
  for (const { input, key } of verdicts) {
    // The final outcome: the verdict's word, replaced by each later correction by its actor, unless cancelled by its actor.
    let outcome = word(input.record.body['verdict'] as string);
    for (const later of inputs) {
      if (later.sequence <= input.sequence || later.record.actor !== input.record.actor) continue;
      const lb = later.record.body as Record<string, unknown>;
      if (later.record.act === 'DO' && lb['cancels'] === input.record.id) {
        outcome = 'cancelled';
        break;
      }
      if (later.record.act === 'KNOW' && lb['topic'] === 'correction' && lb['supersedes'] === input.record.id && typeof lb['verdict'] === 'string') outcome = word(lb['verdict']);
    }
    if (outcome !== 'success' && outcome !== 'failure') continue;
    const row = rows.get(key) ?? { successes: 0, failures: 0, weightedSuccesses: 0, weightedTotal: 0 };
    const weight = decayWeight(now - input.createdAt);
    if (outcome === 'success') {
      row.successes++;
      row.weightedSuccesses += weight;
    } else {
      row.failures++;
    }
    row.weightedTotal += weight;
    rows.set(key, row);
  }
  return rows;
}

function expectMatchesReference(log: TrustLog, now: number): number {
  const value = replayFold(createTrustFold({ now: () => now }), 'trust', log.inputs);
  const expected = reference(log.inputs, now);
  expect(value.rows.map((r) => `${r.actor}|${r.domain}|${r.judged_by}`).sort()).to.deep.equal([...expected.keys()].sort());
  for (const row of value.rows) {
    const ref = expected.get(`${row.actor}|${row.domain}|${row.judged_by}`)!;
    expect({ s: row.successes, f: row.failures }).to.deep.equal({ s: ref.successes, f: ref.failures });
    expect(row.weighted_successes).to.be.closeTo(ref.weightedSuccesses, 1e-4);
    expect(row.weighted_total).to.be.closeTo(ref.weightedTotal, 1e-4);
    expect(row.score).to.be.closeTo(wilsonLowerBound(ref.weightedSuccesses, ref.weightedTotal), 1e-4);
  }
  return value.rows.length;
}

describe('trust fold: incremental, replayed, checkpointed', () => {
  it('agrees with a brute-force recomputation from the log, on several generated logs', () => {
    for (const seed of [1, 2, 3, 4, 5]) {
      const log = generate(seed, 600);
      expect(expectMatchesReference(log, log.time), `seed ${seed}`).to.be.greaterThan(3);
      expectMatchesReference(log, log.time + 400 * DAY_MS);
    }
  });

  it('keeps the weights across a rebase of the decay reference (verdicts centuries apart)', () => {
    const log = generate(7, 300, Math.ceil(((REBASE_AFTER_HALF_LIVES * HALF_LIFE_MS) / 300) * 3));
    expect(log.time - T0, 'the log spans more than the rebase threshold').to.be.greaterThan(REBASE_AFTER_HALF_LIVES * HALF_LIFE_MS);
    expectMatchesReference(log, log.time);
    const state = log.inputs.reduce<TrustState>((s, input) => applyTrust(s, input), emptyTrustState());
    expect(state.ref, 'rebased forward').to.be.greaterThan(T0);
    for (const row of state.rows.values()) expect(Number.isFinite(row.grownTotal)).to.equal(true);
  });

  it('applied one record at a time equals the replay of the same records, at every step', () => {
    const log = generate(11, 400);
    const fold = createTrustFold({ now: () => log.time });
    let state = fold.initial('trust');
    log.inputs.forEach((input, i) => {
      state = fold.apply(state, input);
      if (i % 37 === 0 || i === log.inputs.length - 1) expect(fold.value(state), `after ${i + 1} records`).to.deep.equal(replayFold(fold, 'trust', log.inputs.slice(0, i + 1)));
    });
  });

  it('a checkpoint (through JSON) answers and continues exactly as the live state', () => {
    const log = generate(13, 800);
    const fold = createTrustFold({ now: () => log.time });
    const half = 400;
    let live = fold.initial('trust');
    for (const input of log.inputs.slice(0, half)) live = fold.apply(live, input);
    let resumed = trustCheckpoint.load(JSON.parse(JSON.stringify(trustCheckpoint.save(live))));
    expect(fold.value(resumed)).to.deep.equal(fold.value(live));
    expect(resumed.strings.size).to.equal(live.strings.size);
    for (const input of log.inputs.slice(half)) {
      live = fold.apply(live, input);
      resumed = fold.apply(resumed, input);
    }
    expect(fold.value(resumed)).to.deep.equal(fold.value(live));
    expect(trustCheckpoint.save(resumed)).to.deep.equal(trustCheckpoint.save(live));
  });

  it('refuses a malformed checkpoint (the engine then rebuilds from the log)', () => {
    const saved = trustCheckpoint.save(replayFoldState(generate(17, 100))) as { work: number[] } & Record<string, unknown>;
    expect(() => trustCheckpoint.load({ ...saved, format: 'trust/0' })).to.throw(/trust checkpoint/);
    expect(() => trustCheckpoint.load({ ...saved, work: saved.work.slice(1) })).to.throw(/lengths/);
    expect(() => trustCheckpoint.load(null)).to.throw();
  });
});

function replayFoldState(log: TrustLog) {
  return log.inputs.reduce<TrustState>((s, input) => applyTrust(s, input), emptyTrustState());
}
