/**
 * The trust fold's evidence rules, one at a time, on hand-built logs read
 * through a controlled clock: words, workers, judges, self-judgment,
 * domains, corrections and cancellations (only by the verdict's actor),
 * unattributed verdicts, and the half-life.
 */
import { expect } from 'chai';
import type { PrincipalResolver } from '../../core/access/principal-resolver.js';
import { replayFold } from '../../core/folds/fold.js';
import { createTrustFold, type TrustFoldValue } from './trust-fold.js';
import type { TrustScore } from './trust-rows.js';
import { DAY_MS, did, T0, TrustLog } from '../../test/helpers/trust-log.js';
import { wilsonLowerBound } from './wilson.js';

const W = did('worker');
const W2 = did('worker-two');
const J = did('judge');
const J2 = did('judge-two');
const REQ = did('requester');

function read(log: TrustLog, now = log.time, principals: PrincipalResolver | null = null): TrustFoldValue {
  return replayFold(createTrustFold({ now: () => now, principals: () => principals }), 'trust', log.inputs);
}

function only(value: TrustFoldValue): TrustScore {
  expect(value.rows, JSON.stringify(value.rows)).to.have.length(1);
  return value.rows[0]!;
}

/** A task with a claim by `worker`: [intend, claim]. */
function task(log: TrustLog, worker = W, body: Record<string, string> = {}) {
  const intend = log.intend(REQ, body);
  return [intend, log.claim(worker, intend.id)] as const;
}

