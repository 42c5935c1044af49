/**
 * Reading the trust state at a moment: decay applied once per row, the
 * Wilson lower bound over the decayed counts, principal-level
 * self-judgment left out, and the groupings the routes offer.
 *
 * Self-judgment by DID is refused when the fold applies a verdict. The
 * principal-level rule (spec §5.4 rule 8: an alias of the worker's principal
 * cannot judge its work) depends on grants, which change over time, so it
 * is applied here, at read time: a row whose worker and judge resolve to the
 * same principal is left out of every answer. The fold stays a pure
 * function of the records.
 */
import { samePrincipal, type PrincipalResolver } from '../../core/access/principal-resolver.js';
import { readFactor } from './decay.js';
import type { TrustRow, TrustState, TrustStats, VerdictEntry } from './trust-state.js';
import { wilsonLowerBound } from './wilson.js';

/** Scores are read at minute resolution, so one (watermark, minute) always gives one answer (cache keys rely on it). */
export const READ_RESOLUTION_MS = 60_000;

export function readingTime(now: number): number {
  return Math.floor(now / READ_RESOLUTION_MS) * READ_RESOLUTION_MS;
}

/** The counts and score every trust answer carries. */
export interface TrustFigures {
  /** Distinct judges behind the figures (1 for a per-judge row). */
  judges: number;
  successes: number;
  failures: number;
  total: number;
  /** Σ 2^(−age/90 days) over successes and over all verdicts in force, 4 dp. */
  weighted_successes: number;
  weighted_total: number;
  /** Wilson lower bound (95%) of weighted_successes out of weighted_total, 4 dp. */
  score: number;
  /** successes ÷ total, undecayed, 4 dp. */
  raw_rate: number;
  /** The latest judgment in force (a verdict id) and when it was made (the verdict's or its latest correction's receipt time). */
  last_verdict: string;
  last_verdict_at: string;
}

export interface TrustScore extends TrustFigures {
  object: 'trust_score';
  /** The worker. */
  actor: string;
  domain: string;
  /** The judge; null when the row aggregates every judge (`group=actor_domain`). */
  judged_by: string | null;
}

export interface PrincipalTrust extends TrustFigures {
  object: 'principal_trust';
  principal: string;
  domain: string;
  /** The worker DIDs resolving to this principal that have evidence in this domain. */
  dids: string[];
}

export interface TrustFilter {
  readonly actor?: string;
  readonly domain?: string;
  readonly judged_by?: string;
  /** Only evidence of one origin: false, verdicts judged here; true, imports (trust-import.ts). @default both */
  readonly imported?: boolean;
}

/** `judge`: one row per (actor, domain, judged_by); `actor_domain`: one per (actor, domain), all judges together. */
export type TrustGrouping = 'judge' | 'actor_domain';

/** The statistics the fold answer and the list carry. */
export interface TrustSummary extends TrustStats {
  /** Verdicts in force (counted in some row; before the read-time principal rule). */
  in_force: number;
  /** INTENDs and completion claims indexed, and verdicts remembered for corrections. */
  work_items: number;
  tracked_verdicts: number;
}

/** Additive evidence of one row or of a group of rows, decayed to the reading time. */
interface Evidence {
  /** The one judge of a row, or the set of a group's judges (made only when rows merge). */
  judges: string | Set<string>;
  successes: number;
  failures: number;
  weightedSuccesses: number;
  weightedTotal: number;
  last: VerdictEntry;
}

function evidenceOf(row: TrustRow, factor: number): Evidence {
  const total = row.total;
  let ws = row.grownSuccesses * factor;
  let wt = row.grownTotal * factor;
  // A verdict stamped after the reading time (clock skew) would weigh more than 1: cap at the raw counts.
  if (!Number.isFinite(wt) || wt > total) wt = total;
  if (!Number.isFinite(ws) || ws > row.successes) ws = row.successes;
  if (ws > wt) ws = wt;
  return { judges: row.judge, successes: row.successes, failures: row.failures, weightedSuccesses: ws, weightedTotal: wt, last: row.newest! };
}

function merge(into: Evidence, more: Evidence): void {
  if (typeof into.judges === 'string') into.judges = new Set([into.judges]);
  if (typeof more.judges === 'string') into.judges.add(more.judges);
  else for (const judge of more.judges) into.judges.add(judge);
  into.successes += more.successes;
  into.failures += more.failures;
  into.weightedSuccesses += more.weightedSuccesses;
  into.weightedTotal += more.weightedTotal;
  if (more.last.decidedAt > into.last.decidedAt) into.last = more.last;
}

const round4 = (value: number): number => Math.round(value * 10_000) / 10_000;

