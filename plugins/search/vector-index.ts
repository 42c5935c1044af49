/**
 * Nearest neighbours over one model's vectors. Below `minVectors` every
 * search is exact (a scan of unit vectors, four lanes at a time). Above it,
 * an HNSW graph (hnswlib, inner product over unit vectors = cosine) covers
 * the slots added so far and the tail not yet in the graph is scanned
 * exactly, so a vector is searchable the moment it is stored; the graph
 * catches up in short slices (`indexSome`) that never hold the event loop
 * long. Candidates are re-scored exactly from the stored vectors, so scores
 * are true cosines whatever the graph's error. The graph is saved beside
 * the vectors (`hnsw.bin`) and reloaded at start. Without hnswlib-node (an
 * optional dependency, `lib` null; see hnsw-loader.ts) every search is
 * exact, whatever the number of vectors.
 */
import { join } from 'node:path';
import { rm } from 'node:fs/promises';
import { TopK, type Scored } from './top-k.js';
import { dot, type VectorStore } from './vector-store.js';
import type { HnswGraph, HnswLib } from './hnsw-loader.js';

export interface VectorIndexOptions {
  /** Vectors before the graph is built (exact search below). */
  readonly minVectors: number;
  readonly m: number;
  readonly efConstruction: number;
  /** Candidate list size of a graph search (raised to n when n is larger). */
  readonly efSearch: number;
}

export class VectorIndex {
  private graph: HnswGraph | null = null;
  private capacity = 0;
  private added = 0;
  private savedAt = 0;

  constructor(
    private readonly store: VectorStore,
    private readonly options: VectorIndexOptions,
    /** hnswlib-node, or null when it is not installed (exact search only). */
    private readonly lib: HnswLib | null,
  ) {}

  private get file(): string | null {
    return this.store.directory === null ? null : join(this.store.directory, 'hnsw.bin');
  }

  /** Loads the saved graph when it matches the vectors (else it is rebuilt in slices). */
  async open(): Promise<void> {
    const file = this.file;
    const saved = this.store.savedIndexCount;
    if (this.lib === null || file === null || saved === 0 || saved > this.store.size) return;
    try {
      const graph = new this.lib.HierarchicalNSW('ip', this.store.dimensions);
      await graph.readIndex(file);
      if (graph.getCurrentCount() !== saved) return;
      this.graph = graph;
      this.capacity = graph.getMaxElements();
      this.added = saved;
      this.savedAt = saved;
    } catch {
      await rm(file, { force: true });
    }
  }

  get kind(): 'hnsw' | 'exact' {
    return this.graph ? 'hnsw' : 'exact';
  }

  /** Slots in the graph. */
  get indexed(): number {
    return this.added;
  }

  /** Slots stored but not yet in the graph (0 while search is exact by design). */
  get pending(): number {
    return this.graph || (this.lib !== null && this.store.size >= this.options.minVectors) ? this.store.size - this.added : 0;
  }

  /** Adds stored slots to the graph for at most `budgetMs`; answers how many it added. */
  indexSome(budgetMs: number): number {
    const store = this.store;
    if (!this.graph) {
      if (this.lib === null || store.size < this.options.minVectors || store.dimensions === 0) return 0;
      this.graph = new this.lib.HierarchicalNSW('ip', store.dimensions);
      this.capacity = Math.max(2 * store.size, 16_384);
      this.graph.initIndex(this.capacity, this.options.m, this.options.efConstruction, 42);
      this.added = 0;
    }
    const deadline = performance.now() + budgetMs;
    const dims = store.dimensions;
    let count = 0;
    while (this.added < store.size && (count & 15 || performance.now() < deadline)) {
      if (this.added >= this.capacity) {
        this.capacity *= 2;
        this.graph.resizeIndex(this.capacity);
      }
      const start = this.added * dims;
      this.graph.addPoint(Array.from(store.vectors.subarray(start, start + dims)), this.added);
      this.added += 1;
      count += 1;
    }
    return count;
  }

  /** Saves the graph when it grew since the last save. */
  async save(): Promise<void> {
    const file = this.file;
    if (!this.graph || file === null || this.added === this.savedAt) return;
    const count = this.added;
    await this.graph.writeIndex(file);
    await this.store.setSavedIndexCount(count);
    this.savedAt = count;
  }

  /** The `n` best slots among those `accept` admits: the graph's candidates plus an exact scan of the tail, re-scored exactly. */
  nearest(query: Float32Array, n: number, accept: (slot: number) => boolean): { hits: Scored[]; exhaustive: boolean } {
    const store = this.store;
    if (!this.graph) return { hits: this.exact(query, n, accept, null), exhaustive: true };
    const top = new TopK(n);
    const graph = this.graph;
    graph.setEf(Math.max(this.options.efSearch, n));
    const fromGraph = this.added > 0 ? graph.searchKnn(Array.from(query), Math.min(n, this.added), (label) => accept(label)) : { neighbors: [] as number[] };
    const dims = store.dimensions;
    for (const slot of fromGraph.neighbors) top.offer(slot, dot(store.vectors, slot * dims, query, 0, dims));
    for (let slot = this.added; slot < store.size; slot++) {
      if (accept(slot)) top.offer(slot, dot(store.vectors, slot * dims, query, 0, dims));
    }
    const hits = top.sorted();
    // The graph answered fewer than it was asked for: it found every slot the filter admits.
    return { hits, exhaustive: fromGraph.neighbors.length < Math.min(n, this.added) };
  }

  /** Exact: the `n` best of `slots` (null: every slot) that `accept` admits. */
  exact(query: Float32Array, n: number, accept: (slot: number) => boolean, slots: Iterable<number> | null): Scored[] {
    const store = this.store;
    const dims = store.dimensions;
    const vectors = store.vectors;
    const top = new TopK(n);
    if (slots === null) {
      for (let slot = 0; slot < store.size; slot++) if (accept(slot)) top.offer(slot, dot(vectors, slot * dims, query, 0, dims));
    } else {
      for (const slot of slots) if (accept(slot)) top.offer(slot, dot(vectors, slot * dims, query, 0, dims));
    }
    return top.sorted();
  }
}
