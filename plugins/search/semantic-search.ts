/**
 * Semantic search (spec §4.2): records are embedded by a local embedding
 * server after they are stored, and searched by cosine similarity.
 *
 * - A log consumer per server (core/engine/log-consumer.ts, `search.embed`)
 *   hands it the log in batches from the active model's frontier and it
 *   embeds what it finds. The log is the queue, so nothing waits in memory
 *   and an embedding server that is down or slow never slows or fails
 *   ingest: the kernel backs off (doubling, to `maxBackoffMs`) and hands the
 *   same batch again.
 * - The position is per model: each model's vector store keeps its frontier,
 *   saved with its vectors in one write, so the consumer keeps no checkpoint
 *   of its own; it starts at the active model's frontier and a switch of
 *   model rewinds it to that model's frontier.
 * - `backfill(limit)` does the same work synchronously, under the same lock,
 *   for POST /v1/records/embed.
 * - A batch the server refuses (a 4xx) is retried record by record; a
 *   record refused alone is counted `failed` and passed over for this model.
 * - Vectors are kept per model (vector-store.ts); changing the model opens
 *   that model's store, leaving the others on disk, unused.
 * - Records on system threads (configuration, credentials, consent, ...) are
 *   never embedded (the kernel's one rule, core/engine/system-threads.ts).
 * - On a shared log (several servers on one PostgreSQL store, which offers
 *   `sharedVectors`), the consumer is leader-only: the leader alone calls the
 *   provider, writes the vectors and the model's frontier to the shared
 *   store in one transaction, and every server (the leader too) loads them
 *   into its own in-memory vectors and graph in pages (`pull`, driven by
 *   vector-follower.ts). A new leader resumes at the shared frontier. The
 *   query of a search is still embedded by the server that answers it.
 */
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { SYSTEM, type Caller } from '../../core/access/caller.js';
import type { ConsumerHandle, LogConsumer } from '../../core/engine/log-consumer.js';
import type { RecordReader } from '../../core/engine/record-reader.js';
import { LoomError } from '../../core/errors/loom-error.js';
import type { Config } from '../../core/folds/config/config-topic.js';
import type { Logger } from '../../core/plugin/logger.js';
import type { LoomRecord } from '../../core/records/record.js';
import type { StoredRecord } from '../../storage/contract/stored-record.js';
import type { SharedVectors } from '../../storage/contract/shared-vectors.js';
import { threadsOf } from '../../core/access/restriction.js';
import type { SearchOptions } from './config.js';
import { embeddingProviderTopic, type EmbeddingProvider } from './embedding-provider-topic.js';
import { EmbedderError, OllamaEmbedClient } from './ollama-client.js';
import { bodyKind, embeddingText } from './record-text.js';
import { VectorIndex } from './vector-index.js';
import { VECTOR_INDEX_HINT, vectorIndexLibrary, type VectorIndexLibrary } from './hnsw-loader.js';
import { unit, VectorStore, type SlotMeta } from './vector-store.js';

export const K_DEFAULT = 10;
export const K_MAX = 100;
export const EMBED_LIMIT_DEFAULT = 100;
export const EMBED_LIMIT_MAX = 500;
/** Candidate lists above this are searched through the graph; below, exactly. */
const EXACT_SUBSET_MAX = 20_000;
/** Graph candidates asked for before a search falls back to an exact scan. */
const GRAPH_CANDIDATES_MAX = 4_096;
/** Shared vectors read per page while loading or following (a page at a time in memory besides the index). */
const PULL_PAGE = 1_000;

/** Who computes this server's vectors: itself (`local`), or on a shared log the leader (this server: `leader`; another: `follower`). */
export type EmbedderRole = 'local' | 'leader' | 'follower';

export interface SearchRequest {
  readonly query: string;
  readonly k: number;
  readonly thread?: string;
  readonly actor?: string;
  readonly kind?: string;
  readonly afterClock?: number;
}

