/**
 * Blended find (spec §4.3): BM25 over conversations and files, one ranking.
 *
 * Feeding: a log consumer (core/engine/log-consumer.ts, `search.find`)
 * hands it the log in slices (`findSliceRecords`), system threads left out by
 * the kernel; conversation records go into the index, data-plane node records
 * mark their namespace, whose files are then reconciled against the data
 * plane's tree (added, re-read when their content changed, dropped when gone)
 * with text contents read from the blob store, when the consumer is caught
 * up. Ingest never waits for it: while records keep arriving it takes at most
 * `findBusyShare` of the time. The index lives in memory (each server keeps
 * its own, CPU only, also on a shared log). A snapshot of it is saved in the
 * plugin's data directory (find-snapshot.ts) once caught up, at most every
 * `findSnapshotMs`, and when the server stops; a start loads it and indexes
 * only the log after it. Without one (or with one that does not fit this
 * log) a start rebuilds from the start of the log (searches meanwhile answer
 * from what is indexed and `/v1/search/stats` shows what is pending).
 *
 * Answering: every matching document, best first; each is checked against
 * the caller's read view (records through the reader, files through the
 * caller's view of the namespace tree) before it counts, and a thread gives
 * one hit (its best record), so a page is short only when fewer visible hits
 * exist.
 */
import { Readable } from 'node:stream';
import { SYSTEM, type Caller } from '../../core/access/caller.js';
import type { ConsumerHandle, LogConsumer } from '../../core/engine/log-consumer.js';
import type { RecordReader } from '../../core/engine/record-reader.js';
import type { Logger } from '../../core/plugin/logger.js';
import { DEFAULT_NAMESPACE } from '../../core/records/namespace-path.js';
import type { StoredRecord } from '../../storage/contract/stored-record.js';
import { DATA_FOLD, NODE_KIND, type DataNode, type DataPlane, type DataState } from '../data-plane/index.js';
import type { SearchOptions } from './config.js';
import { tokenize, type QueryTerm } from './bm25-index.js';
import { FIELD_BOOST, FindIndex, materialDocId, type DocType, type IndexHit, type MaterialDocInfo } from './find-index.js';
import { recordText } from './record-text.js';
import { FIND_SNAPSHOT_FORMAT, openFindSnapshot, saveFindSnapshot } from './find-snapshot.js';
import { snippet, type Snippet } from './snippet.js';

export const FIND_LIMIT_DEFAULT = 20;
export const FIND_LIMIT_MAX = 100;

/** Media types whose bytes are text worth indexing (besides text/*). */
const TEXT_TYPES = new Set(['application/json', 'application/x-ndjson', 'application/ndjson', 'application/yaml', 'application/x-yaml', 'application/xml', 'application/javascript', 'application/typescript', 'application/toml', 'application/x-sh', 'application/sql', 'application/csv']);
/** Extensions read as text whatever the declared type (an upload often says application/octet-stream). */
const TEXT_EXTENSIONS = /\.(txt|md|markdown|rst|adoc|csv|tsv|json|jsonl|ndjson|ya?ml|toml|ini|cfg|conf|xml|html?|css|js|mjs|cjs|ts|tsx|jsx|py|rb|go|rs|java|kt|c|h|cc|cpp|hpp|cs|swift|sh|bash|zsh|sql|proto|graphql|tex|log)$/i;

export function isTextFile(path: string, contentType: string | null): boolean {
  const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  return type.startsWith('text/') || TEXT_TYPES.has(type) || type.endsWith('+json') || type.endsWith('+xml') || TEXT_EXTENSIONS.test(path);
}

export interface FindRequest {
  readonly q: string;
  readonly limit: number;
  readonly types: ReadonlySet<DocType>;
  readonly prefix: boolean;
  readonly explain: boolean;
}

export interface FindHit {
  object: 'find_hit';
  type: DocType;
  score: number;
  title: string;
  snippet: Snippet;
  /** Which fields matched: title, name, path, content, text. */
  why: string[];
  thread?: string;
  record?: string;
  participants?: string[];
  namespace?: string;
  path?: string;
  node?: { path: string; size_bytes: number; content_type: string | null; content_hash: string | null; modified_at: string | null };
  explain?: { plane: string; bm25: number; rank: number; boosts: typeof FIELD_BOOST; terms: Record<string, number>; query_terms: string[] };
}

export interface FindDeps {
  /** The search plugin's data directory (the snapshot's), or null: no snapshot, rebuilt from the log at every start. */
  readonly dir?: string | null;
  readonly reader: RecordReader;
  readonly options: SearchOptions;
  readonly log: Logger;
  readonly now: () => number;
}


