/**
 * Vectors derived from records, kept by a store whose log several servers
 * share (the search plugin's embeddings: plugins/search/semantic-search.ts).
 * One server (the leader) computes them and writes them here with how far it
 * has examined the log; every server reads them back in pages into its own
 * index. Derived state, not records: never listed, exported, federated or
 * folded, and rebuildable from the log.
 *
 * Keyed by a model name and a record's sequence. A vector is float32
 * little-endian; `meta` is opaque to the store (the caller's JSON).
 */
export interface SharedVectorProgress {
  /** Every record at or below it has been examined for this model (embedded, without text, or refused). */
  readonly frontier: number;
  /** Dimensions of the model's vectors (0: none yet). */
  readonly dims: number;
  /** Sequences the provider refused (the latest 1000). */
  readonly failed: readonly number[];
}

export interface SharedVectorRow {
  readonly sequence: number;
  readonly meta: string;
  readonly vector: Float32Array;
}

export interface SharedVectors {
  /** The model's progress, or null when nothing was written for it. */
  progress(model: string): Promise<SharedVectorProgress | null>;
  /** Up to `limit` vectors of `model` after sequence `after`, in sequence order (a page: never the whole set). */
  page(model: string, after: number, limit: number): Promise<SharedVectorRow[]>;
  /**
   * Adds `rows` (a sequence already held keeps its vector) and moves the
   * model's frontier to at least `progress.frontier`, in one transaction, so
   * a reader that sees the frontier sees every vector below it. `failed`
   * names the sequences refused in this batch only; the store keeps the
   * latest 1000. Dimensions are fixed by the first write.
   */
  append(model: string, rows: readonly SharedVectorRow[], progress: SharedVectorProgress): Promise<void>;
}