export interface EmbedReport {
  embedder: string;
  embedded: number;
  skipped_empty: number;
  failed: number;
  remaining: number;
  has_more: boolean;
}

interface Active {
  readonly provider: EmbeddingProvider;
  readonly client: OllamaEmbedClient;
  readonly store: VectorStore;
  readonly index: VectorIndex;
}

export interface Failure {
  readonly at: string;
  readonly message: string;
  readonly status: number | null;
}

export interface SemanticSearchDeps {
  readonly reader: RecordReader;
  readonly config: Config;
  /** `<dataDir>/plugins/search/vectors`, or null for in-memory vectors. */
  readonly dir: string | null;
  readonly options: SearchOptions;
  readonly log: Logger;
  readonly now: () => number;
  /** hnswlib-node or why it is missing (default: the process's one dynamic import; tests pass their own). */
  readonly vectorIndex?: Promise<VectorIndexLibrary>;
  /** A shared log's vector table: only the leader embeds; null or absent: this server embeds for itself. */
  readonly shared?: SharedVectors | null;
}

/** `ollama:<model>`, the `embedder` field of answers. */
export const embedderName = (provider: EmbeddingProvider) => `${provider.kind}:${provider.model}`;

const modelKey = (provider: EmbeddingProvider) => createHash('sha256').update(`${provider.kind}\u0000${provider.model}`).digest('hex').slice(0, 16);

export class SemanticSearch implements LogConsumer {
  readonly name = 'embed';
  readonly keepCheckpoint = false;
  readonly startAt = { after: () => this.frontier() };
  readonly batchSize: number;
  readonly busyShare: number;
  readonly backoff: { initialMs: number; maxMs: number };
  /** On a shared log only the leader calls the embedding provider. */
  readonly leaderOnly: boolean;
  private readonly shared: SharedVectors | null;
  /** Whether this server runs the leader-only embedder now (shared log). */
  private leading = false;
  /** Pulls of shared vectors, one at a time per model's store. */
  private readonly pulling = new Map<VectorStore, Promise<number>>();
  private consumer: ConsumerHandle | null = null;
  private active: Active | null = null;
  private switching: Promise<void> = Promise.resolve();
  private readonly stores = new Map<string, { store: VectorStore; index: VectorIndex }>();
  /** Serialises embedding work (the loop and backfills) so the frontier moves one way. */
  private work: Promise<unknown> = Promise.resolve();
  private unwatch: (() => void) | null = null;
  private failures = 0;
  private lastFailureValue: Failure | null = null;
  private lastSuccessAt: string | null = null;
  private lastSaveAt = 0;
  private lastGraphSliceAt = 0;
  private library: VectorIndexLibrary | null = null;
  private toldMissingIndex = false;

  constructor(private readonly deps: SemanticSearchDeps) {
    this.batchSize = deps.options.embedBatchSize * 8;
    this.busyShare = deps.options.embedBusyShare;
    this.backoff = { initialMs: deps.options.embedBackoffMs, maxMs: deps.options.maxBackoffMs };
    this.shared = deps.shared ?? null;
    this.leaderOnly = this.shared !== null;
  }

  /** Who computes this server's vectors (health, stats). */
  get role(): EmbedderRole {
    return this.shared === null ? 'local' : this.leading ? 'leader' : 'follower';
  }

  /** The kernel's handle, once contributed (scope.consume). */
  attach(handle: ConsumerHandle): void {
    this.consumer = handle;
  }

  /** Where the consumer starts: the active model's frontier (no model: the head; a model configured later rewinds it). */
  private async frontier(): Promise<number> {
    const active = await this.current();
    if (!active) return this.deps.reader.position;
    if (this.shared) return (await this.shared.progress(embedderName(active.provider)))?.frontier ?? 0;
    return active.store.frontier;
  }