describe('trust fold: evidence rules', () => {
  it('an accept is a success and a reject a failure, per (worker, domain, judge)', () => {
    const log = new TrustLog();
    const [, claim] = task(log);
    const accept = log.verdict(J, claim.id, 'accept');
    let row = only(read(log));
    expect(row).to.deep.include({ object: 'trust_score', actor: W, domain: 'general', judged_by: J, judges: 1, successes: 1, failures: 0, total: 1, weighted_total: 1, raw_rate: 1, last_verdict: accept.id });
    expect(row.score).to.equal(Math.round(wilsonLowerBound(1, 1) * 10_000) / 10_000);
    const [, claim2] = task(log);
    log.verdict(J, claim2.id, 'reject');
    row = only(read(log));
    expect(row).to.deep.include({ successes: 1, failures: 1, total: 2, raw_rate: 0.5 });
    expect(row.score).to.equal(Math.round(wilsonLowerBound(1, 2) * 10_000) / 10_000);
    expect(read(log).stats).to.deep.include({ verdicts: 2, in_force: 2, unattributed: 0, self_judgments: 0 });
  });

  it('matches words without regard to case or spaces; any other word is no evidence (counted)', () => {
    const log = new TrustLog();
    const words: Array<[string, 'success' | 'failure' | 'none']> = [
      ['Accepted', 'success'],
      [' PASS ', 'success'],
      ['approve', 'success'],
      ['succeeded', 'success'],
      ['TimeOut', 'failure'],
      ['failed', 'failure'],
      ['rejected', 'failure'],
      ['needs_changes', 'none'],
      ['', 'none'],
      ['acceptable', 'none'],
    ];
    for (const [word] of words) log.verdict(J, task(log)[1].id, word);
    const row = only(read(log));
    expect(row.successes).to.equal(words.filter(([, m]) => m === 'success').length);
    expect(row.failures).to.equal(words.filter(([, m]) => m === 'failure').length);
    expect(read(log).stats.unrecognized_words).to.equal(3);
    // A verdict whose verdict is not a string is neither a verdict nor a claim.
    log.add(J, 'KNOW', { fulfills: task(log)[1].id, verdict: true });
    expect(read(log).stats.verdicts).to.equal(words.length);
  });

  it('finds the worker: a claim’s actor; a task’s latest claimant, else its assignee; otherwise unattributed', () => {
    const log = new TrustLog();
    const [, claim] = task(log, W);
    log.verdict(J, claim.id, 'accept');
    const intend = log.intend(REQ, { assigned_to: W2 });
    log.verdict(J, intend.id, 'accept'); // no claim yet: the assignee
    log.claim(W, intend.id);
    log.claim(W2, intend.id); // the latest claim wins
    log.verdict(J2, intend.id, 'reject');
    const bare = log.intend(REQ);
    log.verdict(J, bare.id, 'accept'); // neither claim nor assignee
    log.verdict(J, 'f'.repeat(64), 'accept'); // unknown record
    const note = log.add(W, 'DO', { tool: 'editor' });
    log.verdict(J, note.id, 'accept'); // not a task or a claim
    const value = read(log);
    const rows = value.rows.map((r) => `${r.actor} ${r.judged_by} ${r.successes}/${r.total}`).sort();
    expect(rows).to.deep.equal([`${W} ${J} 1/1`, `${W2} ${J} 1/1`, `${W2} ${J2} 0/1`].sort());
    expect(value.stats).to.deep.include({ verdicts: 6, unattributed: 3 });
  });

  it('takes the judged record from judged_by when it is a record id, else from fulfills', () => {
    const log = new TrustLog();
    const [, mine] = task(log, W);
    const [, theirs] = task(log, W2);
    log.verdict(J, mine.id, 'accept', {}, { judged_by: theirs.id }); // judged_by wins
    log.verdict(J, mine.id, 'reject', {}, { judged_by: 'not-a-record-id' }); // fulfills
    log.verdict(J, mine.id, 'reject', {}, { judged_by: null });
    const rows = read(log).rows;
    expect(rows.find((r) => r.actor === W2)).to.deep.include({ successes: 1, total: 1 });
    expect(rows.find((r) => r.actor === W)).to.deep.include({ failures: 2, total: 2 });
  });

  it('takes the judge from judged_by_did when it is a valid DID, else the verdict’s actor', () => {
    const log = new TrustLog();
    log.verdict(J, task(log)[1].id, 'accept', { judged_by_did: J2 });
    log.verdict(J, task(log)[1].id, 'accept', { judged_by_did: 'not a did' });
    log.verdict(J, task(log)[1].id, 'accept', { judged_by_did: 42 });
    const rows = read(log).rows;
    expect(rows.map((r) => [r.judged_by, r.total])).to.have.deep.members([
      [J2, 1],
      [J, 2],
    ]);
  });

  it('creates no evidence from a verdict by the worker’s own DID, as writer or as named judge', () => {
    const log = new TrustLog();
    const [, claim] = task(log, W);
    log.verdict(W, claim.id, 'accept'); // the worker judges itself
    log.verdict(J, claim.id, 'accept', { judged_by_did: W }); // someone names the worker as judge
    log.verdict(W, claim.id, 'accept', { judged_by_did: J }); // the worker names someone else
    const intend = log.intend(REQ, { assigned_to: J });
    log.verdict(J, intend.id, 'accept'); // the assignee judges its own task
    const value = read(log);
    expect(value.rows).to.deep.equal([]);
    expect(value.stats).to.deep.include({ verdicts: 4, self_judgments: 4, in_force: 0 });
    // A correction cannot turn a self-judgment into evidence: it was never a counted verdict.
    const self = log.verdict(W, claim.id, 'maybe');
    log.correction(W, self.id, 'accept');
    expect(read(log).rows).to.deep.equal([]);
  });

  it('leaves out, at read time, a judge resolving to the worker’s principal (an alias), and only then', () => {
    const log = new TrustLog();
    const alias = did('alias-of-worker');
    log.verdict(alias, task(log, W)[1].id, 'accept');
    log.verdict(J, task(log, W)[1].id, 'reject');
    const principals: PrincipalResolver = { principalOf: (d) => (d === alias ? W : d) };
    expect(read(log).rows.map((r) => r.judged_by).sort()).to.deep.equal([alias, J].sort());
    const filtered = read(log, log.time, principals);
    expect(filtered.rows.map((r) => r.judged_by)).to.deep.equal([J]);
    // The fold itself stays pure: the evidence is kept, and counts again if the alias stops resolving.
    expect(filtered.stats.in_force).to.equal(2);
  });

  it('takes the domain from the verdict, else the task (directly or through the claim), else general', () => {
    const log = new TrustLog();
    const [intend, claim] = task(log, W, { domain: 'code' });
    log.verdict(J, claim.id, 'accept'); // through the claim → code
    log.verdict(J2, intend.id, 'accept'); // directly on the task → code (worker: its claimant)
    log.verdict(J, claim.id, 'accept', { domain: 'docs' }); // the verdict's own
    log.verdict(J, task(log, W)[1].id, 'accept'); // no domain anywhere → general
    log.verdict(J, task(log, W)[1].id, 'accept', { domain: 'x'.repeat(201) }); // too long: ignored → general
    const byKey = Object.fromEntries(read(log).rows.map((r) => [`${r.judged_by === J ? 'J' : 'J2'}:${r.domain}`, r.total]));
    expect(byKey).to.deep.equal({ 'J:code': 1, 'J2:code': 1, 'J:docs': 1, 'J:general': 2 });
  });

  it('applies a correction by the verdict’s own actor, and ignores one by anyone else', () => {
    const log = new TrustLog();
    const verdict = log.verdict(J, task(log)[1].id, 'accept');
    log.correction(J2, verdict.id, 'reject');
    expect(only(read(log))).to.deep.include({ successes: 1, failures: 0 });
    const fix = log.correction(J, verdict.id, 'reject');
    let value = read(log);
    expect(only(value)).to.deep.include({ successes: 0, failures: 1, last_verdict: verdict.id, last_verdict_at: new Date(log.inputs.find((i) => i.record.id === fix.id)!.createdAt).toISOString() });
    expect(value.stats).to.deep.include({ corrections: 1, ignored_revisions: 1 });
    // To a word that is no evidence, then back: the latest correction wins.
    log.correction(J, verdict.id, 'unsure');
    expect(read(log).rows).to.deep.equal([]);
    log.correction(J, verdict.id, 'approved');
    value = read(log);
    expect(only(value)).to.deep.include({ successes: 1, failures: 0 });
    expect(value.stats).to.deep.include({ corrections: 3, verdicts: 1 });
  });

  it('withdraws a verdict cancelled by its own actor, for good; others’ cancellations are ignored', () => {
    const log = new TrustLog();
    const first = log.verdict(J, task(log)[1].id, 'accept');
    log.time += DAY_MS;
    const second = log.verdict(J, task(log)[1].id, 'reject');
    log.cancel(W, second.id); // the worker would like that gone: ignored
    expect(only(read(log))).to.deep.include({ total: 2, last_verdict: second.id });
    log.cancel(J, second.id);
    expect(only(read(log))).to.deep.include({ successes: 1, failures: 0, total: 1, last_verdict: first.id, last_verdict_at: new Date(T0).toISOString() });
    log.correction(J, second.id, 'reject'); // a cancelled verdict stays cancelled
    log.cancel(J, second.id);
    let value = read(log);
    expect(only(value)).to.deep.include({ total: 1 });
    expect(value.stats).to.deep.include({ cancellations: 1, ignored_revisions: 3 });
    log.cancel(J, first.id);
    value = read(log);
    expect(value.rows).to.deep.equal([]);
    expect(value.stats.in_force).to.equal(0);
    // Cancelling something that is not a verdict (a task) is none of trust's business.
    log.cancel(REQ, log.intend(REQ).id);
    expect(read(log).stats.ignored_revisions).to.equal(3);
  });

  it('weighs a verdict 90 days old half, 180 days a quarter, and reads through the injected clock', () => {
    const log = new TrustLog();
    log.verdict(J, task(log)[1].id, 'reject'); // at T0
    log.time = T0 + 90 * DAY_MS;
    log.verdict(J, task(log)[1].id, 'accept');
    let row = only(read(log, T0 + 90 * DAY_MS));
    expect(row).to.deep.include({ successes: 1, failures: 1, weighted_successes: 1, weighted_total: 1.5 });
    expect(row.score).to.equal(Math.round(wilsonLowerBound(1, 1.5) * 10_000) / 10_000);
    row = only(read(log, T0 + 180 * DAY_MS));
    expect(row).to.deep.include({ weighted_successes: 0.5, weighted_total: 0.75 });
    expect(row.score).to.be.lessThan(wilsonLowerBound(1, 1.5));
    expect(read(log, T0 + 180 * DAY_MS).as_of).to.equal(new Date(T0 + 180 * DAY_MS).toISOString());
    // Read to the minute: 59 seconds later is the same answer.
    expect(read(log, T0 + 180 * DAY_MS + 59_000)).to.deep.equal(read(log, T0 + 180 * DAY_MS));
  });

  it('ages a corrected verdict from its own receipt time, not the correction’s', () => {
    const log = new TrustLog();
    const verdict = log.verdict(J, task(log)[1].id, 'reject');
    log.time = T0 + 90 * DAY_MS;
    log.correction(J, verdict.id, 'accept');
    expect(only(read(log))).to.deep.include({ weighted_successes: 0.5, weighted_total: 0.5 });
  });

  it('caps the weight of a verdict stamped after the reading time at 1', () => {
    const log = new TrustLog();
    log.verdict(J, task(log)[1].id, 'accept', {}, { at: T0 + DAY_MS });
    expect(only(read(log, T0))).to.deep.include({ weighted_successes: 1, weighted_total: 1 });
  });

  it('sorts by score descending, then actor, domain and judge', () => {
    const log = new TrustLog();
    for (let i = 0; i < 3; i++) log.verdict(J, task(log, W2)[1].id, 'accept');
    log.verdict(J2, task(log, W)[1].id, 'accept');
    log.verdict(J, task(log, W)[1].id, 'accept');
    log.verdict(J, task(log, W)[1].id, 'reject', { domain: 'a' });
    const rows = read(log).rows.map((r) => `${r.actor}|${r.domain}|${r.judged_by}`);
    expect(rows).to.deep.equal([`${W2}|general|${J}`, `${W}|general|${J}`, `${W}|general|${J2}`, `${W}|a|${J}`]);
  });

  it('is declared global, skipping system threads, real-time, with a version-3 checkpoint', () => {
    const fold = createTrustFold();
    expect(fold).to.deep.include({ name: 'trust', scope: 'global', ignoresSystemThreads: true, readsRealTime: true });
    expect(fold.checkpoint?.version).to.equal(3);
    expect(fold.threads).to.equal(undefined);
  });

  it('refuses a verdict that comes without its receipt time instead of guessing its age', () => {
    const log = new TrustLog();
    log.verdict(J, task(log)[1].id, 'accept');
    const fold = createTrustFold();
    const inputs = log.inputs.map(({ sequence, record }) => ({ sequence, record }));
    expect(() => replayFold(fold, 'trust', inputs)).to.throw(/receipt time/);
  });
});
