/**
 * The full-text index behind GET /v1/find: one BM25F index (bm25-index.ts)
 * over two kinds of document, so both rank on one scale:
 * - a record of a conversation (`r:<id>`): title = its title field, text =
 *   its other words (record-text.ts);
 * - a file of the data plane (`m:<namespace>\0<path>`): title = its name,
 *   path = its directories, text = its contents when it is a text file.
 * Everything here is derived from the log (and the blobs it names), held in
 * memory, rebuilt at start.
 */
import { Bm25Index, FIELD_WEIGHTS, type QueryTerm } from './bm25-index.js';
import type { SnapshotReader, SnapshotWriter } from './snapshot-io.js';

export type DocType = 'thread' | 'material';

export interface RecordDocInfo {
  readonly type: 'thread';
  readonly recordId: string;
  readonly thread: string;
  readonly sequence: number;
}

export interface MaterialDocInfo {
  readonly type: 'material';
  readonly namespace: string;
  readonly path: string;
  readonly contentHash: string | null;
  /** Whether the contents were indexed (else the name only). */
  readonly contents: boolean;
}

export type DocInfo = RecordDocInfo | MaterialDocInfo;

export const FIELD_BOOST = FIELD_WEIGHTS;

export const recordDocId = (recordId: string) => `r:${recordId}`;
export const materialDocId = (namespace: string, path: string) => `m:${namespace}\u0000${path}`;

const PARTICIPANTS_KEPT = 20;
/** Snapshot frames: entries per JSON frame. */
const ENTRIES_PER_FRAME = 10_000;
const KIND_BIT: Record<DocType, number> = { thread: 1, material: 2 };

export interface IndexHit {
  readonly doc: number;
  readonly info: DocInfo;
  readonly score: number;
}

export class FindIndex {
  private bm25 = new Bm25Index();
  private infos: DocInfo[] = [];
  /**
   * Document numbers: a record's by its bare id (the string its info holds
   * anyway, so the key costs nothing: a `r:` key was a second 66-character
   * string a record), a file's by `materialDocId`.
   */
  private readonly recordDocs = new Map<string, number>();
  private readonly materialDocs = new Map<string, number>();
  private readonly gists = new Map<string, string>();
  private readonly participants = new Map<string, Set<string>>();
  private counts = { thread: 0, material: 0 };

  get documents(): { thread: number; material: number } {
    return { ...this.counts };
  }

  gist(thread: string): string | undefined {
    return this.gists.get(thread)?.replace(/^\u0000/, '');
  }

  participantsOf(thread: string): string[] {
    return [...(this.participants.get(thread) ?? [])];
  }

  /** Adds a conversation record; the thread's gist is its first title (else its first words). */
  addRecord(info: RecordDocInfo, actor: string, title: string, text: string): void {
    if (this.recordDocs.has(info.recordId)) return;
    const gist = this.gists.get(info.thread);
    if (gist === undefined || (title !== '' && gist.startsWith('\u0000'))) {
      // A gist from words alone is marked (\0) until a record with a title gives the thread a real one.
      this.gists.set(info.thread, title !== '' ? title.slice(0, 200) : '\u0000' + text.slice(0, 120).replace(/\s+/g, ' '));
    }
    const people = this.participants.get(info.thread) ?? new Set<string>();
    if (people.size < PARTICIPANTS_KEPT) people.add(actor);
    this.participants.set(info.thread, people);
    if (title === '' && text === '') return;
    this.recordDocs.set(info.recordId, this.put(info, { title, text }));
  }

