/**
 * The `trust` fold (spec §1, §2.1): scores per (worker, domain, judge) from
 * independently judged outcomes. Evidence rules, exactly:
 *
 * - Work. Every INTEND is indexed (its actor, `body.assigned_to` when a
 *   valid DID, `body.domain`). A completion claim is a KNOW with a string
 *   `body.fulfills` and no `body.verdict`; it is indexed with its actor, and
 *   when it fulfils an indexed INTEND it becomes that INTEND's latest claim
 *   and takes its domain.
 * - Verdict: a KNOW (not a correction) with string `body.verdict` and string
 *   `body.fulfills`. The judged record is the record's `judged_by` when that
 *   is a record id, else `body.fulfills`.
 * - Worker: of a judged claim, its actor; of a judged INTEND, the actor of
 *   its latest claim, else its `assigned_to`. Anything else (an unknown
 *   record, another act, an INTEND with neither) is no evidence
 *   (`unattributed`).
 * - Judge: `body.judged_by_did` when a valid DID, else the verdict's actor.
 *   A verdict whose judge or whose actor is the worker's DID is no evidence
 *   (`self_judgments`); aliases of one principal are left out at read time
 *   (trust-rows.ts).
 * - Domain: the verdict's `body.domain`, else the task INTEND's (directly,
 *   or through the judged claim), else `general`. A domain is a string of
 *   1 to 200 characters, taken as written.
 * - Word: see verdict-words.ts (success, failure, or no evidence).
 * - Correction: a KNOW `{topic: 'correction', supersedes: <verdict id>,
 *   verdict: <word>}` replaces that verdict's outcome; a DO
 *   `{cancels: <verdict id>}` withdraws it for good. Either applies only
 *   when written by the verdict's own actor (by DID), names the verdict
 *   itself (not an earlier correction), and the latest correction wins. The
 *   verdict keeps its receipt time, so its weight still decays from there.
 *   Correcting or cancelling a task or a claim changes no evidence already
 *   counted.
 * - Import: a `core.trust.imported.v1` record (trust-import.ts) replaces
 *   the member's previous import with its discounted evidence, in rows of
 *   their own judged by the importer; only a plugin's door (or a peer's)
 *   writes one (import-gate.ts).
 * - Weight: 2^(−age/90 days), age from the verdict's receipt time
 *   (`createdAt`) to the reading time (decay.ts); the score is the Wilson
 *   lower bound (95%) of the weighted counts, 0 without evidence.
 *
 * Each record costs O(1): a few map lookups and one row update. Nothing is
 * ever recomputed from the log, and the value is read at minute resolution
 * through the injected clock.
 */
import type { PrincipalResolver } from '../../core/access/principal-resolver.js';
import type { Fold, FoldInput } from '../../core/folds/fold.js';
import { isValidDid } from '../../core/records/did-syntax.js';
import type { LoomRecord } from '../../core/records/record.js';
import { isRecordId } from '../../core/records/record-id.js';
import { HALF_LIFE_DAYS } from './decay.js';
import { trustCheckpoint } from './trust-checkpoint.js';
import { readingTime, trustScores, trustSummary, type TrustScore, type TrustSummary } from './trust-rows.js';
import { CLAIM_WORK, emptyTrustState, intern, INTEND_WORK, rowFor, setOutcome, VerdictEntry, WorkEntry, type TrustState } from './trust-state.js';
import { CANCELLED, NO_EVIDENCE, outcomeOfWord } from './verdict-words.js';
import { applyImport, KIND_TRUST_IMPORT } from './trust-import.js';

export const TRUST_FOLD = 'trust';
export const GENERAL_DOMAIN = 'general';
const DOMAIN_MAX_LENGTH = 200;

export interface TrustFoldValue {
  /** The reading time (the clock, to the minute). */
  as_of: string;
  half_life_days: number;
  /** Every (actor, domain, judged_by) row in force, best first. */
  rows: TrustScore[];
  stats: TrustSummary;
}

export interface TrustFoldHooks {
  /** The clock scores are read against (ms). @default Date.now */
  readonly now?: () => number;
  /** The principal resolver, when one is registered (asked at each read). @default none: DIDs are their own principals */
  readonly principals?: () => PrincipalResolver | null;
}

export function createTrustFold(hooks: TrustFoldHooks = {}): Fold<TrustState, TrustFoldValue> {
  const now = hooks.now ?? Date.now;
  const principals = hooks.principals ?? (() => null);
  return {
    name: TRUST_FOLD,
    scope: 'global',
    description: 'Trust per (actor, domain, judged_by): Wilson lower bound (95%) of verdicts weighted by a 90-day half-life.',
    ignoresSystemThreads: true,
    readsRealTime: true,
    // Scores are read at minute resolution: the minute is part of what names a value.
    cacheSuffix: () => `:${Math.floor(readingTime(now()) / 60_000)}`,
    checkpoint: trustCheckpoint,
    initial: emptyTrustState,
    apply: applyTrust,
    value(state) {
      const at = readingTime(now());
      return { as_of: new Date(at).toISOString(), half_life_days: HALF_LIFE_DAYS, rows: trustScores(state, at, principals()), stats: trustSummary(state) };
    },
  };
}