  /** Consumer start: follows the configured provider (a change cuts a backoff short). */
  start(): void {
    this.leading = this.shared !== null;
    this.unwatch = this.deps.config.watch(embeddingProviderTopic, () => {
      this.failures = 0;
      this.consumer?.wake();
      // A model switched on rewinds the consumer to that model's frontier.
      this.applyConfig().catch((error: unknown) => this.noteFailure(error));
    });
  }

  async stop(): Promise<void> {
    this.unwatch?.();
    this.unwatch = null;
    await this.work.catch(() => undefined);
    this.leading = false;
    for (const { index } of this.stores.values()) await index.save().catch(() => undefined);
  }

  /** Loads the optional vector index library (once); says how to enable it when it is missing. */
  async loadVectorIndex(): Promise<VectorIndexLibrary> {
    this.library ??= await (this.deps.vectorIndex ?? vectorIndexLibrary());
    if (!this.library.available && !this.toldMissingIndex && this.enabled) {
      this.toldMissingIndex = true;
      this.deps.log.log('warn', VECTOR_INDEX_HINT, { reason: this.library.reason });
    }
    return this.library;
  }

  /** The vector index in force: `hnsw` (graph above the threshold), `unavailable` (hnswlib-node missing: exact scans), or null before the first load. */
  get vectorIndex(): { available: boolean; hint?: string } | null {
    if (this.library === null) return null;
    return this.library.available ? { available: true } : { available: false, hint: VECTOR_INDEX_HINT };
  }

  /** Switches to the configured provider's model (opening its vectors), or turns search off. */
  private applyConfig(): Promise<void> {
    this.switching = this.switching.then(async () => {
      const entry = this.deps.config.single(embeddingProviderTopic);
      const provider = entry?.provider ?? null;
      if (!provider) {
        this.active = null;
        return;
      }
      const current = this.active?.provider;
      if (current && current.model === provider.model && current.endpoint === provider.endpoint) return;
      const key = modelKey(provider);
      let opened = this.stores.get(key);
      if (!opened) {
        // Shared vectors live in the shared store; this server's copy is in memory, loaded from it below.
        const store = await VectorStore.open(this.deps.dir === null || this.shared ? null : join(this.deps.dir, key), provider.kind, provider.model);
        const library = await this.loadVectorIndex();
        const index = new VectorIndex(
          store,
          { minVectors: this.deps.options.hnswMinVectors, m: this.deps.options.hnswM, efConstruction: this.deps.options.hnswEfConstruction, efSearch: this.deps.options.hnswEfSearch },
          library.available ? library.lib : null,
        );
        await index.open();
        opened = { store, index };
        if (this.shared) await this.pullStore(embedderName(provider), store);
        this.stores.set(key, opened);
      }
      const options = this.deps.options;
      this.active = { provider, client: new OllamaEmbedClient(provider.endpoint, provider.model, { timeoutMs: options.embedTimeoutMs, retries: options.embedRetries, backoffMs: options.embedBackoffMs }), ...opened };
      this.failures = 0;
      this.deps.log.log('info', 'semantic search provider', { embedder: embedderName(provider), endpoint: provider.endpoint, vectors: opened.store.size, frontier: opened.store.frontier });
      // The position is the model's: resume where this model's vectors stop.
      this.consumer?.rewind(opened.store.frontier);
    });
    return this.switching;
  }

  /** Waits until a configuration change seen so far has been applied (tests, routes right after a write). */
  settled(): Promise<void> {
    return this.switching;
  }

  /** Whether a provider is configured (read live from the configuration). */
  get enabled(): boolean {
    return (this.deps.config.single(embeddingProviderTopic)?.provider ?? null) !== null;
  }

  get embedder(): string | null {
    const provider = this.deps.config.single(embeddingProviderTopic)?.provider ?? null;
    return provider ? embedderName(provider) : null;
  }