  /** Adds or replaces a file. */
  putMaterial(info: MaterialDocInfo, text: string): void {
    const id = materialDocId(info.namespace, info.path);
    this.removeDoc(id);
    const slash = info.path.lastIndexOf('/');
    this.materialDocs.set(id, this.put(info, { title: info.path.slice(slash + 1), path: info.path.slice(0, slash).replace(/\//g, ' '), text }));
  }

  private put(info: DocInfo, fields: { title?: string; path?: string; text?: string }): number {
    const doc = this.bm25.add(fields, KIND_BIT[info.type]);
    this.infos[doc] = info;
    this.counts[info.type] += 1;
    return doc;
  }

  /** Removes a document by its `recordDocId` or `materialDocId`. */
  removeDoc(id: string): void {
    const [docs, key] = id.startsWith('r:') ? [this.recordDocs, id.slice(2)] : [this.materialDocs, id];
    const doc = docs.get(key);
    if (doc === undefined) return;
    this.bm25.remove(doc);
    docs.delete(key);
    this.counts[this.infos[doc]!.type] -= 1;
  }

  /** The files of `namespace` held, by path. */
  materialsOf(namespace: string): Map<string, MaterialDocInfo> {
    const out = new Map<string, MaterialDocInfo>();
    for (const doc of this.materialDocs.values()) {
      const info = this.infos[doc]!;
      if (info.type === 'material' && info.namespace === namespace) out.set(info.path, info);
    }
    return out;
  }

  /** Removed documents whose postings are still held. */
  get dirt(): number {
    return this.bm25.dead;
  }

  /** Drops removed documents' postings (scores are exact either way; this frees memory and time). */
  async vacuumIfDirty(): Promise<boolean> {
    if (this.bm25.dead === 0) return false;
    this.bm25.compact();
    return true;
  }

  /** Drops every document of `type` (or everything). */
  drop(type: DocType | 'all'): number {
    if (type === 'all') {
      const count = this.recordDocs.size + this.materialDocs.size;
      this.bm25 = new Bm25Index();
      this.infos = [];
      this.recordDocs.clear();
      this.materialDocs.clear();
      this.gists.clear();
      this.participants.clear();
      this.counts = { thread: 0, material: 0 };
      return count;
    }
    const docs = type === 'thread' ? this.recordDocs : this.materialDocs;
    const dropped = docs.size;
    for (const doc of docs.values()) this.bm25.remove(doc);
    docs.clear();
    this.counts[type] = 0;
    if (type === 'thread') {
      this.gists.clear();
      this.participants.clear();
    }
    return dropped;
  }

  /** Writes the index for `read` (find-snapshot.ts): the BM25 index, then each document's info (null once removed), gists and participants, in frames. */
  async write(out: SnapshotWriter): Promise<void> {
    await this.bm25.write(out);
    const docs = this.infos.length;
    await out.json({ docs, gists: this.gists.size, participants: this.participants.size });
    for (let from = 0; from < docs; from += ENTRIES_PER_FRAME) {
      const frame: Array<DocInfo | null> = [];
      for (let doc = from; doc < Math.min(docs, from + ENTRIES_PER_FRAME); doc++) frame.push(this.bm25.isAlive(doc) ? (this.infos[doc] ?? null) : null);
      await out.json(frame);
    }
    await writeEntries(out, this.gists);
    await writeEntries(out, this.participants, (people) => [...people]);
  }

  /** An index as `write` wrote it. */
  static async read(input: SnapshotReader): Promise<FindIndex> {
    const index = new FindIndex();
    index.bm25 = await Bm25Index.read(input);
    const head = await input.json<{ docs: number; gists: number; participants: number }>();
    while (index.infos.length < head.docs) {
      for (const info of await input.json<Array<DocInfo | null>>()) {
        const doc = index.infos.length;
        index.infos.push(info as DocInfo);
        if (info === null) continue;
        if (info.type === 'thread') index.recordDocs.set(info.recordId, doc);
        else index.materialDocs.set(materialDocId(info.namespace, info.path), doc);
        index.counts[info.type] += 1;
      }
    }
    await readEntries<string>(input, head.gists, (thread, gist) => index.gists.set(thread, gist));
    await readEntries<string[]>(input, head.participants, (thread, people) => index.participants.set(thread, new Set(people)));
    return index;
  }

  queryTerms(q: string, prefix: boolean): QueryTerm[] {
    return this.bm25.queryTerms(q, prefix);
  }

  /** The best `n` documents of the admitted types, best first, and how many matched. */
  search(terms: readonly QueryTerm[], n: number, types: ReadonlySet<DocType>): { hits: IndexHit[]; matched: number } {
    const infos = this.infos;
    let mask = 0;
    for (const type of types) mask |= KIND_BIT[type];
    const { ranked, matched } = this.bm25.rank(terms, n, mask);
    return { hits: ranked.map(({ doc, score }) => ({ doc, info: infos[doc]!, score })), matched };
  }

  explain(terms: readonly QueryTerm[], doc: number): Record<string, number> {
    return this.bm25.explain(terms, doc);
  }

  /**
   * The best `limit` conversation records that `admit` accepts, best first:
   * candidates are drawn best first, more of them until enough are admitted
   * or none is left, so a page is short only when fewer admitted records match.
   */
  rankAmong(terms: readonly QueryTerm[], admit: (recordId: string) => boolean, limit: number): Array<{ recordId: string; score: number }> {
    const out: Array<{ recordId: string; score: number }> = [];
    if (limit <= 0 || terms.length === 0) return out;
    const threads = new Set<DocType>(['thread']);
    let n = Math.max(100, limit * 4);
    let examined = 0;
    for (;;) {
      const { hits, matched } = this.search(terms, n, threads);
      for (; examined < hits.length && out.length < limit; examined++) {
        const { info, score } = hits[examined]!;
        if (info.type === 'thread' && admit(info.recordId)) out.push({ recordId: info.recordId, score });
      }
      if (out.length >= limit || hits.length >= matched) return out;
      n = Math.min(matched, n * 4);
    }
  }
}

async function writeEntries<V, W = V>(out: SnapshotWriter, map: ReadonlyMap<string, V>, shape: (value: V) => W = (value) => value as unknown as W): Promise<void> {
  let frame: Array<[string, W]> = [];
  for (const [key, value] of map) {
    frame.push([key, shape(value)]);
    if (frame.length === ENTRIES_PER_FRAME) {
      await out.json(frame);
      frame = [];
    }
  }
  if (frame.length > 0) await out.json(frame);
}

async function readEntries<W>(input: SnapshotReader, count: number, put: (key: string, value: W) => void): Promise<void> {
  for (let read = 0; read < count; ) {
    const frame = await input.json<Array<[string, W]>>();
    for (const [key, value] of frame) put(key, value);
    read += frame.length;
  }
}
