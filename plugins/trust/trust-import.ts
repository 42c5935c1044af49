/**
 * Imported trust (spec §4.15 export / import, §8 trust discount 0.5): a
 * `core.trust.imported.v1` record carries a member's trust profile as
 * another instance showed it (per domain: the verdicts counted, their
 * weights decayed to the export time, and the score) and the discount the
 * importer chose. The fold turns each domain into one entry of an
 * `imported` row (worker: the member; judge: `body.by`, who imported it,
 * else the record's actor), weighing
 *
 *   weighted_successes × discount  out of  weighted_total × discount,
 *
 * decaying from the import's receipt time like a verdict.
 *
 * Why the imported score can never exceed the source's: the Wilson lower
 * bound at a fixed success rate p grows with the number of observations n
 * (its lower root x of n·(p − x)² = z²·x·(1 − x) satisfies
 * n = z²·g(x) with g(x) = x(1 − x)/(p − x)², and g′(x) ∝ p(1 − x) + x(1 − p)
 * > 0 on [0, p), so a smaller n gives a smaller x). The import keeps the
 * source's rate and scales n by discount ≤ 1, then decay only lowers n
 * further. Rounding (bundles carry 4 decimals) and a reading a few seconds
 * before the import's receipt (weights a hair above 1) could still tip it
 * by less than 1e-5, so the successes are lowered, when needed, until the
 * score is at least IMPORT_MARGIN below both the score the source showed
 * and the score its own figures give: the guarantee does not depend on the
 * figures agreeing.
 *
 * The importer is the judge because the importer vouches for the bundle:
 * its digest detects damage, not forgery, so imported trust is exactly as
 * good as whoever brought it, as a verdict is as good as its judge. An
 * owner importing into its own member adds nothing it could not do by
 * judging the member's claims itself, and readers see who it was
 * (`judged_by`); the read-time rule leaving out a judge of the worker's own
 * principal applies as to verdicts.
 *
 * A member's imports do not add up: each import replaces the member's
 * previous one whole (so importing one bundle twice counts it once).
 * Imported evidence stays in its own rows, so an export (which carries only
 * verdicts judged on the exporting instance) never passes it on: trust
 * cannot be laundered round a loop of instances.
 */
import { isValidDid } from '../../core/records/did-syntax.js';
import type { LoomRecord } from '../../core/records/record.js';
import { CANCELLED, SUCCESS } from './verdict-words.js';
import { intern, rowFor, setOutcome, VerdictEntry, type ImportedCounts, type TrustState } from './trust-state.js';
import { wilsonLowerBound } from './wilson.js';

export const KIND_TRUST_IMPORT = 'core.trust.imported.v1';
/** How far below the source's score an imported score is kept, at least (see above). */
export const IMPORT_MARGIN = 1e-5;
/** Slack for figures rounded to 4 decimals when checking that they agree. */
const ROUNDING = 1e-4;
const COUNT_MAX = 1_000_000_000;
const DOMAIN_MAX_LENGTH = 200;

/** One domain of a trust profile as the source showed it (what a bundle carries). */
export interface SourceEvidence {
  readonly domain: string;
  readonly successes: number;
  readonly failures: number;
  readonly weighted_successes: number;
  readonly weighted_total: number;
  readonly score: number;
}

/** The body of an import record. */
export interface TrustImportBody {
  kind: typeof KIND_TRUST_IMPORT;
  /** The member the trust is imported for. */
  worker: string;
  /** In [0, 1]: the share of the source's weights imported. */
  discount: number;
  domains: SourceEvidence[];
  /** Where it came from (provenance only: the fold does not read it). */
  source: { instance: string | null; member: string; digest: string; as_of: string };
  /** Who imported it: the judge of the imported rows. */
  by: string;
}

/** What one domain of an import brings. */
export interface ImportedEvidence extends ImportedCounts {
  /** The Wilson lower bound of the imported weights, as of the import (never above the source's score). */
  readonly score: number;
}

const isCount = (value: unknown): value is number => typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= COUNT_MAX;
const isWeight = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value) && value >= 0 && value <= COUNT_MAX;