export class FindService implements LogConsumer {
  readonly name = 'find';
  /** After the snapshot's sequence, else the start of the log. */
  readonly startAt = { after: () => this.restore() };
  readonly keepCheckpoint = false;
  readonly batchSize: number;
  readonly busyShare: number;
  private index = new FindIndex();
  /** Bumped by a rebuild: a snapshot being written meanwhile is dropped. */
  private generation = 0;
  private lastSnapshotAt = -Infinity;
  private snapshot: { through: number; saved_at: string; bytes: number; took_ms: number } | null = null;
  private restored: { through: number; documents: { thread: number; material: number }; took_ms: number } | null = null;
  /** The snapshot's index being read (null once in place). */
  private loading: Promise<void> | null = null;
  private abandoned = false;
  /** Namespaces whose files must be reconciled, with the sequence the data plane's tree must have reached. */
  private readonly dirty = new Map<string, number>();
  private consumer: ConsumerHandle | null = null;
  private lastFailure: { at: string; message: string } | null = null;
  private lastIndexedAt: string | null = null;
  private rebuilding: { scope: string; startedAt: string } | null = null;
  private startedAt = 0;
  private readyAt: number | null = null;
  /** Null when the data-plane plugin is not loaded: find searches conversations only. */
  private data: DataPlane | null = null;

  constructor(private readonly deps: FindDeps) {
    this.batchSize = deps.options.findSliceRecords;
    this.busyShare = deps.options.findBusyShare;
  }

  /** The kernel's handle, once contributed (scope.consume). */
  attach(handle: ConsumerHandle): void {
    this.consumer = handle;
  }

  /** The data plane whose files are found too (null: conversations only); set before the consumer starts. */
  useDataPlane(data: DataPlane | null): void {
    this.data = data;
  }

  /** Every record up to it is indexed (0 while a snapshot is being loaded: nothing is yet). */
  private get through(): number {
    if (this.loading !== null) return 0;
    return this.consumer?.cursor ?? 0;
  }

  start(): void {
    this.startedAt = this.deps.now();
    this.rebuilding = { scope: 'all', startedAt: new Date(this.startedAt).toISOString() };
    this.markAllNamespaces();
  }

  /**
   * Consumer start: when a snapshot fits this log, the sequence it covers
   * (the consumer starts after it) and its index loaded in the background
   * (`loading`: the first batch and idle wait for it; the listener does not);
   * else 0, the start of the log.
   */
  private async restore(): Promise<number> {
    const dir = this.deps.options.findSnapshotMs > 0 ? (this.deps.dir ?? null) : null;
    if (dir === null) return 0;
    const started = this.deps.now();
    try {
      const opened = await openFindSnapshot(dir);
      if (opened === null) return 0;
      const { header } = opened;
      if (header.format !== FIND_SNAPSHOT_FORMAT || header.materials !== (this.data !== null) || !(await this.sameLog(header.through, header.through_id))) {
        await opened.close();
        this.deps.log.log('info', 'find snapshot does not fit this log; rebuilding from the log', { through: header.through, format: header.format });
        return 0;
      }
      const generation = this.generation;
      this.loading = opened.readIndex().then(
        (index) => {
          if (generation !== this.generation) {
            // A rebuild was asked for meanwhile: it starts from the whole log.
            this.abandoned = true;
            this.consumer?.rewind(0);
            this.markAllNamespaces();
            return;
          }
          this.index = index;
          for (const [namespace, sequence] of header.dirty) this.mark(namespace, sequence);
          this.restored = { through: header.through, documents: index.documents, took_ms: this.deps.now() - started };
          this.lastSnapshotAt = this.deps.now();
          this.snapshot = { through: header.through, saved_at: header.saved_at, bytes: 0, took_ms: 0 };
          this.deps.log.log('info', 'find index restored from its snapshot', { through: header.through, documents: index.documents, took_ms: this.restored.took_ms });
        },
        (error: unknown) => {
          // Cut short or unreadable: the whole log, from the start (a batch waiting meanwhile is dropped: it comes again).
          this.index = new FindIndex();
          this.dirty.clear();
          this.abandoned = true;
          this.consumer?.rewind(0);
          this.deps.log.log('warn', 'find snapshot not loaded; rebuilding from the log', { error: (error as Error).message });
        },
      );
      return header.through;
    } catch (error) {
      this.deps.log.log('warn', 'find snapshot not loaded; rebuilding from the log', { error: (error as Error).message });
      return 0;
    }
  }

