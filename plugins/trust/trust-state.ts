/**
 * The trust fold's state and the one way evidence changes: `setOutcome`.
 *
 * Memory is per entry and small: a work entry (an INTEND or a completion
 * claim) holds four references; a verdict entry holds what it contributed
 * (its row, its actor, its receipt time and its outcome), so a correction
 * or a cancellation is undone and redone in O(1) without reading the log.
 * Repeated strings (DIDs, domains) are interned: records parsed from
 * storage each bring their own copy of their actor's DID.
 *
 * Rows keep raw counts and "grown" sums against `ref` (see decay.ts); they
 * also keep the counted verdicts in a doubly linked list in the order they
 * came into evidence, so the latest judgment in force is known after any
 * withdrawal, in O(1).
 *
 * Imported trust (trust-import.ts) lives in rows of its own (`imported`),
 * never mixed with verdicts judged here: one entry per domain of a member's
 * latest import, carrying the discounted counts instead of one verdict's.
 */
import { growth, needsRebase, readFactor } from './decay.js';
import { counts, SUCCESS, type Outcome } from './verdict-words.js';

export const INTEND_WORK = 0;
export const CLAIM_WORK = 1;

/** An INTEND or a completion claim a verdict may judge. */
export class WorkEntry {
  constructor(
    readonly kind: typeof INTEND_WORK | typeof CLAIM_WORK,
    /** Who wrote it: for a claim, the worker. */
    readonly actor: string,
    /** INTEND: `body.assigned_to` when it is a valid DID. */
    readonly assignedTo: string | null,
    /** INTEND: its `body.domain`; claim: the domain of the INTEND it fulfils, as known when the claim was folded. */
    readonly domain: string | null,
    /** INTEND: the actor of its latest completion claim. */
    public claimant: string | null,
  ) {}
}

/** The evidence of one (worker, domain, judge), from verdicts judged here or, in an `imported` row, from imports. */
export class TrustRow {
  successes = 0;
  failures = 0;
  /** Σ 2^((t_i − ref)/H) over the counted successes, and over every counted verdict. */
  grownSuccesses = 0;
  grownTotal = 0;
  /** The counted verdicts, newest (most recently brought into evidence) first. */
  newest: VerdictEntry | null = null;

  constructor(
    readonly actor: string,
    readonly domain: string,
    readonly judge: string,
    /** Evidence brought by imports (judge: who imported it), not verdicts judged here. */
    readonly imported = false,
  ) {}

  get total(): number {
    return this.successes + this.failures;
  }
}

/** What one domain of an import contributes instead of a verdict's one success or failure (trust-import.ts). */
export interface ImportedCounts {
  /** The verdicts the source counted (raw, undiscounted). */
  readonly successes: number;
  readonly failures: number;
  /** The discounted, decayed-at-export weights the import brings (weight as of its own receipt time). */
  readonly weightedSuccesses: number;
  readonly weightedTotal: number;
}

/** One verdict (or one domain of an import) that created evidence, and what it contributes now. */
export class VerdictEntry {
  older: VerdictEntry | null = null;
  newer: VerdictEntry | null = null;
  /** Set for an import's entry: its counts replace the one success or failure of a verdict. */
  imported: ImportedCounts | null = null;

  constructor(
    readonly id: string,
    readonly row: TrustRow,
    /** Its writer: the only actor whose corrections and cancellations apply. */
    readonly actor: string,
    /** Receipt time of the verdict (ms): its age, hence its weight, runs from here. */
    readonly at: number,
    public outcome: Outcome,
    /** Receipt time of the record that set the current outcome (the verdict or its latest correction). */
    public decidedAt: number,
  ) {}
}

export interface TrustStats {
  /** Verdict records folded (a KNOW with string `verdict` and string `fulfills`). */
  verdicts: number;
  /** Verdicts whose judged record is unknown, not an INTEND or a claim, or an INTEND with no claim and no assignee. */
  unattributed: number;
  /** Verdicts whose judge or writer is the worker's own DID. */
  self_judgments: number;
  /** Verdicts and corrections whose word is neither a success nor a failure word. */
  unrecognized_words: number;
  /** Corrections applied (by the verdict's own actor). */
  corrections: number;
  /** Cancellations applied (by the verdict's own actor). */
  cancellations: number;
  /** Corrections and cancellations naming a counted verdict but written by another actor, or naming a cancelled one. */
  ignored_revisions: number;
  /** Trust imports applied (each replaces the member's previous one). */
  imports: number;
}

export interface TrustState {
  /** The reference time of every row's grown sums (ms); null before the first counted verdict. */
  ref: number | null;
  readonly work: Map<string, WorkEntry>;
  readonly verdicts: Map<string, VerdictEntry>;
  /** Keyed `actor \0 judge \0 domain`, with `\0import` after an imported row's (DIDs hold no NUL, so the split is unambiguous). */
  readonly rows: Map<string, TrustRow>;
  /** Rows by worker DID, for per-actor reads. */
  readonly byActor: Map<string, TrustRow[]>;
  /** Per member, the entries of its latest import in force (one per domain). */
  readonly imports: Map<string, VerdictEntry[]>;
  readonly strings: Map<string, string>;
  readonly stats: TrustStats;
}

