/**
 * Imported trust: the discounted evidence never scores above the source
 * (property tests over random figures and discounts), imports land in rows
 * of their own judged by the importing instance, a member's latest import
 * replaces the previous one, they decay like verdicts, survive a
 * checkpoint, and only a plugin's door (or a peer) may write them.
 */
import { expect } from 'chai';
import fc from 'fast-check';
import { SYSTEM } from '../../core/access/caller.js';
import { replayFold } from '../../core/folds/fold.js';
import type { JsonObject } from '../../core/records/json.js';
import { DAY_MS, did, T0, TrustLog } from '../../test/helpers/trust-log.js';
import { trustImportGate } from './import-gate.js';
import { trustCheckpoint } from './trust-checkpoint.js';
import { createTrustFold, type TrustFoldValue } from './trust-fold.js';
import { discountedEvidence, IMPORT_MARGIN, KIND_TRUST_IMPORT, sourceEvidenceProblem, type SourceEvidence } from './trust-import.js';
import { trustScores } from './trust-rows.js';
import { wilsonLowerBound } from './wilson.js';

const MEMBER = did('reviewer-0123456789abcdef');
const INSTANCE = 'did:sync:system:loom-receiver';
const JUDGE = did('judge');
const IMPORTER = did('owner');
const THREAD = 'th_' + 'd'.repeat(64);

const round4 = (value: number) => Math.round(value * 10_000) / 10_000;

/** A domain as an export shows it: raw counts, weights decayed by `weight`, score rounded to 4 decimals. */
function shown(domain: string, successes: number, failures: number, weight = 1): SourceEvidence {
  const ws = successes * weight;
  const wt = (successes + failures) * weight;
  return { domain, successes, failures, weighted_successes: round4(ws), weighted_total: round4(wt), score: round4(wilsonLowerBound(ws, wt)) };
}

function importBody(domains: SourceEvidence[], discount = 0.5, worker = MEMBER): JsonObject {
  return {
    kind: KIND_TRUST_IMPORT,
    worker,
    discount,
    domains: domains as unknown as JsonObject[],
    source: { instance: 'did:sync:system:loom-source', member: MEMBER, digest: 'sha256:' + '0'.repeat(64), as_of: new Date(T0).toISOString() },
    by: did('owner'),
  };
}

function read(log: TrustLog, now = log.time): TrustFoldValue {
  return replayFold(createTrustFold({ now: () => now }), 'trust', log.inputs);
}