/** Why `value` is not a coherent domain of a trust profile, or null when it is. */
export function sourceEvidenceProblem(value: unknown): string | null {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return 'is not an object';
  const e = value as Record<string, unknown>;
  if (typeof e['domain'] !== 'string' || e['domain'].length === 0 || e['domain'].length > DOMAIN_MAX_LENGTH) return `domain must be 1 to ${DOMAIN_MAX_LENGTH} characters`;
  if (!isCount(e['successes']) || !isCount(e['failures'])) return 'successes and failures must be counts';
  if (!isWeight(e['weighted_successes']) || !isWeight(e['weighted_total'])) return 'weighted_successes and weighted_total must be non-negative numbers';
  if (typeof e['score'] !== 'number' || !(e['score'] >= 0 && e['score'] <= 1)) return 'score must be in [0, 1]';
  const ws = e['weighted_successes'];
  const wt = e['weighted_total'];
  // Weights are at most 1 per verdict: weighted figures never exceed the raw ones.
  if (ws > wt + ROUNDING || ws > e['successes'] + ROUNDING || wt > e['successes'] + e['failures'] + ROUNDING || wt - ws > e['failures'] + ROUNDING) {
    return 'weighted figures exceed the verdicts they weigh';
  }
  return null;
}

/**
 * The evidence a domain brings at `discount` (in [0, 1]): the source's
 * weights scaled, successes lowered only if that is needed to stay
 * IMPORT_MARGIN below the source's score (see the file's comment).
 */
export function discountedEvidence(source: SourceEvidence, discount: number): ImportedEvidence {
  const d = Math.min(Math.max(discount, 0), 1);
  const wt = Math.min(source.weighted_total, source.successes + source.failures);
  const ws = Math.min(source.weighted_successes, wt, source.successes);
  const total = wt * d;
  let successes = ws * d;
  const cap = Math.min(source.score, wilsonLowerBound(ws, wt)) - IMPORT_MARGIN;
  if (wilsonLowerBound(successes, total) > cap) {
    // The bound grows with the successes: bisect for the most that stays under the cap.
    let low = 0;
    let high = successes;
    for (let i = 0; i < 64; i++) {
      const mid = (low + high) / 2;
      if (wilsonLowerBound(mid, total) > cap) high = mid;
      else low = mid;
    }
    successes = low;
  }
  return { successes: source.successes, failures: source.failures, weightedSuccesses: successes, weightedTotal: total, score: wilsonLowerBound(successes, total) };
}

/**
 * Folds an import record: the member's previous import is withdrawn whole,
 * then each coherent domain with weight becomes one entry of an imported
 * row judged by the importer. An import whose judge or writer is the
 * member itself is no evidence (self-judgment).
 */
export function applyImport(state: TrustState, record: LoomRecord, at: number): void {
  const body = record.body as Record<string, unknown>;
  const worker = body['worker'];
  const discount = body['discount'];
  const domains = body['domains'];
  const by = body['by'];
  const judge = isValidDid(by) ? by : record.actor;
  if (!isValidDid(worker) || worker === judge || worker === record.actor || typeof discount !== 'number' || !(discount >= 0 && discount <= 1) || !Array.isArray(domains)) return;
  state.stats.imports++;
  const previous = state.imports.get(worker);
  if (previous) for (const entry of previous) setOutcome(state, entry, CANCELLED, at);
  const entries: VerdictEntry[] = [];
  const seen = new Set<string>();
  for (const domain of domains) {
    if (sourceEvidenceProblem(domain) !== null) continue;
    const source = domain as SourceEvidence;
    if (seen.has(source.domain)) continue;
    seen.add(source.domain);
    const evidence = discountedEvidence(source, discount);
    if (!(evidence.weightedTotal > 0)) continue;
    const entry = new VerdictEntry(record.id, rowFor(state, worker, source.domain, judge, true), intern(state, record.actor), at, CANCELLED, at);
    entry.imported = { successes: evidence.successes, failures: evidence.failures, weightedSuccesses: evidence.weightedSuccesses, weightedTotal: evidence.weightedTotal };
    setOutcome(state, entry, SUCCESS, at);
    entries.push(entry);
  }
  if (entries.length > 0) state.imports.set(intern(state, worker), entries);
  else state.imports.delete(worker);
}