  /** Whether the record at `through` is `id` (0: the empty log), so a snapshot of another log is never used. */
  private async sameLog(through: number, id: string | null): Promise<boolean> {
    if (through > this.deps.reader.position) return false;
    if (through === 0) return true;
    const [at] = await this.deps.reader.changesSince(SYSTEM, through - 1, 1);
    return at !== undefined && at.sequence === through && at.record.id === id;
  }

  /** Waits for a snapshot being loaded; true when it failed and the batch in hand must be dropped (the log comes again from the start). */
  private async loaded(): Promise<boolean> {
    if (this.loading === null) return false;
    await this.loading;
    this.loading = null;
    const abandoned = this.abandoned;
    this.abandoned = false;
    return abandoned;
  }

  /**
   * Saves the snapshot (caught up or stopped: no batch runs meanwhile). Also
   * part way through a rebuild: the index holds exactly the records up to the
   * cursor and the namespaces still to reconcile are in the header, so a
   * server stopped before its index caught up resumes there instead of
   * starting the whole log again (at 1M records, every restart did).
   */
  private async saveSnapshot(): Promise<void> {
    const dir = this.deps.options.findSnapshotMs > 0 ? (this.deps.dir ?? null) : null;
    const through = this.through;
    if (dir === null || through === 0 || through === this.snapshot?.through) return;
    const generation = this.generation;
    const started = this.deps.now();
    const [at] = await this.deps.reader.changesSince(SYSTEM, through - 1, 1);
    if (at === undefined || at.sequence !== through) return;
    const header = { format: FIND_SNAPSHOT_FORMAT, through, through_id: at.record.id, materials: this.data !== null, dirty: [...this.dirty], saved_at: new Date(this.deps.now()).toISOString() };
    try {
      const bytes = await saveFindSnapshot(dir, header, this.index);
      if (generation !== this.generation) return; // a rebuild began meanwhile: the next save replaces it
      this.lastSnapshotAt = this.deps.now();
      this.snapshot = { through, saved_at: header.saved_at, bytes, took_ms: this.deps.now() - started };
    } catch (error) {
      this.deps.log.log('warn', 'saving the find snapshot failed', { error: (error as Error).message });
    }
  }

  async stop(): Promise<void> {
    if (await this.loaded()) return;
    await this.saveSnapshot();
  }

  /** Resolves once everything published so far is indexed (tests, benchmarks). */
  async caughtUp(): Promise<void> {
    await this.consumer?.caughtUp();
  }

  private markAllNamespaces(): void {
    if (!this.data) return;
    this.deps.reader.globalFoldState<DataState>(SYSTEM, DATA_FOLD).then(
      ({ state }) => {
        for (const namespace of state.namespaces.keys()) this.mark(namespace, 0);
        this.consumer?.wake();
      },
      (error: unknown) => this.noteFailure(error),
    );
  }

  /** Indexes a slice of the log (system threads are not handed over). */
  async handle(records: readonly StoredRecord[]): Promise<void> {
    if (await this.loaded()) return;
    for (const stored of records) {
      const record = stored.record;
      const body = record.body as Record<string, unknown>;
      if (body.kind === NODE_KIND) {
        this.mark(typeof body.namespace === 'string' ? body.namespace : DEFAULT_NAMESPACE, stored.sequence);
      } else {
        const { title, text } = recordText(record);
        this.index.addRecord({ type: 'thread', recordId: record.id, thread: record.thread, sequence: stored.sequence }, record.actor, title, text);
      }
    }
    this.lastIndexedAt = new Date(this.deps.now()).toISOString();
  }

  /** Once caught up with the log: one marked namespace's files, then discarded documents; 20 ms while a tree lags its records. */
  async idle({ caughtUp }: { caughtUp: boolean }): Promise<number | null> {
    if (!caughtUp) return null;
    if (await this.loaded()) return 0;
    let worked: boolean;
    try {
      worked = (await this.reconcileOne()) || (await this.index.vacuumIfDirty());
    } catch (error) {
      this.noteFailure(error);
      throw error;
    }
    if (worked) {
      this.lastIndexedAt = new Date(this.deps.now()).toISOString();
      return 0;
    }
    if (this.rebuilding && this.through >= this.deps.reader.position) {
      this.deps.log.log('info', 'find index ready', { scope: this.rebuilding.scope, documents: this.index.documents, took_ms: this.deps.now() - Date.parse(this.rebuilding.startedAt) });
      this.rebuilding = null;
      this.readyAt ??= this.deps.now();
    }
    const every = this.deps.options.findSnapshotMs;
    if (every > 0 && this.dirty.size === 0 && this.deps.now() - this.lastSnapshotAt >= every) await this.saveSnapshot();
    return this.dirty.size > 0 || this.index.dirt > 0 ? 20 : null;
  }