/** The engine and the reader fold stored records, which carry their receipt time beside the sequence. */
type TimedInput = FoldInput & { readonly createdAt?: number };

function receivedAt(input: FoldInput): number {
  const at = (input as TimedInput).createdAt;
  if (typeof at !== 'number' || !Number.isFinite(at)) throw new Error(`trust fold: record ${input.record.id} came without its receipt time (createdAt)`);
  return at;
}

export function applyTrust(state: TrustState, input: FoldInput): TrustState {
  const record = input.record;
  const body = record.body;
  if (body['kind'] === KIND_TRUST_IMPORT) {
    applyImport(state, record, receivedAt(input));
    return state;
  }
  switch (record.act) {
    case 'INTEND':
      indexIntend(state, record);
      break;
    case 'KNOW':
      if (body['topic'] === 'correction') {
        if (typeof body['supersedes'] === 'string' && typeof body['verdict'] === 'string') correct(state, record, body['supersedes'], body['verdict'], receivedAt(input));
      } else if (typeof body['fulfills'] === 'string') {
        if (typeof body['verdict'] === 'string') judge(state, record, body['fulfills'], body['verdict'], receivedAt(input));
        else if (body['verdict'] === undefined) indexClaim(state, record, body['fulfills']);
      }
      break;
    case 'DO':
      if (typeof body['cancels'] === 'string') cancel(state, record, body['cancels'], receivedAt(input));
      break;
  }
  return state;
}

function domainOf(value: unknown): string | null {
  return typeof value === 'string' && value.length > 0 && value.length <= DOMAIN_MAX_LENGTH ? value : null;
}

function indexIntend(state: TrustState, record: LoomRecord): void {
  const assigned = record.body['assigned_to'];
  const domain = domainOf(record.body['domain']);
  state.work.set(
    record.id,
    new WorkEntry(INTEND_WORK, intern(state, record.actor), isValidDid(assigned) ? intern(state, assigned) : null, domain === null ? null : intern(state, domain), null),
  );
}

function indexClaim(state: TrustState, record: LoomRecord, fulfills: string): void {
  const actor = intern(state, record.actor);
  const task = state.work.get(fulfills);
  const intend = task !== undefined && task.kind === INTEND_WORK ? task : null;
  if (intend) intend.claimant = actor;
  state.work.set(record.id, new WorkEntry(CLAIM_WORK, actor, null, intend ? intend.domain : null, null));
}

function judge(state: TrustState, record: LoomRecord, fulfills: string, word: string, at: number): void {
  state.stats.verdicts++;
  const judged = state.work.get(isRecordId(record.judged_by) ? record.judged_by : fulfills);
  const worker = judged === undefined ? null : judged.kind === CLAIM_WORK ? judged.actor : (judged.claimant ?? judged.assignedTo);
  if (worker === null) {
    state.stats.unattributed++;
    return;
  }
  const claimed = record.body['judged_by_did'];
  const judgeDid = isValidDid(claimed) ? claimed : record.actor;
  if (judgeDid === worker || record.actor === worker) {
    state.stats.self_judgments++;
    return;
  }
  const outcome = outcomeOfWord(word);
  if (outcome === NO_EVIDENCE) state.stats.unrecognized_words++;
  const row = rowFor(state, worker, domainOf(record.body['domain']) ?? judged!.domain ?? GENERAL_DOMAIN, judgeDid);
  const entry = new VerdictEntry(record.id, row, intern(state, record.actor), at, NO_EVIDENCE, at);
  state.verdicts.set(record.id, entry);
  setOutcome(state, entry, outcome, at);
}

/** The verdict a revision by `record` may change, or null (counted as ignored when it names a verdict it may not change). */
function revisable(state: TrustState, record: LoomRecord, verdictId: string): VerdictEntry | null {
  const entry = state.verdicts.get(verdictId);
  if (entry === undefined) return null;
  if (entry.actor !== record.actor || entry.outcome === CANCELLED) {
    state.stats.ignored_revisions++;
    return null;
  }
  return entry;
}

function correct(state: TrustState, record: LoomRecord, verdictId: string, word: string, at: number): void {
  const entry = revisable(state, record, verdictId);
  if (entry === null) return;
  const outcome = outcomeOfWord(word);
  if (outcome === NO_EVIDENCE) state.stats.unrecognized_words++;
  setOutcome(state, entry, outcome, at);
  state.stats.corrections++;
}

function cancel(state: TrustState, record: LoomRecord, verdictId: string, at: number): void {
  const entry = revisable(state, record, verdictId);
  if (entry === null) return;
  setOutcome(state, entry, CANCELLED, at);
  state.stats.cancellations++;
}
