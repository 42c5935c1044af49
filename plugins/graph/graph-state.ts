/**
 * What the `graph` fold keeps in memory: only the actor/thread layer, never
 * one entry per record. Record nodes are read lazily through the caller's
 * RecordReader (graph-view.ts); here are the facts no single record read can
 * give: who wrote on which thread (with counts), which INTENDs are assigned
 * to whom, the body kinds seen, and who points at a record through the rare
 * cross-record references `fulfills` and `judged_by`.
 *
 * Records are held as their sequence (a small integer, read back through the
 * caller's changes feed), never as a 64-hex id string (~80 B each); the
 * reverse index is keyed by the first 52 bits of the target id, and a
 * source read back is checked to really point at the target, so a prefix
 * shared by two ids costs a read, never a wrong edge.
 *
 * Memory, measured (V8, Node 20, 64-bit) on 1M records in 100k threads of
 * 10 (three writers, one assigned INTEND, two `fulfills` and a `judged_by`
 * per thread): 73 MB in all, ~73 B per record:
 * - threads with their writers: ~500 B per thread (entry, id, its writers'
 *   map, and its slot in each writer's thread map); labels (≤ 80 chars) 5 MB;
 * - `fulfills` / `judged_by` reverse index: ~57 B per reference (17 MB);
 * - assignments: ~9 B each (a sequence in the assignee's array);
 * - actors: a few hundred bytes each plus the DID; kinds likewise.
 * Its checkpoint is ~11 MB of JSON. DIDs and thread ids are interned (each
 * string held once, however many entries name it).
 *
 * Insertion order is part of the state: neighbours are listed in it, so a
 * state rebuilt from the log or from a checkpoint answers exactly alike.
 */

export interface ActorEntry {
  readonly did: string;
  /** Records the actor wrote (outside system threads). */
  records: number;
  /** Thread id → the actor's records there, in the order of its first record on each. */
  readonly threads: Map<string, number>;
  /** Sequences of the INTENDs whose body.assigned_to names this actor, ascending. */
  readonly assigned: number[];
}

export interface ThreadEntry {
  readonly id: string;
  records: number;
  /** `goal` (else `title`) of the first INTEND that has one, clipped; null until then. */
  label: string | null;
  /** Writer DID → records on this thread, in the order of each writer's first record. */
  readonly actors: Map<string, number>;
}

/**
 * `idKey(target id)` → the sequences of the records pointing at it: one, or
 * several ascending (most targets have one, and an array costs more).
 */
export type ReverseIndex = Map<number, number | number[]>;

export interface GraphState {
  /** Records folded (outside system threads). */
  records: number;
  readonly actors: Map<string, ActorEntry>;
  readonly threads: Map<string, ThreadEntry>;
  /** body.kind → records carrying it. */
  readonly kinds: Map<string, number>;
  /** Records whose body.fulfills names a record (by idKey). */
  readonly fulfilledBy: ReverseIndex;
  /** Records whose judged_by field names a record (by idKey). */
  readonly judgedBy: ReverseIndex;
}

export function emptyGraphState(): GraphState {
  return { records: 0, actors: new Map(), threads: new Map(), kinds: new Map(), fulfilledBy: new Map(), judgedBy: new Map() };
}

export function actorEntry(state: GraphState, did: string): ActorEntry {
  let entry = state.actors.get(did);
  if (!entry) {
    entry = { did, records: 0, threads: new Map(), assigned: [] };
    state.actors.set(did, entry);
  }
  return entry;
}

export function threadEntry(state: GraphState, id: string): ThreadEntry {
  let entry = state.threads.get(id);
  if (!entry) {
    entry = { id, records: 0, label: null, actors: new Map() };
    state.threads.set(id, entry);
  }
  return entry;
}

/** The first 52 bits of a record id (13 hex digits), exact as a double: the reverse index's key. */
export function idKey(recordId: string): number {
  return parseInt(recordId.slice(0, 13), 16);
}

export function addReference(index: ReverseIndex, target: string, sourceSequence: number): void {
  const key = idKey(target);
  const existing = index.get(key);
  if (existing === undefined) index.set(key, sourceSequence);
  else if (typeof existing === 'number') index.set(key, [existing, sourceSequence]);
  else existing.push(sourceSequence);
}

/**
 * Sequences of the records that may point at `target`, ascending: a record
 * read back must be checked to name `target` (another id may share its key).
 */
export function referencesTo(index: ReverseIndex, target: string): readonly number[] {
  const found = index.get(idKey(target));
  return found === undefined ? [] : typeof found === 'number' ? [found] : found;
}

/**
 * Text clipped to `max` UTF-16 units without splitting a surrogate pair,
 * with an ellipsis when cut. A cut text is built afresh: a slice would keep
 * the whole (possibly long) body string it came from alive in the fold.
 */
export function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = max - 1;
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end--;
  const units: number[] = [];
  for (let i = 0; i < end; i++) units.push(text.charCodeAt(i));
  units.push(0x2026);
  return String.fromCharCode(...units);
}