describe('trust import', () => {
  describe('discountedEvidence', () => {
    const figures = fc.record({
      successes: fc.integer({ min: 0, max: 5_000 }),
      failures: fc.integer({ min: 0, max: 5_000 }),
      weight: fc.double({ min: 0.001, max: 1, noNaN: true }),
      discount: fc.double({ min: 0, max: 1, noNaN: true }),
    });

    it('never scores above the score the source showed, nor above what its own figures give', () => {
      fc.assert(
        fc.property(figures, ({ successes, failures, weight, discount }) => {
          const source = shown('code', successes, failures, weight);
          const imported = discountedEvidence(source, discount);
          expect(imported.score).to.be.at.most(source.score);
          expect(imported.score).to.be.at.most(wilsonLowerBound(source.weighted_successes, source.weighted_total));
          expect(round4(imported.score)).to.be.at.most(source.score);
          expect(imported.weightedTotal).to.be.closeTo(Math.min(source.weighted_total, successes + failures) * discount, 1e-9);
          expect(imported.weightedSuccesses).to.be.at.most(source.weighted_successes * discount + 1e-12);
        }),
        { numRuns: 500 },
      );
    });

    it('keeps the source’s rate when the cap does not bind, and halves the weights at the default discount', () => {
      const source = shown('code', 40, 10);
      const imported = discountedEvidence(source, 0.5);
      expect(imported).to.deep.include({ successes: 40, failures: 10, weightedSuccesses: 20, weightedTotal: 25 });
      expect(imported.score).to.equal(wilsonLowerBound(20, 25));
      expect(imported.score).to.be.below(source.score);
    });

    it('at discount 1 stays IMPORT_MARGIN under the source, even against inflated figures', () => {
      const source = shown('code', 30, 0);
      const imported = discountedEvidence(source, 1);
      expect(imported.score).to.be.at.most(source.score - IMPORT_MARGIN + 1e-12);
      // A score lower than the figures give is the cap: figures cannot lift it.
      const understated = discountedEvidence({ ...source, score: 0.2 }, 1);
      expect(understated.score).to.be.at.most(0.2);
    });

    it('the Wilson lower bound grows with the observations at a fixed rate (why discounting lowers the score)', () => {
      fc.assert(
        fc.property(fc.double({ min: 0, max: 1, noNaN: true }), fc.double({ min: 0.01, max: 10_000, noNaN: true }), fc.double({ min: 0, max: 1, noNaN: true }), (rate, n, shrink) => {
          expect(wilsonLowerBound(rate * n * shrink, n * shrink)).to.be.at.most(wilsonLowerBound(rate * n, n) + 1e-12);
        }),
        { numRuns: 500 },
      );
    });

    it('names incoherent figures', () => {
      expect(sourceEvidenceProblem(shown('code', 3, 1))).to.equal(null);
      expect(sourceEvidenceProblem({ ...shown('code', 3, 1), weighted_successes: 9 })).to.match(/exceed/);
      expect(sourceEvidenceProblem({ ...shown('code', 3, 1), weighted_total: 9 })).to.match(/exceed/);
      expect(sourceEvidenceProblem({ ...shown('code', 3, 1), successes: 1.5 })).to.match(/counts/);
      expect(sourceEvidenceProblem({ ...shown('code', 3, 1), score: 2 })).to.match(/score/);
      expect(sourceEvidenceProblem({ ...shown('', 3, 1) })).to.match(/domain/);
      expect(sourceEvidenceProblem([])).to.match(/object/);
    });
  });

  describe('in the trust fold', () => {
    it('lands in an imported row judged by the importer, discounted, never above the source', () => {
      const log = new TrustLog();
      const source = [shown('code', 40, 10, 0.8), shown('docs', 5, 0)];
      const record = log.add(INSTANCE, 'LEARN', importBody(source), { thread: THREAD });
      const value = read(log);
      expect(value.rows).to.have.length(2);
      const code = value.rows.find((r) => r.domain === 'code')!;
      expect(code).to.deep.include({ actor: MEMBER, judged_by: IMPORTER, successes: 40, failures: 10, total: 50, last_verdict: record.id });
      expect(code.weighted_total).to.equal(round4(source[0]!.weighted_total * 0.5));
      expect(code.score).to.be.below(source[0]!.score);
      expect(value.rows.find((r) => r.domain === 'docs')!.score).to.be.below(source[1]!.score);
      expect(value.stats).to.deep.include({ imports: 1, in_force: 0, verdicts: 0 });
    });

    it('stays apart from verdicts judged here: the local-only filter leaves it out', () => {
      const log = new TrustLog();
      const intend = log.intend(did('requester'), { domain: 'code' });
      const claim = log.claim(MEMBER, intend.id);
      log.verdict(INSTANCE, claim.id, 'accept');
      log.add(INSTANCE, 'LEARN', importBody([shown('code', 10, 0)]), { thread: THREAD });
      const fold = createTrustFold({ now: () => log.time });
      const state = log.inputs.reduce((s, input) => fold.apply(s, input), fold.initial('trust'));
      const all = trustScores(state, log.time, null, { actor: MEMBER });
      expect(all.map((r) => r.total).sort()).to.deep.equal([1, 10]);
      expect(trustScores(state, log.time, null, { actor: MEMBER, imported: false }).map((r) => r.total)).to.deep.equal([1]);
      expect(trustScores(state, log.time, null, { actor: MEMBER, imported: true }).map((r) => r.total)).to.deep.equal([10]);
      expect(read(log).stats.in_force).to.equal(1);
    });

    it('replaces the member’s previous import whole: the same bundle twice counts once', () => {
      const log = new TrustLog();
      const body = importBody([shown('code', 20, 0), shown('ops', 3, 3)]);
      log.add(INSTANCE, 'LEARN', body, { thread: THREAD });
      const once = read(log).rows;
      log.time += 1000;
      log.add(INSTANCE, 'LEARN', body, { thread: THREAD });
      const twice = read(log).rows;
      expect(twice.map((r) => [r.domain, r.total, r.weighted_total])).to.deep.equal(once.map((r) => [r.domain, r.total, r.weighted_total]));
      log.add(INSTANCE, 'LEARN', importBody([shown('docs', 2, 0)]), { thread: THREAD });
      expect(read(log).rows.map((r) => r.domain)).to.deep.equal(['docs']);
      log.add(INSTANCE, 'LEARN', importBody([]), { thread: THREAD });
      expect(read(log).rows).to.deep.equal([]);
      expect(read(log).stats.imports).to.equal(4);
    });

    it('decays from the import’s receipt time like a verdict', () => {
      const log = new TrustLog();
      log.add(INSTANCE, 'LEARN', importBody([shown('code', 10, 0)]), { thread: THREAD });
      const fresh = read(log, T0).rows[0]!;
      const later = read(log, T0 + 90 * DAY_MS).rows[0]!;
      expect(later.weighted_total).to.equal(round4(fresh.weighted_total / 2));
      expect(later.score).to.be.below(fresh.score);
    });

    it('ignores an import the member judges or writes itself, one with a discount outside [0, 1], and incoherent domains', () => {
      const log = new TrustLog();
      log.add(INSTANCE, 'LEARN', importBody([shown('code', 10, 0)], 0.5, INSTANCE), { thread: THREAD });
      log.add(INSTANCE, 'LEARN', importBody([shown('code', 10, 0)], 0.5, IMPORTER), { thread: THREAD });
      log.add(INSTANCE, 'LEARN', importBody([shown('code', 10, 0)], 1.5), { thread: THREAD });
      log.add(INSTANCE, 'LEARN', importBody([{ ...shown('code', 1, 0), weighted_total: 50 }]), { thread: THREAD });
      expect(read(log).rows).to.deep.equal([]);
    });

    it('survives a checkpoint (through JSON) and continues exactly as the live state', () => {
      const log = new TrustLog();
      const fold = createTrustFold({ now: () => log.time });
      log.verdict(JUDGE, log.claim(MEMBER, log.intend(did('requester')).id).id, 'accept');
      log.add(INSTANCE, 'LEARN', importBody([shown('code', 12, 3, 0.7), shown('ops', 4, 0)]), { thread: THREAD });
      const half = log.inputs.length;
      log.time += 10 * DAY_MS;
      log.add(INSTANCE, 'LEARN', importBody([shown('code', 30, 1)]), { thread: THREAD });
      log.verdict(JUDGE, log.claim(MEMBER, log.intend(did('requester')).id).id, 'reject');
      let live = fold.initial('trust');
      for (const input of log.inputs.slice(0, half)) live = fold.apply(live, input);
      let resumed = trustCheckpoint.load(JSON.parse(JSON.stringify(trustCheckpoint.save(live))));
      expect(fold.value(resumed)).to.deep.equal(fold.value(live));
      for (const input of log.inputs.slice(half)) {
        live = fold.apply(live, input);
        resumed = fold.apply(resumed, input);
      }
      expect(fold.value(resumed)).to.deep.equal(fold.value(live));
      expect(trustCheckpoint.save(resumed)).to.deep.equal(trustCheckpoint.save(live));
      expect(fold.value(live).rows.filter((r) => r.judged_by === IMPORTER).map((r) => r.domain)).to.deep.equal(['code']);
    });
  });

  describe('the import gate', () => {
    const log = new TrustLog();
    const record = log.add(INSTANCE, 'LEARN', importBody([shown('code', 1, 0)]), { thread: THREAD });
    const check = (context: Record<string, unknown>) => () => trustImportGate.check({ record, namespace: 'default', context: { caller: SYSTEM, via: 'api', ...context } as never });

    it('refuses an import record from a client, and admits a plugin’s door, a replay and a federation peer', () => {
      expect(check({})).to.throw().with.property('code', 'FORBIDDEN');
      expect(check({ via: 'engine' })).to.throw().with.property('code', 'FORBIDDEN');
      expect(check({ via: 'federation' })).not.to.throw();
      expect(check({ via: 'engine', plugin: 'members' })).not.to.throw();
      expect(check({ via: 'replay' })).not.to.throw();
      const other = log.add(INSTANCE, 'LEARN', { kind: 'something.else' }, { thread: THREAD });
      expect(() => trustImportGate.check({ record: other, namespace: 'default', context: { caller: SYSTEM, via: 'api' } })).not.to.throw();
    });
  });
});
