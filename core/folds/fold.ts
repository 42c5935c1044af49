/**
 * A fold is a pure reduction over records: per thread (`scope: 'thread'`,
 * keyed by thread id) or over the whole log (`scope: 'global'`). The engine
 * owns each state exclusively, so `apply` may update the state it is given
 * and return it; replaying the same records from `initial` must always give
 * the same value, whether applied all at once or one batch at a time.
 */
import type { LoomRecord } from '../records/record.js';

/** A record as folds see it: the record and its global sequence. */
export interface FoldInput {
  readonly sequence: number;
  readonly record: LoomRecord;
  /** Receipt time in Unix ms, as the store recorded it (absent in inputs built by hand). */
  readonly createdAt?: number;
}

export interface Fold<State, Value> {
  /** Unique, snake_case: the `:name` of GET /v1/folds/:name. */
  readonly name: string;
  readonly scope: 'thread' | 'global';
  readonly description: string;
  /**
   * Global folds only: the threads whose records matter. The engine replays
   * just those threads and skips every other record. Omit to see everything.
   */
  readonly threads?: readonly string[];
  /**
   * Global folds only: the body kinds (`body.kind`) whose records matter;
   * records of any other kind, or of none, never reach `apply`. The engine
   * finds a record's folds by thread and kind in constant time
   * (core/engine/fold-router.ts), so a fold that declares what it applies to
   * costs nothing for the records it does not. Declare it only when `apply`
   * ignores every other record. Omit to see every kind.
   */
  readonly kinds?: readonly string[];
  /**
   * Skip records on reserved threads (§2.3) and on plugins' system threads
   * (PluginScope.systemThread): folds over coordination work (trust, tasks,
   * the graph) set it, so configuration and credentials never reach them.
   * It also lets a caller who is hidden only system threads be served the
   * shared value instead of a private recomputation.
   */
  readonly ignoresSystemThreads?: boolean;
  /**
   * Global folds only: how the state is saved with the sequence it covers,
   * so a start resumes from the checkpoint instead of replaying the log.
   * Bump `version` whenever `apply` or the state's shape changes: a
   * checkpoint of another version is discarded and the fold rebuilt.
   */
  readonly checkpoint?: FoldCheckpoint<State>;
  /**
   * The value depends on the time it is read (trust decays): it cannot be
   * recomputed offline from records alone and is not offered for verification.
   */
  readonly readsRealTime?: boolean;
  /**
   * For folds that read real time: the part of the time the value depends on
   * (trust: the minute it is read at), appended to cache keys so one ETag
   * never names two different values.
   */
  cacheSuffix?(): string;
  initial(key: string): State;
  apply(state: State, input: FoldInput): State;
  value(state: State): Value;
  /**
   * Global folds only: the part of the value a read-restricted caller may
   * see (spec §5.5: e.g. only the grants it issued or receives). Without it,
   * a restricted caller is served the fold only when every thread the fold
   * reads is wholly visible to it, and is refused otherwise (fail closed).
   */
  view?(value: Value, viewer: FoldViewer): Value;
}

/** Saving and restoring a global fold's state (plain JSON both ways). */
export interface FoldCheckpoint<State> {
  readonly version: number;
  save(state: State): unknown;
  load(saved: unknown): State;
  /**
   * For states that grow with the log (trust: an entry per verdict): the
   * saved object piece by piece, produced while the checkpoint is written,
   * so the whole saved form never exists at once. The pieces make up the
   * object `save` would answer, and `load` receives that object. The engine
   * uses it instead of `save` when present.
   */
  saveChunks?(state: State): Iterable<CheckpointChunk>;
}

/** One piece of a saved object: a member whole, or items appended to an array member (created by its first piece). */
export type CheckpointChunk = { readonly key: string; readonly value: unknown } | { readonly key: string; readonly items: readonly unknown[] };

/** What a fold's `view` may know of the caller (structurally the core Caller). */
export interface FoldViewer {
  readonly principal: string | null;
  readonly scopes: readonly string[];
}

/** The answer shape of every fold route (spec §4.6). */
export interface FoldAnswer<Value> {
  fold_name: string;
  /** Opaque cache key: changes whenever the value may have changed. */
  cache_key: string;
  /** The highest sequence the value covers. */
  watermark: number;
  value: Value;
}

// `any` here lets folds of different state types share one registry.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyFold = Fold<any, any>;

/** Folds a whole list from the initial state: the reference for incremental application. */
export function replayFold<S, V>(fold: Fold<S, V>, key: string, inputs: Iterable<FoldInput>): V {
  let state = fold.initial(key);
  for (const input of inputs) state = fold.apply(state, input);
  return fold.value(state);
}
