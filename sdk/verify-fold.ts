/**
 * Offline-verifiable folds: a fold is a pure function of records, so a
 * client need not trust the server's value. `verifyFold` fetches a fold
 * answer, fetches exactly the records it covers (those the caller may see,
 * up to the answer's watermark), recomputes the value with the same fold
 * code the server runs (core/folds and plugins/folds/named, records only) and reports any
 * difference. Folds whose value depends on the time it is read (trust) are
 * not verifiable and are refused.
 *
 * Which records a fold covers:
 * - a thread fold: the thread's records up to the watermark
 *   (GET /v1/records?thread=&until=);
 * - a global fold reading named threads: those threads, merged in log order;
 * - any other global fold: POST /v1/records/query on `sequence` ≤ watermark,
 *   in sequence order, leaving out reserved and system threads when the
 *   fold ignores them (GET /v1/folds names the system threads).
 * Pages must carry `sequences` (each record's log sequence, in page order):
 * folds see sequences, so they are needed to recompute exactly.
 */
import type { AnyFold, FoldInput } from '../core/folds/fold.js';
import { frameFold } from '../plugins/folds/named/frame.js';
import { rollupFold } from '../plugins/folds/named/rollup.js';
import { taskListFold } from '../plugins/folds/named/task-list.js';
import { turnFold } from '../plugins/folds/named/turn.js';
import { namespaceRegistryFold } from '../core/folds/namespace-registry.js';
import { threadStateFold } from '../core/folds/thread-state.js';
import type { LoomRecord } from '../core/records/record.js';
import { RESERVED_THREADS } from '../core/records/reserved-threads.js';
import type * as operations from './gen/sdk.gen.js';

/** The folds the SDK can recompute: every fold of core/folds and plugins/folds/named that reads no clock and needs no server configuration. */
export const VERIFIABLE_FOLDS: readonly AnyFold[] = [threadStateFold, namespaceRegistryFold, taskListFold, turnFold, frameFold, rollupFold];

/** The generated operations the verifier calls (a LoomClient has them all). */
export type FoldVerifierClient = Pick<typeof operations, 'getGlobalFold' | 'getThreadFold' | 'listRecords' | 'queryRecords' | 'listFolds'>;

export interface VerifyFoldOptions {
  /**
   * More folds to recompute, e.g. a plugin's pure fold code; a fold of the
   * same name replaces the built-in one. @default none
   */
  readonly folds?: readonly AnyFold[];
  /** Records per page. @default 1000 */
  readonly pageSize?: number;
  /** Differences reported at most. @default 50 */
  readonly maxDifferences?: number;
}

export interface FoldDifference {
  /** JSON pointer into the value, e.g. `/tasks/0/state`. */
  path: string;
  /** Absent on that side: undefined. */
  server: unknown;
  local: unknown;
}

export interface FoldVerification {
  /** True when the server's value equals the recomputed one. */
  ok: boolean;
  fold_name: string;
  /** The thread, for a thread fold; null for a global fold. */
  key: string | null;
  watermark: number;
  /** Records the local recomputation folded. */
  records: number;
  server_value: unknown;
  local_value: unknown;
  /** Where the values differ (at most `maxDifferences`). */
  differences: FoldDifference[];
}

/** The verification could not be carried out (not a difference: nothing was compared). */
export class FoldVerificationError extends Error {
  constructor(
    message: string,
    /** The server's error code, when the server refused a request. */
    readonly code: string | null = null,
  ) {
    super(message);
    this.name = 'FoldVerificationError';
  }
}

interface Answered<T> {
  data?: T;
  error?: unknown;
  response?: Response;
}

export function served<T>(what: string, result: Answered<T>): T {
  if (result.data !== undefined && result.error === undefined) return result.data;
  const envelope = result.error as { code?: unknown; message?: unknown } | undefined;
  const code = typeof envelope?.code === 'string' ? envelope.code : null;
  const status = result.response?.status ?? 'no response';
  throw new FoldVerificationError(`${what}: the server answered ${status}${code ? ` ${code}` : ''}${typeof envelope?.message === 'string' ? `: ${envelope.message}` : ''}`, code);
}

/** Pairs a page's records (the wire form of LoomRecord) with their sequences. */
function inputsOf(what: string, page: { data: readonly unknown[] }): FoldInput[] {
  const sequences = (page as { sequences?: unknown }).sequences;
  if (!Array.isArray(sequences) || sequences.length !== page.data.length || !sequences.every((s) => Number.isSafeInteger(s))) {
    throw new FoldVerificationError(`${what}: the page does not give each record's sequence (sequences), which folds see; this server cannot be verified against`);
  }
  return page.data.map((record, i) => ({ sequence: sequences[i] as number, record: record as LoomRecord }));
}

export async function threadRecords(client: Pick<FoldVerifierClient, 'listRecords'>, thread: string, watermark: number, pageSize: number): Promise<FoldInput[]> {
  const inputs: FoldInput[] = [];
  let after: string | null = null;
  while (watermark > 0) {
    // A variable, not a literal: `until` may be newer than the generated types.
    const query: { thread: string; until: string; limit: number; after?: string } = { thread, until: String(watermark), limit: pageSize, ...(after !== null ? { after } : {}) };
    const page: { data: readonly unknown[]; has_more: boolean; next_cursor: string | null } = served(`records of ${thread}`, await client.listRecords({ query }));
    for (const input of inputsOf(`records of ${thread}`, page)) if (input.sequence <= watermark) inputs.push(input);
    if (!page.has_more || page.next_cursor === null || Number(page.next_cursor) >= watermark) break;
    after = page.next_cursor;
  }
  return inputs;
}