  private noteFailure(error: unknown): void {
    this.lastFailure = { at: new Date(this.deps.now()).toISOString(), message: (error as Error).message };
    this.deps.log.log('warn', 'find indexing failed; retrying', { error: (error as Error).message });
  }

  private mark(namespace: string, sequence: number): void {
    this.dirty.set(namespace, Math.max(sequence, this.dirty.get(namespace) ?? 0));
  }

  /** Brings one marked namespace's files in line with the data plane's tree; false when none was marked (or its tree is not there yet). */
  private async reconcileOne(): Promise<boolean> {
    const data = this.data;
    const next = this.dirty.entries().next().value as [string, number] | undefined;
    if (next === undefined || !data) {
      this.dirty.clear();
      return false;
    }
    const [namespace, needed] = next;
    const { tree, watermark } = await data.treeFor(SYSTEM, namespace);
    // The data plane's fold has not applied the change yet: come back to it (the loop sleeps briefly when nothing else moved).
    if (watermark < needed) return false;
    if (this.dirty.get(namespace) === needed) this.dirty.delete(namespace);
    const held = this.index.materialsOf(namespace);
    for (const [path, info] of held) {
      const node = tree.nodes.get(path);
      if (!node || node.kind !== 'file') this.index.removeDoc(materialDocId(namespace, path));
      else if (node.content_hash !== info.contentHash) held.delete(path); // re-read below
    }
    for (const node of tree.nodes.values()) {
      if (node.kind !== 'file') continue;
      const existing = held.get(node.path);
      if (existing && existing.contentHash === node.content_hash) continue;
      const text = await this.readText(node);
      this.index.putMaterial({ type: 'material', namespace, path: node.path, contentHash: node.content_hash, contents: text !== null }, text ?? '');
    }
    return true;
  }

  /** A text file's contents (null: not text, too large, or its bytes are not held here). */
  private async readText(node: DataNode): Promise<string | null> {
    const data = this.data;
    if (!data || !node.content_hash || !isTextFile(node.path, node.content_type)) return null;
    if (node.size_bytes > this.deps.options.findMaxFileBytes) return null;
    if (node.size_bytes === 0) return '';
    try {
      const chunks: Buffer[] = [];
      for await (const chunk of data.openBlob(node.content_hash, 0, node.size_bytes - 1) as Readable) chunks.push(chunk as Buffer);
      const bytes = Buffer.concat(chunks);
      if (bytes.subarray(0, 8192).includes(0)) return null; // binary after all
      return bytes.toString('utf8');
    } catch {
      return null;
    }
  }

  /** POST /v1/search/rebuild: drops the scope's documents and indexes them again in the background. */
  rebuild(scope: 'materials' | 'threads' | 'all'): { dropped: number } {
    this.generation += 1;
    const dropped = this.index.drop(scope === 'all' ? 'all' : scope === 'threads' ? 'thread' : 'material');
    if (scope !== 'materials') this.consumer?.rewind(0);
    if (scope !== 'threads') this.markAllNamespaces();
    this.rebuilding = { scope, startedAt: new Date(this.deps.now()).toISOString() };
    this.consumer?.wake();
    return { dropped };
  }

  // ---- answering ----

  async find(caller: Caller, request: FindRequest): Promise<{ hits: FindHit[]; planes_served: string[]; planes_degraded: string[] }> {
    const terms = this.index.queryTerms(request.q, request.prefix);
    const hits: FindHit[] = [];
    const threadsSeen = new Set<string>();
    const trees = new Map<string, Map<string, DataNode> | null>();
    // Candidates best first, more of them when the caller may not read enough (or a thread has many): never a short page while more visible hits exist.
    let n = Math.max(100, request.limit * 4);
    let examined = 0;
    for (;;) {
      const { hits: ranked, matched } = this.index.search(terms, n, request.types);
      for (; examined < ranked.length && hits.length < request.limit; examined++) {
        const hit = await this.render(caller, ranked[examined]!, examined + 1, terms, request.explain, threadsSeen, trees);
        if (hit) hits.push(hit);
      }
      if (hits.length >= request.limit || ranked.length >= matched) break;
      n = Math.min(matched, n * 4);
    }
    const planes = [...(request.types.has('material') && this.data ? ['names', 'content'] : []), ...(request.types.has('thread') ? ['threads'] : [])];
    const degraded = this.rebuilding ? planes : request.types.has('material') && !this.data ? ['names', 'content'] : [];
    return { hits, planes_served: planes, planes_degraded: degraded };
  }