export function emptyStats(): TrustStats {
  return { verdicts: 0, unattributed: 0, self_judgments: 0, unrecognized_words: 0, corrections: 0, cancellations: 0, ignored_revisions: 0, imports: 0 };
}

export function emptyTrustState(): TrustState {
  return { ref: null, work: new Map(), verdicts: new Map(), rows: new Map(), byActor: new Map(), imports: new Map(), strings: new Map(), stats: emptyStats() };
}

/** One shared copy of a repeated string. */
export function intern(state: TrustState, value: string): string {
  const shared = state.strings.get(value);
  if (shared !== undefined) return shared;
  state.strings.set(value, value);
  return value;
}

export function rowKey(actor: string, judge: string, domain: string, imported = false): string {
  return `${actor}\u0000${judge}\u0000${domain}${imported ? '\u0000import' : ''}`;
}

export function rowFor(state: TrustState, actor: string, domain: string, judge: string, imported = false): TrustRow {
  const key = rowKey(actor, judge, domain, imported);
  let row = state.rows.get(key);
  if (row === undefined) {
    row = new TrustRow(intern(state, actor), intern(state, domain), intern(state, judge), imported);
    state.rows.set(key, row);
    const list = state.byActor.get(row.actor);
    if (list) list.push(row);
    else state.byActor.set(row.actor, [row]);
  }
  return row;
}

/**
 * Gives a verdict a new outcome (`decidedAt`: receipt time of the record
 * deciding it): its old contribution is taken out of its row and the new one
 * put in, both O(1). A counted verdict moves to the head of its row's list.
 */
export function setOutcome(state: TrustState, entry: VerdictEntry, next: Outcome, decidedAt: number): void {
  if (counts(entry.outcome)) {
    withdraw(state, entry);
    unlink(entry);
  }
  entry.outcome = next;
  entry.decidedAt = decidedAt;
  if (counts(next)) {
    contribute(state, entry);
    pushNewest(entry);
  }
}

function contribute(state: TrustState, entry: VerdictEntry): void {
  if (state.ref === null) state.ref = entry.at;
  else if (needsRebase(entry.at, state.ref)) rebase(state, entry.at);
  const g = growth(entry.at, state.ref);
  const row = entry.row;
  const imported = entry.imported;
  if (imported !== null) {
    row.successes += imported.successes;
    row.failures += imported.failures;
    row.grownSuccesses += imported.weightedSuccesses * g;
    row.grownTotal += imported.weightedTotal * g;
    return;
  }
  row.grownTotal += g;
  if (entry.outcome === SUCCESS) {
    row.successes++;
    row.grownSuccesses += g;
  } else {
    row.failures++;
  }
}

function withdraw(state: TrustState, entry: VerdictEntry): void {
  const g = growth(entry.at, state.ref!);
  const row = entry.row;
  const imported = entry.imported;
  if (imported !== null) {
    row.successes -= imported.successes;
    row.failures -= imported.failures;
    row.grownSuccesses = row.successes === 0 ? 0 : Math.max(0, row.grownSuccesses - imported.weightedSuccesses * g);
    row.grownTotal = row.total === 0 ? 0 : Math.max(row.grownSuccesses, row.grownTotal - imported.weightedTotal * g);
    return;
  }
  if (entry.outcome === SUCCESS) {
    row.successes--;
    // Exact zeros when nothing is left: subtraction would leave rounding dust.
    row.grownSuccesses = row.successes === 0 ? 0 : Math.max(0, row.grownSuccesses - g);
  } else {
    row.failures--;
  }
  row.grownTotal = row.total === 0 ? 0 : Math.max(row.grownSuccesses, row.grownTotal - g);
}

/** Moves `ref` to `to`, scaling every row's sums to match: rare (see decay.ts), O(rows). */
function rebase(state: TrustState, to: number): void {
  const factor = readFactor(state.ref!, to);
  for (const row of state.rows.values()) {
    row.grownSuccesses *= factor;
    row.grownTotal *= factor;
  }
  state.ref = to;
}

function unlink(entry: VerdictEntry): void {
  const row = entry.row;
  if (entry.newer) entry.newer.older = entry.older;
  else row.newest = entry.older;
  if (entry.older) entry.older.newer = entry.newer;
  entry.older = entry.newer = null;
}

export function pushNewest(entry: VerdictEntry): void {
  const row = entry.row;
  entry.older = row.newest;
  entry.newer = null;
  if (row.newest) row.newest.newer = entry;
  row.newest = entry;
}
