/**
 * Test support: small random logs for the graph's property tests, from a
 * seed (mulberry32), with everything the graph reads: several actors and
 * threads, INTENDs with goals and assignees (some invalid), parents,
 * `fulfills` and `judged_by` to earlier, missing or the record's own id,
 * body kinds, and records on a reserved and on a plugin system thread. Also
 * the in-memory record reads of one caller (a visibility predicate, pages
 * optionally cut short as a restricted reader's scan budget cuts them).
 */
import { createHash } from 'node:crypto';
import type { Act } from '../../core/records/acts.js';
import { makeRecord } from '../../core/records/record.js';
import { TH_ENGINE_CONFIG, isReservedThread } from '../../core/records/reserved-threads.js';
import { seededRandom } from '../../storage/compliance/fixtures.js';
import { PAGE_MAX_LIMIT, type PageRequest, type RecordPage } from '../../storage/contract/record-store.js';
import type { StoredRecord } from '../../storage/contract/stored-record.js';
import { graphFold } from '../../plugins/graph/graph-fold.js';
import type { GraphReads } from '../../plugins/graph/graph-reads.js';
import type { GraphState } from '../../plugins/graph/graph-state.js';

const hex = (text: string) => createHash('sha256').update(text).digest('hex');

/** A plugin control thread (as the auth plugin declares one): no graph node. */
export const SYSTEM_THREAD = `th_${hex('graph-test-system-thread')}`;
export const SYSTEM_THREADS: ReadonlySet<string> = new Set([SYSTEM_THREAD]);
export const isSystemThread = (thread: string) => isReservedThread(thread) || SYSTEM_THREADS.has(thread);

export interface RandomGraph {
  readonly records: StoredRecord[];
  readonly actors: string[];
  readonly threads: string[];
  /** A DID only ever named as an assignee. */
  readonly assigneeOnly: string;
  readonly rng: () => number;
}

const ACTS: readonly Act[] = ['INTEND', 'DO', 'KNOW', 'LEARN'];
const KINDS = ['code_review.request.v1', 'code_review.verdict.v1', 'core.note.v1'];

export function randomGraph(seed: number, size: { maxRecords?: number } = {}): RandomGraph {
  const rng = seededRandom(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(rng() * items.length)]!;
  const actors = Array.from({ length: 2 + Math.floor(rng() * 4) }, (_, i) => `did:sync:user:u${i}`);
  const threads = Array.from({ length: 1 + Math.floor(rng() * 5) }, (_, i) => `th_${hex(`${seed}/thread/${i}`)}`);
  const assigneeOnly = 'did:sync:agent:helper';
  const count = Math.floor(rng() * ((size.maxRecords ?? 40) + 1));
  const records: StoredRecord[] = [];
  for (let i = 0; i < count; i++) {
    const id = hex(`${seed}/record/${i}`);
    const roll = rng();
    const thread = roll < 0.05 ? TH_ENGINE_CONFIG : roll < 0.1 ? SYSTEM_THREAD : pick(threads);
    const act = pick(ACTS);
    const earlier = records.map((r) => r.record.id);
    const reference = (): string => {
      const r = rng();
      if (r < 0.6 && earlier.length > 0) return pick(earlier);
      if (r < 0.8) return hex(`${seed}/missing/${i}`);
      return id; // judged_by is not hashed: a record may name itself
    };
    const parents = earlier.length === 0 ? [] : [...new Set(Array.from({ length: Math.floor(rng() * 3) }, () => pick(earlier)))].sort();
    const body: Record<string, unknown> = {};
    if (rng() < 0.4) body['kind'] = pick(KINDS);
    if (act === 'INTEND') {
      if (rng() < 0.6) body['goal'] = `goal ${i} ${'x'.repeat(Math.floor(rng() * 100))}`;
      else if (rng() < 0.3) body['title'] = `title ${i}`;
      if (rng() < 0.6) body['assigned_to'] = rng() < 0.8 ? pick([...actors, assigneeOnly]) : 'not a did';
    }
    if (rng() < 0.25) body['fulfills'] = reference();
    if (act === 'KNOW' && rng() < 0.3) body['verdict'] = pick(['accept', 'reject']);
    const judgedBy = rng() < 0.2 ? reference() : rng() < 0.05 ? 'not-a-record-id' : null;
    const record = makeRecord(id, { parents, thread, actor: pick(actors), act, body: body as never, clock: i, data_type: 'SCALAR', judged_by: judgedBy });
    records.push({ sequence: i + 1, createdAt: 1_700_000_000_000 + i, record });
  }
  return { records, actors, threads, assigneeOnly, rng };
}

/** The graph fold as the engine builds it for a caller who sees `visible`: system threads skipped, in log order. */
export function foldState(records: readonly StoredRecord[], visible: (stored: StoredRecord) => boolean = () => true, from?: GraphState): GraphState {
  let state = from ?? graphFold.initial(graphFold.name);
  for (const stored of records) if (visible(stored) && !isSystemThread(stored.record.thread)) state = graphFold.apply(state, stored);
  return state;
}

/**
 * One caller's reads over an in-memory log: invisible records are absent;
 * `pageCap` cuts pages below the requested limit (with a cursor), as a
 * restricted reader's scan budget does, to prove no answer depends on page size.
 */
export function memoryReads(records: readonly StoredRecord[], visible: (stored: StoredRecord) => boolean = () => true, pageCap = PAGE_MAX_LIMIT): GraphReads & { reads: number } {
  const byId = new Map(records.map((r) => [r.record.id, r]));
  const bySequence = new Map(records.map((r) => [r.sequence, r]));
  const page = (match: (stored: StoredRecord) => boolean, request: PageRequest): RecordPage => {
    handle.reads++;
    const after = request.after ?? 0;
    const limit = Math.min(request.limit ?? 100, PAGE_MAX_LIMIT, pageCap);
    const rest = records.filter((r) => r.sequence > after && match(r) && visible(r));
    const items = rest.slice(0, limit);
    return { items, nextAfter: rest.length > limit ? items[items.length - 1]!.sequence : null };
  };
  const handle = {
    reads: 0,
    async get(id: string) {
      handle.reads++;
      const stored = byId.get(id);
      return stored && visible(stored) ? stored : undefined;
    },
    async atSequence(sequence: number) {
      handle.reads++;
      const stored = bySequence.get(sequence);
      return stored && visible(stored) ? stored : undefined;
    },
    listByThread: async (thread: string, request: PageRequest) => page((r) => r.record.thread === thread, request),
    listByActor: async (actor: string, request: PageRequest) => page((r) => r.record.actor === actor, request),
    isSystemThread,
  };
  return handle;
}