  /** The provider in force: the configuration fold is read live, so a request right after a configuration write sees it. */
  private async current(): Promise<Active | null> {
    const provider = this.deps.config.single(embeddingProviderTopic)?.provider ?? null;
    const active = this.active?.provider ?? null;
    if (provider?.model !== active?.model || provider?.endpoint !== active?.endpoint) await this.applyConfig();
    return this.active;
  }

  private async requireActive(): Promise<Active> {
    await this.current();
    if (!this.active) throw new LoomError('SEMANTIC_SEARCH_DISABLED', 'semantic search is off: no embedding provider is configured (write the embedding_provider configuration topic)');
    return this.active;
  }

  private serialised<T>(work: () => Promise<T>): Promise<T> {
    const result = this.work.catch(() => undefined).then(work);
    this.work = result.catch(() => undefined);
    return result;
  }

  // ---- embedding ----

  /** A batch from the consumer: embeds what the active model lacks and moves its frontier through the batch. */
  async handle(records: readonly StoredRecord[], { after, through }: { after: number; through: number }): Promise<void> {
    const active = await this.current();
    if (!active) return;
    // Read for another model (a switch while it was in flight): this model resumes at its own frontier.
    const { frontier } = await this.progressOf(active);
    if (after > frontier) return this.consumer?.rewind(frontier);
    try {
      const report = await this.serialised(() => this.embedBatch(active, records, through));
      if (report.examined > 0) this.noteSuccess();
    } catch (error) {
      this.noteFailure(error);
      throw error;
    }
  }

  /**
   * Between batches and once caught up: the graph catches up in slices. While records arrive, 5 ms every 250 ms (ingest
   * keeps the CPU; searches scan the tail exactly meanwhile); when the log is quiet, 50 ms slices back to back. It is
   * saved when everything is indexed.
   */
  async idle(context: { caughtUp: boolean; busy: boolean }): Promise<number | null> {
    // On a shared log every server's graph is built by its own follower (vector-follower.ts), the leader's too.
    return this.shared ? null : this.indexIdle(context);
  }

  /** The graph's share of idle time (see `idle`). */
  async indexIdle({ caughtUp, busy }: { caughtUp: boolean; busy: boolean }): Promise<number | null> {
    const active = this.active;
    if (!active) return null;
    let progressed = false;
    const now = performance.now();
    if (!busy || now - this.lastGraphSliceAt > 250) {
      this.lastGraphSliceAt = now;
      if (active.index.indexSome(busy ? 5 : 50) > 0) progressed = true;
    }
    if (!caughtUp) return null;
    if (!progressed && active.index.pending === 0 && this.deps.now() - this.lastSaveAt > 30_000) {
      this.lastSaveAt = this.deps.now();
      await active.index.save().catch((error: unknown) => this.deps.log.log('warn', 'saving the vector graph failed', { error: (error as Error).message }));
    }
    return progressed ? 0 : active.index.pending > 0 ? 250 : null;
  }

  private noteSuccess(): void {
    this.failures = 0;
    this.lastSuccessAt = new Date(this.deps.now()).toISOString();
  }

  private noteFailure(error: unknown): void {
    this.failures += 1;
    const status = error instanceof EmbedderError ? error.status : null;
    this.lastFailureValue = { at: new Date(this.deps.now()).toISOString(), message: (error as Error).message, status };
    if (this.failures === 1 || this.failures % 20 === 0) this.deps.log.log('warn', 'embedding failed; retrying with backoff', { error: (error as Error).message, consecutive_failures: this.failures });
  }

  /**
   * Examines up to `limit` eligible records after the frontier (POST
   * /v1/records/embed: the same work as the consumer's, at once).
   */
  private async embedNext(active: Active, limit: number): Promise<{ examined: number; embedded: number; skipped: number; failed: number }> {
    const batch: StoredRecord[] = [];
    let through = (await this.progressOf(active)).frontier;
    while (batch.length < limit) {
      const page = await this.deps.reader.changesSince(SYSTEM, through, Math.max(limit, 100));
      if (page.length === 0) break;
      for (const stored of page) {
        through = stored.sequence;
        if (!this.deps.reader.isSystemThread(stored.record.thread)) batch.push(stored);
        if (batch.length >= limit) break;
      }
      if (page.length < Math.max(limit, 100)) break;
    }
    return this.embedBatch(active, batch, through);
  }