async function logRecords(client: FoldVerifierClient, watermark: number, excluded: readonly string[], pageSize: number): Promise<FoldInput[]> {
  const inputs: FoldInput[] = [];
  let last = 0;
  while (last < watermark) {
    const filter = { sequence: { $gt: last, $lte: watermark }, ...(excluded.length > 0 ? { thread: { $nin: [...excluded] } } : {}) };
    const page = served('records of the log', await client.queryRecords({ body: { filter, sort: { sequence: 1 }, limit: pageSize } }));
    const batch = inputsOf('records of the log', page);
    inputs.push(...batch);
    if (batch.length === 0 || !page.capped) break;
    last = batch[batch.length - 1]!.sequence;
  }
  return inputs;
}

/** Reserved threads and the plugins' system threads, as the server names them. */
async function systemThreads(client: FoldVerifierClient): Promise<string[]> {
  const list = served('the fold list', await client.listFolds());
  const named = (list as { system_threads?: unknown }).system_threads;
  const extra = Array.isArray(named) ? named.filter((t): t is string => typeof t === 'string') : [];
  return [...new Set([...RESERVED_THREADS, ...extra])];
}

/** The JSON form of a value, as the wire carries it (undefined members dropped). */
export function asJson(value: unknown): unknown {
  return value === undefined ? null : JSON.parse(JSON.stringify(value));
}

function pointer(path: string, key: string | number): string {
  return `${path}/${String(key).replace(/~/g, '~0').replace(/\//g, '~1')}`;
}

export function differences(server: unknown, local: unknown, path: string, found: FoldDifference[], max: number): void {
  if (found.length >= max) return;
  if (Object.is(server, local)) return;
  const bothArrays = Array.isArray(server) && Array.isArray(local);
  const bothObjects = !bothArrays && typeof server === 'object' && typeof local === 'object' && server !== null && local !== null && !Array.isArray(server) && !Array.isArray(local);
  if (bothArrays) {
    const a = server as unknown[];
    const b = local as unknown[];
    for (let i = 0; i < Math.max(a.length, b.length); i++) differences(a[i], b[i], pointer(path, i), found, max);
  } else if (bothObjects) {
    const a = server as Record<string, unknown>;
    const b = local as Record<string, unknown>;
    for (const key of new Set([...Object.keys(a), ...Object.keys(b)])) differences(a[key], b[key], pointer(path, key), found, max);
  } else {
    found.push({ path: path === '' ? '/' : path, server, local });
  }
}

/**
 * Recomputes fold `name` (for thread `key` when it is a thread fold) from the
 * records its answer covers and compares the two values. Throws
 * FoldVerificationError when it cannot compare (unknown or time-dependent
 * fold, a refusal, a server that does not give sequences).
 */
export async function verifyFold(client: FoldVerifierClient, name: string, key?: string, options: VerifyFoldOptions = {}): Promise<FoldVerification> {
  const folds = new Map([...VERIFIABLE_FOLDS, ...(options.folds ?? [])].map((fold) => [fold.name, fold]));
  const fold = folds.get(name);
  if (!fold) throw new FoldVerificationError(`fold ${name} cannot be recomputed here (verifiable: ${[...folds.keys()].join(', ')}); pass its code in options.folds`);
  if (fold.readsRealTime) throw new FoldVerificationError(`fold ${name} depends on the time it is read and cannot be verified from records`);
  if (fold.view) throw new FoldVerificationError(`fold ${name} is served through a per-caller view and cannot be verified from records alone`);
  if (fold.scope === 'thread' && key === undefined) throw new FoldVerificationError(`fold ${name} is per thread: give the thread as key`);
  if (fold.scope === 'global' && key !== undefined) throw new FoldVerificationError(`fold ${name} is global: give no key`);
  const pageSize = Math.min(Math.max(options.pageSize ?? 1000, 1), 1000);

  const answer =
    fold.scope === 'thread'
      ? served(`fold ${name}/${key}`, await client.getThreadFold({ path: { name, key: key! } }))
      : served(`fold ${name}`, await client.getGlobalFold({ path: { name } }));
  const watermark = answer.watermark;

  let inputs: FoldInput[];
  if (fold.scope === 'thread') {
    inputs = await threadRecords(client, key!, watermark, pageSize);
  } else if (fold.threads) {
    inputs = (await Promise.all(fold.threads.map((thread) => threadRecords(client, thread, watermark, pageSize)))).flat().sort((a, b) => a.sequence - b.sequence);
  } else {
    inputs = await logRecords(client, watermark, fold.ignoresSystemThreads ? await systemThreads(client) : [], pageSize);
  }

  let state = fold.initial(key ?? name);
  for (const input of inputs) {
    // The server's global folds skip a record their code throws on; do the same.
    if (fold.scope === 'global') {
      try {
        state = fold.apply(state, input);
      } catch {
        continue;
      }
    } else {
      state = fold.apply(state, input);
    }
  }
  const local = asJson(fold.value(state));
  const server = asJson(answer.value);
  const found: FoldDifference[] = [];
  differences(server, local, '', found, options.maxDifferences ?? 50);
  return { ok: found.length === 0, fold_name: name, key: key ?? null, watermark, records: inputs.length, server_value: server, local_value: local, differences: found };
}
