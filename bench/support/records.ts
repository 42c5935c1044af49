/**
 * Record generators shared by the benchmarks: valid thread ids and actors,
 * small realistic bodies, raw ingest inputs (what a client sends), and
 * ready PreparedRecords for bulk loading a store.
 */
import { nodeSha256Hex } from '../../core/engine/native-hash.js';
import type { Act } from '../../core/records/acts.js';
import type { JsonObject } from '../../core/records/json.js';
import { computeRecordId } from '../../core/records/record-id.js';
import { makeRecord, type RecordFields } from '../../core/records/record.js';
import type { PreparedRecord } from '../../storage/contract/stored-record.js';

const threadIds = new Map<number, string>();

/** A valid derived-form thread id (`th_` + 64 hex), stable per index. */
export function threadId(index: number): string {
  let id = threadIds.get(index);
  if (id === undefined) {
    id = 'th_' + nodeSha256Hex(`loom-bench-thread:${index}`);
    threadIds.set(index, id);
  }
  return id;
}

export function actorDid(name: string): string {
  return `did:sync:agent:${name}`;
}

export const BENCH_ACTS: readonly Act[] = ['KNOW', 'DO', 'INTEND', 'LEARN'];

const KINDS = ['observation', 'status', 'decision', 'measurement', 'note'] as const;
const STEPS = ['checkout', 'install', 'compile', 'lint', 'unit tests', 'package', 'deploy'] as const;

/** A small, realistic body (about 150-200 bytes of JSON), deterministic in `n`. */
export function bodyFor(n: number): JsonObject {
  const step = STEPS[n % STEPS.length]!;
  return {
    kind: KINDS[n % KINDS.length]!,
    summary: `${step} finished for job ${1000 + (n % 977)} on runner r${n % 13}`,
    duration_ms: (n * 37) % 5000,
    ok: n % 11 !== 0,
    attempt: 1 + (n % 3),
    tags: ['ci', step],
  };
}

/** The raw, unvalidated shape a client posts (no id; the server computes it). */
export interface RawInput {
  parents: string[];
  thread: string;
  actor: string;
  act: Act;
  body: JsonObject;
  clock: number;
  data_type: 'SCALAR';
  judged_by: null;
}

/** The record id of a raw input (computeRecordId with node:crypto; does not freeze the input). */
export function idOf(input: RawInput): string {
  return computeRecordId(input, nodeSha256Hex);
}

/**
 * `count` raw inputs for batched ingest (record-cost, peer-append): 256
 * threads, 16 actors named after `salt` (so two sets never share a clock
 * slot), each actor's clock rising by one every 16 records.
 */
export function batchInputs(count: number, salt: string): Array<Record<string, unknown>> {
  return Array.from({ length: count }, (_, n) => ({
    thread: `th_${(n % 256).toString(16).padStart(64, '0')}`,
    actor: `did:sync:agent:cost-${salt}-${n % 16}`,
    act: BENCH_ACTS[n % BENCH_ACTS.length]!,
    body: bodyFor(n),
    clock: Math.floor(n / 16),
    data_type: 'SCALAR',
    parents: [],
    judged_by: null,
  }));
}

// ------------------------------------------------------------ the read/query dataset

/**
 * Layout of the read-scaling and indexed-query dataset. Records come in
 * windows of WINDOW_THREADS × RECORDS_PER_THREAD; inside a window the threads
 * are interleaved (record i goes to thread i mod WINDOW_THREADS of its
 * window), so a thread's records are spread over a stretch of the log as in a
 * live system, not stored contiguously. At 10k records the first window's 100
 * threads hold 100 records each; at 1M, 5000 threads hold 200 each. The act
 * cycles KNOW, DO, INTEND, LEARN along each thread, so a quarter of a
 * thread's records are KNOW.
 */
export const WINDOW_THREADS = 100;
export const RECORDS_PER_THREAD = 200;
const WINDOW = WINDOW_THREADS * RECORDS_PER_THREAD;
export const DATASET_ACTORS = 50;

export function datasetThreadIndex(i: number): number {
  return Math.floor(i / WINDOW) * WINDOW_THREADS + (i % WINDOW_THREADS);
}

/** Record number i of the dataset, ready to store (valid by construction; ids from node:crypto). */
export function datasetRecord(i: number, createdAt: number): PreparedRecord {
  const fields: RecordFields = {
    parents: [],
    thread: threadId(datasetThreadIndex(i)),
    actor: actorDid(`reader-${i % DATASET_ACTORS}`),
    act: BENCH_ACTS[Math.floor((i % WINDOW) / WINDOW_THREADS) % BENCH_ACTS.length]!,
    body: bodyFor(i),
    clock: i,
    data_type: 'SCALAR',
    judged_by: null,
  };
  const record = makeRecord(computeRecordId(fields, nodeSha256Hex), fields);
  return { record, namespace: 'default', createdAt };
}

/** Records on thread index t among the first n dataset records. */
export function datasetThreadSize(t: number, n: number): number {
  const window = Math.floor(t / WINDOW_THREADS);
  const local = t % WINDOW_THREADS;
  const start = window * WINDOW;
  if (n <= start + local) return 0;
  const inWindow = Math.min(n - start, WINDOW);
  return Math.floor((inWindow - local - 1) / WINDOW_THREADS) + 1;
}

/** Thread indexes holding at least `min` records among the first n. */
export function datasetThreadsWithAtLeast(min: number, n: number): number[] {
  const out: number[] = [];
  const maxThread = datasetThreadIndex(Math.max(0, n - 1));
  for (let t = 0; t <= maxThread; t++) if (datasetThreadSize(t, n) >= min) out.push(t);
  return out;
}