  /**
   * Embeds the records of `records` the model lacks (those with text; those
   * without are passed over) and moves the frontier to `through`. Throws
   * EmbedderError when the server cannot be used (nothing moves).
   */
  private async embedBatch(active: Active, records: readonly StoredRecord[], through: number): Promise<{ examined: number; embedded: number; skipped: number; failed: number }> {
    const { store } = active;
    const progress = await this.progressOf(active);
    if (through <= progress.frontier) return { examined: 0, embedded: 0, skipped: 0, failed: 0 };
    const batch = records.filter((stored) => stored.sequence > progress.frontier && !store.has(stored.sequence));
    const withText: Array<{ stored: StoredRecord; text: string }> = [];
    let skipped = 0;
    for (const stored of batch) {
      const text = embeddingText(stored.record);
      if (text.trim() === '') skipped += 1;
      else withText.push({ stored, text });
    }
    const entries: Array<{ meta: SlotMeta; vector: number[] }> = [];
    const failed: number[] = [];
    const size = this.deps.options.embedBatchSize;
    for (let i = 0; i < withText.length; i += size) {
      const chunk = withText.slice(i, i + size);
      const vectors = await this.embedChunk(active, chunk.map((item) => item.text));
      chunk.forEach((item, j) => {
        const vector = vectors[j];
        if (vector === null || vector === undefined || (progress.dims > 0 && vector.length !== progress.dims)) failed.push(item.stored.sequence);
        else entries.push({ meta: slotMeta(item.stored), vector });
      });
    }
    if (this.shared) {
      const rows = entries.map((entry) => ({ sequence: entry.meta.sequence, meta: JSON.stringify(entry.meta), vector: unit(entry.vector) }));
      await this.shared.append(embedderName(active.provider), rows, { frontier: through, dims: progress.dims || (rows[0]?.vector.length ?? 0), failed });
      await this.pullStore(embedderName(active.provider), store);
    } else await store.append(entries, through, failed);
    return { examined: batch.length, embedded: entries.length, skipped, failed: failed.length };
  }

  /** Vectors for `texts`; null for a text the server refuses on its own (the others still embed). */
  private async embedChunk(active: Active, texts: string[]): Promise<Array<number[] | null>> {
    try {
      return await active.client.embed(texts);
    } catch (error) {
      if (!(error instanceof EmbedderError) || error.transient) throw error;
      if (texts.length === 1) return [null];
      const out: Array<number[] | null> = [];
      for (const text of texts) out.push(...(await this.embedChunk(active, [text])));
      return out;
    }
  }

  /** POST /v1/records/embed: embeds up to `limit` records lacking a vector under the active model. */
  async backfill(limit: number): Promise<EmbedReport> {
    const active = await this.requireActive();
    if (this.role === 'follower') {
      // Only the leader calls the provider: a follower answers with what the shared store holds now.
      await this.pull();
      const remaining = Math.max(0, this.deps.reader.position - active.store.frontier);
      return { embedder: embedderName(active.provider), embedded: 0, skipped_empty: 0, failed: 0, remaining, has_more: remaining > 0 };
    }
    const result = await this.serialised(() => this.embedNext(active, limit)).catch((error: unknown) => {
      if (error instanceof EmbedderError) {
        this.noteFailure(error);
        throw new LoomError('EMBEDDER_FAILED', error.message, { provider_status: error.status });
      }
      throw error;
    });
    if (result.examined > 0) this.noteSuccess();
    this.consumer?.wake();
    const remaining = Math.max(0, this.deps.reader.position - active.store.frontier);
    return { embedder: embedderName(active.provider), embedded: result.embedded, skipped_empty: result.skipped, failed: result.failed, remaining, has_more: remaining > 0 };
  }

