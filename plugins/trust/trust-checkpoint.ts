/**
 * The trust fold's checkpoint codec (version 3: imported rows and their
 * entries, trust-import.ts; chains in force by id, saved piece by piece): the state as plain JSON and
 * back, exactly (sums are doubles, which JSON round-trips), so a fold resumed
 * from a checkpoint answers and continues as the live one would.
 *
 * Compact by construction, since the state holds an entry per INTEND, claim
 * and verdict: strings (DIDs, domains) go once into a table and are referred
 * to by index; entries are flattened into parallel arrays of ids and numbers.
 * Bump `version` whenever the state's shape or `applyTrust` changes.
 */
import type { CheckpointChunk, FoldCheckpoint } from '../../core/folds/fold.js';
import { CLAIM_WORK, emptyStats, emptyTrustState, INTEND_WORK, pushNewest, rowFor, VerdictEntry, WorkEntry, type TrustRow, type TrustState, type TrustStats } from './trust-state.js';
import { CANCELLED, SUCCESS, type Outcome } from './verdict-words.js';

function fail(message: string): never {
  throw new Error(message);
}

interface SavedTrust {
  format: 'trust/3';
  ref: number | null;
  strings: string[];
  /** Per work entry: its id; and 4 numbers: kind, actor, assigned_to (−1: none), domain (−1), then claimant (−1). */
  work_ids: string[];
  work: number[];
  /** Per row 3 numbers (actor, judge, domain string indexes), 4 (successes, failures, grown successes, grown total), then 1 (imported: 1, else 0). */
  rows: number[];
  /** Per verdict: its id; and 5 numbers: row index, actor string index, receipt time, outcome, decided at. */
  verdict_ids: string[];
  verdicts: number[];
  /** Per import entry: its record id; and 8 numbers: row index, actor string index, receipt time, decided at, then its counts (successes, failures, weighted successes, weighted total). */
  import_ids: string[];
  imports: number[];
  /** Per member with an import in force: its string index, then its entries' indexes. */
  imports_by_member: number[][];
  /** Per row, its counted entries from oldest to newest: verdict ids, or import entry indexes in an imported row. */
  in_force: Array<Array<string | number>>;
  stats: TrustStats;
}

const WORK_FIELDS = 5;
const ROW_FIELDS = 8;
const VERDICT_FIELDS = 5;
const IMPORT_FIELDS = 8;

/** Items per piece of a long array member. */
const PIECE = 4096;

/**
 * The saved state piece by piece (FoldCheckpoint.saveChunks): entries are
 * read from the state as their pieces are written, so a 10M-verdict state
 * is saved without its saved form ever existing whole; the string table,
 * filled along the way, comes last. Chains in force name entries by id
 * (shared strings, no index map over every verdict).
 */
function* saveChunks(state: TrustState): Generator<CheckpointChunk> {
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
  /** `fill(push)` for each entry; yields the members' pieces as they fill up, and empty members once. */
  function* members<T>(keys: readonly string[], entries: Iterable<T>, fill: (entry: T, out: unknown[][]) => void): Generator<CheckpointChunk> {
    let out: unknown[][] = keys.map(() => []);
    let any = false;
    for (const entry of entries) {
      fill(entry, out);
      if (out[0]!.length >= PIECE) {
        for (const [i, key] of keys.entries()) yield { key, items: out[i]! };
        out = keys.map(() => []);
        any = true;
      }
    }
    if (out[0]!.length > 0 || !any) for (const [i, key] of keys.entries()) yield any ? { key, items: out[i]! } : { key, value: out[i]! };
  }
  yield { key: 'format', value: 'trust/3' };
  yield { key: 'ref', value: state.ref };
  yield* members(['work_ids', 'work'], state.work, ([id, entry], [ids, work]) => {
    ids!.push(id);
    work!.push(entry.kind, ix(entry.actor), ix(entry.assignedTo), ix(entry.domain), ix(entry.claimant));
  });
  // Rows are numbered in iteration order; imports (few) are gathered first and refer to them by that number.
  const rowIndex = new Map<TrustRow, number>();
  for (const row of state.rows.values()) rowIndex.set(row, rowIndex.size);
  const rowIndexOf = (row: TrustRow): number => rowIndex.get(row)!;
  const importIndex = new Map<VerdictEntry, number>();
  const importIds: string[] = [];
  const imports: number[] = [];
  const importsByMember: Array<Array<number>> = [];
  for (const [member, entries] of state.imports) {
    const list = [ix(member)];
    for (const entry of entries) {
      const counts = entry.imported!;
      importIndex.set(entry, importIds.length);
      list.push(importIds.length);
      importIds.push(entry.id);
      imports.push(rowIndexOf(entry.row), ix(entry.actor), entry.at, entry.decidedAt, counts.successes, counts.failures, counts.weightedSuccesses, counts.weightedTotal);
    }
    importsByMember.push(list);
  }
  yield* members(['rows', 'in_force'], state.rows.values(), (row, [rows, inForce]) => {
    rows!.push(ix(row.actor), ix(row.judge), ix(row.domain), row.successes, row.failures, row.grownSuccesses, row.grownTotal, row.imported ? 1 : 0);
    // An imported row's entries by their index among the imports (an import's entries share its record id), a verdict by its id.
    const chain: Array<string | number> = [];
    for (let entry = row.newest; entry !== null; entry = entry.older) chain.push(row.imported ? importIndex.get(entry)! : entry.id);
    inForce!.push(chain.reverse());
  });
  yield* members(['verdict_ids', 'verdicts'], state.verdicts, ([id, entry], [ids, verdicts]) => {
    ids!.push(id);
    verdicts!.push(rowIndex.get(entry.row)!, ix(entry.actor), entry.at, entry.outcome, entry.decidedAt);
  });
  yield { key: 'import_ids', value: importIds };
  yield { key: 'imports', value: imports };
  yield { key: 'imports_by_member', value: importsByMember };
  yield { key: 'stats', value: { ...state.stats } };
  yield { key: 'strings', value: strings };
}

