/**
 * The trust fold's checkpoint codec (version 1): the state as plain JSON and
 * back, exactly (sums are doubles, which JSON round-trips), so a fold resumed
 * from a checkpoint answers and continues as the live one would.
 *
 * Compact by construction, since the state holds an entry per INTEND, claim
 * and verdict: strings (DIDs, domains) go once into a table and are referred
 * to by index; entries are flattened into parallel arrays of ids and numbers.
 * Bump `version` whenever the state's shape or `applyTrust` changes.
 */
import type { FoldCheckpoint } from '../../core/folds/fold.js';
import { CLAIM_WORK, emptyStats, emptyTrustState, INTEND_WORK, pushNewest, rowFor, VerdictEntry, WorkEntry, type TrustRow, type TrustState, type TrustStats } from './trust-state.js';
import { CANCELLED, type Outcome } from './verdict-words.js';

interface SavedTrust {
  format: 'trust/1';
  ref: number | null;
  strings: string[];
  /** Per work entry: its id; and 4 numbers: kind, actor, assigned_to (−1: none), domain (−1), then claimant (−1). */
  work_ids: string[];
  work: number[];
  /** Per row 3 numbers (actor, judge, domain string indexes) then 4 (successes, failures, grown successes, grown total). */
  rows: number[];
  /** Per verdict: its id; and 5 numbers: row index, actor string index, receipt time, outcome, decided at. */
  verdict_ids: string[];
  verdicts: number[];
  /** Per row, its counted verdicts (verdict indexes) from oldest to newest. */
  in_force: number[][];
  stats: TrustStats;
}

const WORK_FIELDS = 5;
const ROW_FIELDS = 7;
const VERDICT_FIELDS = 5;

function save(state: TrustState): SavedTrust {
  const strings: string[] = [];
  const indexOf = new Map<string, number>();
  const ix = (value: string | null): number => {
    if (value === null) return -1;
    let i = indexOf.get(value);
    if (i === undefined) {
      i = strings.length;
      strings.push(value);
      indexOf.set(value, i);
    }
    return i;
  };
  const workIds: string[] = [];
  const work: number[] = [];
  for (const [id, entry] of state.work) {
    workIds.push(id);
    work.push(entry.kind, ix(entry.actor), ix(entry.assignedTo), ix(entry.domain), ix(entry.claimant));
  }
  const rowIndex = new Map<object, number>();
  const rows: number[] = [];
  for (const row of state.rows.values()) {
    rowIndex.set(row, rowIndex.size);
    rows.push(ix(row.actor), ix(row.judge), ix(row.domain), row.successes, row.failures, row.grownSuccesses, row.grownTotal);
  }
  const verdictIds: string[] = [];
  const verdicts: number[] = [];
  const verdictIndex = new Map<VerdictEntry, number>();
  for (const [id, entry] of state.verdicts) {
    verdictIndex.set(entry, verdictIds.length);
    verdictIds.push(id);
    verdicts.push(rowIndex.get(entry.row)!, ix(entry.actor), entry.at, entry.outcome, entry.decidedAt);
  }
  const inForce: number[][] = [];
  for (const row of state.rows.values()) {
    const chain: number[] = [];
    for (let entry = row.newest; entry !== null; entry = entry.older) chain.push(verdictIndex.get(entry)!);
    inForce.push(chain.reverse());
  }
  return { format: 'trust/1', ref: state.ref, strings, work_ids: workIds, work, rows, verdict_ids: verdictIds, verdicts, in_force: inForce, stats: { ...state.stats } };
}

function load(saved: unknown): TrustState {
  const s = saved as SavedTrust;
  if (s === null || typeof s !== 'object' || s.format !== 'trust/1') throw new Error('not a trust checkpoint (format trust/1)');
  const { strings } = s;
  const str = (i: number): string => {
    const value = strings[i];
    if (typeof value !== 'string') throw new Error(`trust checkpoint: string index ${i} out of range`);
    return value;
  };
  const opt = (i: number): string | null => (i === -1 ? null : str(i));
  if (s.work.length !== s.work_ids.length * WORK_FIELDS || s.verdicts.length !== s.verdict_ids.length * VERDICT_FIELDS || s.rows.length % ROW_FIELDS !== 0) {
    throw new Error('trust checkpoint: array lengths disagree');
  }
  const state = emptyTrustState();
  // The table's strings become the interned copies.
  for (const value of strings) state.strings.set(value, value);
  state.ref = s.ref;
  Object.assign(state.stats, emptyStats(), s.stats);
  s.work_ids.forEach((id, i) => {
    const w = s.work.slice(i * WORK_FIELDS, (i + 1) * WORK_FIELDS) as [number, number, number, number, number];
    const kind = w[0] === CLAIM_WORK ? CLAIM_WORK : INTEND_WORK;
    state.work.set(id, new WorkEntry(kind, str(w[1]), opt(w[2]), opt(w[3]), opt(w[4])));
  });
  const rows: TrustRow[] = [];
  for (let i = 0; i < s.rows.length; i += ROW_FIELDS) {
    const row = rowFor(state, str(s.rows[i]!), str(s.rows[i + 2]!), str(s.rows[i + 1]!));
    row.successes = s.rows[i + 3]!;
    row.failures = s.rows[i + 4]!;
    row.grownSuccesses = s.rows[i + 5]!;
    row.grownTotal = s.rows[i + 6]!;
    rows.push(row);
  }
  const entries: VerdictEntry[] = [];
  s.verdict_ids.forEach((id, i) => {
    const v = s.verdicts.slice(i * VERDICT_FIELDS, (i + 1) * VERDICT_FIELDS) as [number, number, number, number, number];
    const row = rows[v[0]];
    if (!row) throw new Error(`trust checkpoint: verdict ${id} names row ${v[0]}, out of range`);
    const outcome = v[3] as Outcome;
    if (!(outcome >= 0 && outcome <= CANCELLED)) throw new Error(`trust checkpoint: verdict ${id} has outcome ${v[3]}`);
    const entry = new VerdictEntry(id, row, str(v[1]), v[2], outcome, v[4]);
    state.verdicts.set(id, entry);
    entries.push(entry);
  });
  s.in_force.forEach((chain, r) => {
    for (const i of chain) {
      const entry = entries[i];
      if (!entry || entry.row !== rows[r]) throw new Error(`trust checkpoint: row ${r} lists verdict ${i}, which is not its own`);
      pushNewest(entry);
    }
  });
  return state;
}

export const trustCheckpoint: FoldCheckpoint<TrustState> = { version: 1, save, load };