  // ---- shared vectors ----

  /** Where the active model's examination of the log stands: the shared store's on a shared log, else this server's. */
  private async progressOf(active: Active): Promise<{ frontier: number; dims: number }> {
    if (!this.shared) return { frontier: active.store.frontier, dims: active.store.dimensions };
    const progress = await this.shared.progress(embedderName(active.provider));
    return { frontier: progress?.frontier ?? 0, dims: progress?.dims ?? 0 };
  }

  /**
   * Shared log: loads the vectors the leader wrote since the last pull into
   * the active model's in-memory store. Returns how many were loaded (0: none
   * new, or not a shared log, or search is off).
   */
  async pull(): Promise<number> {
    if (!this.shared) return 0;
    const active = await this.current();
    if (!active) return 0;
    return this.pullStore(embedderName(active.provider), active.store);
  }

  /** Whether the shared frontier is behind this server's log head (the leader has work left; followers poll meanwhile). */
  get behind(): boolean {
    const active = this.active;
    return active !== null && active.store.frontier < this.deps.reader.position;
  }

  /** Pulls after any pull in flight (which may have read before the caller's own write). */
  private pullStore(model: string, store: VectorStore): Promise<number> {
    const previous = this.pulling.get(store) ?? Promise.resolve(0);
    const next = previous.catch(() => 0).then(() => this.pullPages(model, store));
    this.pulling.set(store, next);
    void next.catch(() => undefined).then(() => {
      if (this.pulling.get(store) === next) this.pulling.delete(store);
    });
    return next;
  }

  /**
   * The frontier is read first and the pages after it: vectors and frontier
   * are committed together, so every vector at or below the frontier read is
   * in the pages. Pages come in sequence order, so the store's last slot is
   * where the next pull starts.
   */
  private async pullPages(model: string, store: VectorStore): Promise<number> {
    const shared = this.shared!;
    const progress = await shared.progress(model);
    if (progress === null) return 0;
    let loaded = 0;
    for (;;) {
      const after = store.size === 0 ? 0 : store.meta(store.size - 1).sequence;
      const rows = await shared.page(model, after, PULL_PAGE);
      if (rows.length > 0) await store.append(rows.map((row) => ({ meta: JSON.parse(row.meta) as SlotMeta, vector: row.vector })), store.frontier);
      loaded += rows.length;
      if (rows.length < PULL_PAGE) break;
    }
    const known = new Set(store.failed);
    await store.append([], progress.frontier, progress.failed.filter((sequence) => !known.has(sequence)));
    return loaded;
  }

  // ---- searching ----

  /** The query's unit vector. */
  private async embedQuery(active: Active, query: string): Promise<Float32Array> {
    try {
      const [vector] = await active.client.embed([query]);
      return unit(vector!);
    } catch (error) {
      if (error instanceof EmbedderError) throw new LoomError('EMBEDDER_FAILED', error.message, { provider_status: error.status });
      throw error;
    }
  }

