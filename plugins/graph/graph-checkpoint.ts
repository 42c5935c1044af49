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
  // The checks below run once per element of a large state: each builds its error path only when it fails
  // (building it eagerly for every element was a good share of a start's garbage at a million records).
  const root = object(saved, 'checkpoint');
  const threadRows = array(root['threads'], 'threads');
  const actorRows = array(root['actors'], 'actors');
  const actors: ActorEntry[] = actorRows.map((raw, i) => {
    const row = isArray(raw) ? raw : array(raw, `actors[${i}]`);
    const assigned = isArray(row[3]) ? row[3] : array(row[3], `actors[${i}][3]`);
    for (let j = 0; j < assigned.length; j++) if (!isCount(assigned[j])) count(assigned[j], `actors[${i}][3][${j}]`);
    return {
      did: isString(row[0]) ? row[0] : string(row[0], `actors[${i}][0]`),
      records: isCount(row[1]) ? row[1] : count(row[1], `actors[${i}][1]`),
      threads: new Map(),
      assigned: assigned as number[],
    };
  });
  const threads: ThreadEntry[] = threadRows.map((raw, i) => {
    const row = isArray(raw) ? raw : array(raw, `threads[${i}]`);
    const label = row[2] === null ? null : isString(row[2]) ? row[2] : string(row[2], `threads[${i}][2]`);
    const thread: ThreadEntry = {
      id: isString(row[0]) ? row[0] : string(row[0], `threads[${i}][0]`),
      records: isCount(row[1]) ? row[1] : count(row[1], `threads[${i}][1]`),
      label,
      actors: new Map(),
    };
    const writers = isArray(row[3]) ? row[3] : array(row[3], `threads[${i}][3]`);
    if (writers.length % 2 !== 0) throw new Error(`graph checkpoint: threads[${i}][3] must hold (actor index, count) pairs`);
    for (let w = 0; w < writers.length; w += 2) {
      const actor = isIndex(writers[w], actors.length) ? actors[writers[w] as number]! : at(actors, writers[w], `threads[${i}][3][${w}]`);
      thread.actors.set(actor.did, isCount(writers[w + 1]) ? (writers[w + 1] as number) : count(writers[w + 1], `threads[${i}][3][${w + 1}]`));
    }
    return thread;
  });
  actors.forEach((actor, i) => {
    const row = actorRows[i] as unknown[];
    const listed = isArray(row[2]) ? row[2] : array(row[2], `actors[${i}][2]`);
    for (let j = 0; j < listed.length; j++) {
      const thread = isIndex(listed[j], threads.length) ? threads[listed[j] as number]! : at(threads, listed[j], `actors[${i}][2][${j}]`);
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
    const row = isArray(entry) ? entry : array(entry, `${where}[${i}]`);
    const sources = row[1];
    const target = isCount(row[0]) ? row[0] : count(row[0], `${where}[${i}][0]`);
    if (Array.isArray(sources)) {
      for (let j = 0; j < sources.length; j++) if (!isCount(sources[j])) count(sources[j], `${where}[${i}][1][${j}]`);
      index.set(target, sources as number[]);
    } else {
      index.set(target, isCount(sources) ? sources : count(sources, `${where}[${i}][1]`));
    }
  });
  return index;
}

const isArray = (value: unknown): value is unknown[] => Array.isArray(value);
const isString = (value: unknown): value is string => typeof value === 'string';
const isCount = (value: unknown): value is number => Number.isSafeInteger(value) && (value as number) >= 0;
const isIndex = (value: unknown, length: number): boolean => Number.isInteger(value) && (value as number) >= 0 && (value as number) < length;

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
