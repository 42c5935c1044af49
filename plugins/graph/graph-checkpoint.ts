/**
 * The `graph` fold's checkpoint codec (version 1): plain JSON that keeps
 * every map's insertion order, since neighbours are listed in it. Actors and
 * threads refer to each other by position in the saved arrays, so each id is
 * written once. `load` checks the whole shape and throws on anything else:
 * a damaged checkpoint is rebuilt from the log, never half-trusted.
 *
 *   { records,
 *     threads: [[id, records, label | null, [actorIndex, count, actorIndex, count, …]], …],
 *     actors:  [[did, records, [threadIndex, …], [assigned INTEND sequence, …]], …],
 *     kinds: [[kind, records], …],
 *     fulfilled_by: [[target idKey, source sequence | [source sequence, …]], …],
 *     judged_by:    [[target idKey, source sequence | [source sequence, …]], …] }
 */
import type { FoldCheckpoint } from '../../core/folds/fold.js';
import type { ActorEntry, GraphState, ReverseIndex, ThreadEntry } from './graph-state.js';

/** Bump whenever graphFold.apply or the state's shape changes. */
export const GRAPH_CHECKPOINT_VERSION = 1;

type SavedThread = [string, number, string | null, number[]];
type SavedActor = [string, number, number[], number[]];

interface SavedGraph {
  records: number;
  threads: SavedThread[];
  actors: SavedActor[];
  kinds: [string, number][];
  fulfilled_by: [number, number | number[]][];
  judged_by: [number, number | number[]][];
}

function save(state: GraphState): SavedGraph {
  const actorIndex = new Map<string, number>();
  const threadIndex = new Map<string, number>();
  for (const did of state.actors.keys()) actorIndex.set(did, actorIndex.size);
  for (const id of state.threads.keys()) threadIndex.set(id, threadIndex.size);
  const threads: SavedThread[] = [];
  for (const thread of state.threads.values()) {
    const writers: number[] = [];
    for (const [did, count] of thread.actors) writers.push(actorIndex.get(did)!, count);
    threads.push([thread.id, thread.records, thread.label, writers]);
  }
  const actors: SavedActor[] = [];
  for (const actor of state.actors.values()) actors.push([actor.did, actor.records, [...actor.threads.keys()].map((id) => threadIndex.get(id)!), [...actor.assigned]]);
  const references = (index: ReverseIndex): [number, number | number[]][] => [...index].map(([target, sources]) => [target, typeof sources === 'number' ? sources : [...sources]]);
  return { records: state.records, threads, actors, kinds: [...state.kinds], fulfilled_by: references(state.fulfilledBy), judged_by: references(state.judgedBy) };
}

function load(saved: unknown): GraphState {
  const root = object(saved, 'checkpoint');
  const threadRows = array(root['threads'], 'threads');
  const actorRows = array(root['actors'], 'actors');
  const actors: ActorEntry[] = actorRows.map((raw, i) => {
    const row = array(raw, `actors[${i}]`);
    return { did: string(row[0], `actors[${i}][0]`), records: count(row[1], `actors[${i}][1]`), threads: new Map(), assigned: array(row[3], `actors[${i}][3]`).map((sequence, j) => count(sequence, `actors[${i}][3][${j}]`)) };
  });
  const threads: ThreadEntry[] = threadRows.map((raw, i) => {
    const row = array(raw, `threads[${i}]`);
    const label = row[2] === null ? null : string(row[2], `threads[${i}][2]`);
    const thread: ThreadEntry = { id: string(row[0], `threads[${i}][0]`), records: count(row[1], `threads[${i}][1]`), label, actors: new Map() };
    const writers = array(row[3], `threads[${i}][3]`);
    if (writers.length % 2 !== 0) throw new Error(`graph checkpoint: threads[${i}][3] must hold (actor index, count) pairs`);
    for (let w = 0; w < writers.length; w += 2) thread.actors.set(at(actors, writers[w], `threads[${i}][3][${w}]`).did, count(writers[w + 1], `threads[${i}][3][${w + 1}]`));
    return thread;
  });
  actors.forEach((actor, i) => {
    const row = actorRows[i] as unknown[];
    for (const [j, index] of array(row[2], `actors[${i}][2]`).entries()) {
      const thread = at(threads, index, `actors[${i}][2][${j}]`);
      const written = thread.actors.get(actor.did);
      if (written === undefined) throw new Error(`graph checkpoint: actor ${actor.did} lists thread ${thread.id}, which does not list it`);
      actor.threads.set(thread.id, written);
    }
  });
  const state: GraphState = {
    records: count(root['records'], 'records'),
    actors: new Map(actors.map((a) => [a.did, a])),
    threads: new Map(threads.map((t) => [t.id, t])),
    kinds: new Map(array(root['kinds'], 'kinds').map((raw, i) => {
      const row = array(raw, `kinds[${i}]`);
      return [string(row[0], `kinds[${i}][0]`), count(row[1], `kinds[${i}][1]`)] as const;
    })),
    fulfilledBy: reverseIndex(root['fulfilled_by'], 'fulfilled_by'),
    judgedBy: reverseIndex(root['judged_by'], 'judged_by'),
  };
  if (state.actors.size !== actors.length || state.threads.size !== threads.length) throw new Error('graph checkpoint: an actor or thread is listed twice');
  return state;
}

function reverseIndex(raw: unknown, where: string): ReverseIndex {
  const index: ReverseIndex = new Map();
  array(raw, where).forEach((entry, i) => {
    const row = array(entry, `${where}[${i}]`);
    const sources = row[1];
    index.set(count(row[0], `${where}[${i}][0]`), Array.isArray(sources) ? sources.map((s, j) => count(s, `${where}[${i}][1][${j}]`)) : count(sources, `${where}[${i}][1]`));
  });
  return index;
}

function object(value: unknown, where: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error(`graph checkpoint: ${where} must be an object`);
  return value as Record<string, unknown>;
}

function array(value: unknown, where: string): unknown[] {
  if (!Array.isArray(value)) throw new Error(`graph checkpoint: ${where} must be an array`);
  return value;
}

function string(value: unknown, where: string): string {
  if (typeof value !== 'string') throw new Error(`graph checkpoint: ${where} must be a string`);
  return value;
}

function count(value: unknown, where: string): number {
  if (!Number.isSafeInteger(value) || (value as number) < 0) throw new Error(`graph checkpoint: ${where} must be a non-negative integer`);
  return value as number;
}

function at<T>(items: readonly T[], index: unknown, where: string): T {
  if (!Number.isInteger(index) || (index as number) < 0 || (index as number) >= items.length) throw new Error(`graph checkpoint: ${where} is no valid index`);
  return items[index as number]!;
}

export const graphCheckpoint: FoldCheckpoint<GraphState> = { version: GRAPH_CHECKPOINT_VERSION, save, load };