  /**
   * The k records most similar to the query that match the filters and that
   * `caller` may read, best first. Filters and visibility narrow the
   * candidates before the k are taken, so a page is short only when fewer
   * than k records qualify.
   */
  async search(caller: Caller, request: SearchRequest): Promise<{ embedder: string; k: number; hits: Array<{ stored: StoredRecord; score: number }> }> {
    if (request.query.trim() === '') throw new LoomError('EMPTY_QUERY', 'query is empty: give the text to search for');
    const active = await this.requireActive();
    const query = await this.embedQuery(active, request.query);
    const { store, index } = active;
    const k = request.k;
    const hits: Array<{ stored: StoredRecord; score: number }> = [];
    if (store.size === 0) return { embedder: embedderName(active.provider), k, hits };
    if (query.length !== store.dimensions) throw new LoomError('EMBEDDER_FAILED', `the embedding server answered ${query.length} dimensions for the query where ${active.provider.model}'s stored vectors have ${store.dimensions}`, { provider_status: null });

    const restriction = this.deps.reader.restriction(caller);
    const confined = restriction ? threadsOf(restriction) : null;
    const accept = (slot: number): boolean => {
      const meta = store.meta(slot);
      if (request.thread !== undefined && meta.thread !== request.thread) return false;
      if (request.actor !== undefined && meta.actor !== request.actor) return false;
      if (request.kind !== undefined && meta.kind !== request.kind) return false;
      if (request.afterClock !== undefined && !(meta.clock > request.afterClock)) return false;
      if (confined && !confined.has(meta.thread)) return false;
      return true;
    };
    // A small candidate list (one thread, a thread-grained caller, one actor) is searched exactly.
    let subset: number[] | null = null;
    if (request.thread !== undefined) subset = [...store.slotsOfThread(request.thread)];
    else if (confined) subset = [...confined].flatMap((thread) => store.slotsOfThread(thread));
    else if (request.actor !== undefined) subset = [...store.slotsOfActor(request.actor)];

    const seen = new Set<number>();
    /** Reads candidates best first, keeping those the caller may read; true when k were found. */
    const take = async (ranked: ReadonlyArray<{ slot: number; score: number }>): Promise<boolean> => {
      for (const { slot, score } of ranked) {
        if (seen.has(slot)) continue;
        seen.add(slot);
        const stored = await this.deps.reader.get(caller, store.meta(slot).id);
        if (stored) hits.push({ stored, score });
        if (hits.length >= k) return true;
      }
      return false;
    };
    if (subset !== null && subset.length <= EXACT_SUBSET_MAX) {
      await take(index.exact(query, subset.length, accept, subset));
    } else {
      // The graph's candidates, more each round while the caller may not read enough of them; then an exact scan.
      let n = k;
      for (;;) {
        const { hits: ranked, exhaustive } = index.nearest(query, n, accept);
        hits.length = 0;
        seen.clear();
        if ((await take(ranked)) || exhaustive) break;
        if (n >= GRAPH_CANDIDATES_MAX) {
          hits.length = 0;
          seen.clear();
          await take(index.exact(query, store.size, accept, null));
          break;
        }
        n = Math.min(GRAPH_CANDIDATES_MAX, n * 4);
      }
    }
    return { embedder: embedderName(active.provider), k, hits };
  }

  // ---- reporting ----

  async stats(): Promise<Record<string, unknown>> {
    const active = await this.current();
    const position = this.deps.reader.position;
    const models = [];
    for (const { store, index } of this.stores.values()) {
      const info = store.model;
      models.push({
        embedder: `${info.kind}:${info.model}`,
        active: active?.store === store,
        dimensions: info.dims,
        vectors: store.size,
        frontier: store.frontier,
        pending_records: Math.max(0, position - store.frontier),
        failed_records: store.failed.length,
        index: { kind: index.kind, indexed: index.indexed, pending: index.pending },
        disk_bytes: await store.diskBytes(),
      });
    }
    return {
      enabled: active !== null,
      embedder: active ? embedderName(active.provider) : null,
      role: this.role,
      endpoint: active?.provider.endpoint ?? null,
      provider_state: active === null ? 'off' : this.failures > 0 ? 'failing' : 'ok',
      consecutive_failures: this.failures,
      last_success_at: this.lastSuccessAt,
      last_failure: this.lastFailureValue,
      models,
    };
  }
}

function slotMeta(stored: StoredRecord): SlotMeta {
  const record: LoomRecord = stored.record;
  return { sequence: stored.sequence, id: record.id, thread: record.thread, actor: record.actor, kind: bodyKind(record), clock: record.clock };
}