/** The saved state whole: the pieces put together (small states, tests). */
function save(state: TrustState): SavedTrust {
  const saved: Record<string, unknown> = {};
  for (const chunk of saveChunks(state)) {
    if ('items' in chunk) ((saved[chunk.key] ??= []) as unknown[]).push(...chunk.items);
    else saved[chunk.key] = chunk.value;
  }
  return saved as unknown as SavedTrust;
}

function load(saved: unknown): TrustState {
  const s = saved as SavedTrust;
  if (s === null || typeof s !== 'object' || s.format !== 'trust/3') throw new Error('not a trust checkpoint (format trust/3)');
  const { strings } = s;
  const str = (i: number): string => {
    const value = strings[i];
    if (typeof value !== 'string') throw new Error(`trust checkpoint: string index ${i} out of range`);
    return value;
  };
  const opt = (i: number): string | null => (i === -1 ? null : str(i));
  if (
    s.work.length !== s.work_ids.length * WORK_FIELDS ||
    s.verdicts.length !== s.verdict_ids.length * VERDICT_FIELDS ||
    s.imports.length !== s.import_ids.length * IMPORT_FIELDS ||
    s.rows.length % ROW_FIELDS !== 0
  ) {
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
    const row = rowFor(state, str(s.rows[i]!), str(s.rows[i + 2]!), str(s.rows[i + 1]!), s.rows[i + 7] === 1);
    row.successes = s.rows[i + 3]!;
    row.failures = s.rows[i + 4]!;
    row.grownSuccesses = s.rows[i + 5]!;
    row.grownTotal = s.rows[i + 6]!;
    rows.push(row);
  }
  s.verdict_ids.forEach((id, i) => {
    const v = s.verdicts.slice(i * VERDICT_FIELDS, (i + 1) * VERDICT_FIELDS) as [number, number, number, number, number];
    const row = rows[v[0]];
    if (!row) throw new Error(`trust checkpoint: verdict ${id} names row ${v[0]}, out of range`);
    const outcome = v[3] as Outcome;
    if (!(outcome >= 0 && outcome <= CANCELLED)) throw new Error(`trust checkpoint: verdict ${id} has outcome ${v[3]}`);
    const entry = new VerdictEntry(id, row, str(v[1]), v[2], outcome, v[4]);
    state.verdicts.set(id, entry);
  });
  const imported: VerdictEntry[] = [];
  s.import_ids.forEach((id, i) => {
    const v = s.imports.slice(i * IMPORT_FIELDS, (i + 1) * IMPORT_FIELDS) as [number, number, number, number, number, number, number, number];
    const row = rows[v[0]];
    if (!row || !row.imported) throw new Error(`trust checkpoint: import ${id} names row ${v[0]}, which is not an imported row`);
    const entry = new VerdictEntry(id, row, str(v[1]), v[2], SUCCESS, v[3]);
    entry.imported = { successes: v[4], failures: v[5], weightedSuccesses: v[6], weightedTotal: v[7] };
    imported.push(entry);
  });
  for (const [member, ...indexes] of s.imports_by_member) {
    state.imports.set(str(member!), indexes.map((i) => imported[i] ?? fail(`trust checkpoint: member ${member} lists import ${i}, out of range`)));
  }
  if (s.in_force.length !== rows.length) throw new Error('trust checkpoint: in_force does not list every row');
  s.in_force.forEach((chain, r) => {
    const row = rows[r]!;
    for (const key of chain) {
      const entry = row.imported ? (typeof key === 'number' ? imported[key] : undefined) : typeof key === 'string' ? state.verdicts.get(key) : undefined;
      if (!entry || entry.row !== row) throw new Error(`trust checkpoint: row ${r} lists verdict ${key}, which is not its own`);
      pushNewest(entry);
    }
  });
  return state;
}

export const trustCheckpoint: FoldCheckpoint<TrustState> = { version: 3, save, load, saveChunks };