function figures(e: Evidence): TrustFigures {
  const total = e.successes + e.failures;
  return {
    judges: typeof e.judges === 'string' ? 1 : e.judges.size,
    successes: e.successes,
    failures: e.failures,
    total,
    weighted_successes: round4(e.weightedSuccesses),
    weighted_total: round4(e.weightedTotal),
    score: round4(wilsonLowerBound(e.weightedSuccesses, e.weightedTotal)),
    raw_rate: total === 0 ? 0 : round4(e.successes / total),
    last_verdict: e.last.id,
    last_verdict_at: new Date(e.last.decidedAt).toISOString(),
  };
}

/** Remembers each DID's principal for the length of one answer. */
function memoized(resolver: PrincipalResolver | null): PrincipalResolver | null {
  if (resolver === null) return null;
  const seen = new Map<string, string>();
  return {
    principalOf(did) {
      let principal = seen.get(did);
      if (principal === undefined) seen.set(did, (principal = resolver.principalOf(did)));
      return principal;
    },
  };
}

/** Calls `visit` with every row in force that passes `filter` and is no principal-level self-judgment. */
function eachRow(state: TrustState, at: number, principals: PrincipalResolver | null, filter: TrustFilter, visit: (row: TrustRow, evidence: Evidence) => void): void {
  if (state.ref === null) return;
  const factor = readFactor(state.ref, at);
  const rows = filter.actor !== undefined ? (state.byActor.get(filter.actor) ?? []) : state.rows.values();
  for (const row of rows) {
    if (row.total === 0) continue;
    if (filter.domain !== undefined && row.domain !== filter.domain) continue;
    if (filter.judged_by !== undefined && row.judge !== filter.judged_by) continue;
    if (filter.imported !== undefined && row.imported !== filter.imported) continue;
    if (principals !== null && samePrincipal(principals, row.actor, row.judge)) continue;
    visit(row, evidenceOf(row, factor));
  }
}

function byScore<T extends TrustFigures>(key: (row: T) => string): (a: T, b: T) => number {
  return (a, b) => b.score - a.score || compare(key(a), key(b));
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The score rows at `at` (ms), best first (score descending, then actor, domain and judge). */
export function trustScores(state: TrustState, at: number, resolver: PrincipalResolver | null, filter: TrustFilter = {}, group: TrustGrouping = 'judge'): TrustScore[] {
  const principals = memoized(resolver);
  const out: TrustScore[] = [];
  if (group === 'judge') {
    eachRow(state, at, principals, filter, (row, e) => out.push({ object: 'trust_score', actor: row.actor, domain: row.domain, judged_by: row.judge, ...figures(e) }));
  } else {
    const groups = new Map<string, { actor: string; domain: string; evidence: Evidence }>();
    eachRow(state, at, principals, filter, (row, e) => {
      const key = `${row.actor}\u0000${row.domain}`;
      const group = groups.get(key);
      if (group) merge(group.evidence, e);
      else groups.set(key, { actor: row.actor, domain: row.domain, evidence: e });
    });
    for (const { actor, domain, evidence } of groups.values()) out.push({ object: 'trust_score', actor, domain, judged_by: null, ...figures(evidence) });
  }
  return out.sort(byScore((r) => `${r.actor}\u0000${r.domain}\u0000${r.judged_by ?? ''}`));
}

/**
 * One row per (principal, domain): the evidence of every worker DID that
 * resolves to the principal, all judges together. Without a resolver each
 * DID is its own principal.
 */
export function principalTrust(state: TrustState, at: number, resolver: PrincipalResolver | null): PrincipalTrust[] {
  const principals = memoized(resolver);
  const groups = new Map<string, { principal: string; domain: string; dids: Set<string>; evidence: Evidence }>();
  eachRow(state, at, principals, {}, (row, e) => {
    const principal = principals ? principals.principalOf(row.actor) : row.actor;
    const key = `${principal}\u0000${row.domain}`;
    const group = groups.get(key);
    if (group) {
      group.dids.add(row.actor);
      merge(group.evidence, e);
    } else {
      groups.set(key, { principal, domain: row.domain, dids: new Set([row.actor]), evidence: e });
    }
  });
  const out: PrincipalTrust[] = [];
  for (const { principal, domain, dids, evidence } of groups.values()) out.push({ object: 'principal_trust', principal, domain, dids: [...dids].sort(), ...figures(evidence) });
  return out.sort(byScore((r) => `${r.principal}\u0000${r.domain}`));
}

export function trustSummary(state: TrustState): TrustSummary {
  let inForce = 0;
  // Imported rows count the source's verdicts, not verdicts in force here.
  for (const row of state.rows.values()) if (!row.imported) inForce += row.total;
  return { ...state.stats, in_force: inForce, work_items: state.work.size, tracked_verdicts: state.verdicts.size };
}