  /** The hit for one ranked document, or null when the caller may not read it (or its thread already has a hit). */
  private async render(
    caller: Caller,
    { doc, info, score }: IndexHit,
    rank: number,
    terms: readonly QueryTerm[],
    explainAsked: boolean,
    threadsSeen: Set<string>,
    trees: Map<string, Map<string, DataNode> | null>,
  ): Promise<FindHit | null> {
    const contributions = this.index.explain(terms, doc);
    const matched = new Set(Object.keys(contributions));
    const has = (text: string) => tokenize(text).some((token) => matched.has(token));
    const explain = (plane: string) =>
      explainAsked ? { explain: { plane, bm25: score, rank, boosts: FIELD_BOOST, terms: contributions, query_terms: terms.map((t) => t.term) } } : {};
    if (info.type === 'thread') {
      if (threadsSeen.has(info.thread)) return null;
      const stored = await this.deps.reader.get(caller, info.recordId);
      if (!stored) return null;
      threadsSeen.add(info.thread);
      const { title, text } = recordText(stored.record);
      const why = [...(has(title) ? ['title'] : []), ...(has(text) ? ['text'] : [])];
      return {
        object: 'find_hit',
        type: 'thread',
        score,
        title: this.index.gist(info.thread) ?? info.thread,
        snippet: snippet(why.includes('text') || title === '' ? text || title : title, matched),
        why,
        thread: info.thread,
        record: info.recordId,
        participants: this.index.participantsOf(info.thread),
        ...explain('threads'),
      };
    }
    const data = this.data;
    if (!data) return null;
    if (!trees.has(info.namespace)) trees.set(info.namespace, data.mayRead(caller, info.namespace) ? (await data.treeFor(caller, info.namespace)).tree.nodes : null);
    const node = trees.get(info.namespace)?.get(info.path);
    if (!node || node.kind !== 'file' || node.content_hash !== info.contentHash) return null;
    const slash = info.path.lastIndexOf('/');
    const name = info.path.slice(slash + 1);
    const text = info.contents ? await this.readText(node) : null;
    const inContent = text !== null && has(text);
    const why = [...(has(name) ? ['name'] : []), ...(has(info.path.slice(0, slash)) ? ['path'] : []), ...(inContent ? ['content'] : [])];
    return {
      object: 'find_hit',
      type: 'material',
      score,
      title: name,
      snippet: snippet(inContent ? text : info.path, matched),
      why,
      namespace: info.namespace,
      path: info.path,
      node: { path: node.path, size_bytes: node.size_bytes, content_type: node.content_type, content_hash: node.content_hash, modified_at: node.modified_at },
      ...explain(inContent ? 'content' : 'names'),
    };
  }

  /**
   * Ranks records another plugin already holds and has already decided the
   * caller may see (the members plugin's memories): the best `limit` of
   * those `admit` accepts, best first, with the sequence the index covers
   * (records above it are not indexed yet; the asker matches those itself).
   * No read view is applied here: `admit` is the asker's.
   */
  rankRecords(q: string, admit: (recordId: string) => boolean, limit: number): { ranked: Array<{ recordId: string; score: number }>; indexedThrough: number } {
    // The cursor moves only once a slice is in the index (and back to 0 with a rebuild's drop): every record up to it is indexed.
    return { ranked: this.index.rankAmong(this.index.queryTerms(q, false), admit, limit), indexedThrough: this.through };
  }

  stats(): Record<string, unknown> {
    const position = this.deps.reader.position;
    return {
      engine: 'bm25f (in memory)',
      documents: this.index.documents,
      indexed_through: this.through,
      log_position: position,
      coverage: position === 0 ? 1 : Math.min(1, this.through / position),
      pending_records: Math.max(0, position - this.through),
      pending_namespaces: this.dirty.size,
      pending_discards: this.index.dirt,
      materials_plane: this.data !== null,
      rebuilding: this.rebuilding,
      ready_after_ms: this.readyAt === null ? null : this.readyAt - this.startedAt,
      restored_from_snapshot: this.restored,
      snapshot: this.snapshot,
      last_indexed_at: this.lastIndexedAt,
      last_failure: this.lastFailure,
    };
  }
}
