/**
 * The full-text index behind GET /v1/find: one BM25 index (MiniSearch) over
 * two kinds of document, so both rank on one scale:
 * - a record of a conversation (`r:<id>`): title = its title field, text =
 *   its other words (record-text.ts);
 * - a file of the data plane (`m:<namespace>\0<path>`): title = its name,
 *   path = its directories, text = its contents when it is a text file.
 * Fields weigh title 3, path 1.5, text 1. Everything here is derived from
 * the log (and the blobs it names), held in memory, rebuilt at start.
 */
import MiniSearch, { type SearchResult } from 'minisearch';

export type DocType = 'thread' | 'material';

export interface IndexedDoc {
  readonly id: string;
  readonly title: string;
  readonly path: string;
  readonly text: string;
}

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

export const FIELD_BOOST = { title: 3, path: 1.5, text: 1 } as const;

export const recordDocId = (recordId: string) => `r:${recordId}`;
export const materialDocId = (namespace: string, path: string) => `m:${namespace}\u0000${path}`;

const PARTICIPANTS_KEPT = 20;

export class FindIndex {
  private mini = FindIndex.create();
  private readonly docs = new Map<string, DocInfo>();
  private readonly gists = new Map<string, string>();
  private readonly participants = new Map<string, Set<string>>();
  private counts = { thread: 0, material: 0 };

  private static create(): MiniSearch<IndexedDoc> {
    return new MiniSearch<IndexedDoc>({
      fields: ['title', 'path', 'text'],
      storeFields: [],
      // Discarded documents keep counting in term statistics until vacuumed; the find loop vacuums when idle (vacuumIfDirty), so scores settle to a fresh index's.
      autoVacuum: false,
    });
  }

  get documents(): { thread: number; material: number } {
    return { ...this.counts };
  }

  info(id: string): DocInfo | undefined {
    return this.docs.get(id);
  }

  gist(thread: string): string | undefined {
    return this.gists.get(thread)?.replace(/^\u0000/, '');
  }

  participantsOf(thread: string): string[] {
    return [...(this.participants.get(thread) ?? [])];
  }

  /** Adds a conversation record; the thread's gist is its first title (else its first words). */
  addRecord(info: RecordDocInfo, actor: string, title: string, text: string): void {
    const id = recordDocId(info.recordId);
    if (this.docs.has(id)) return;
    const gist = this.gists.get(info.thread);
    if (gist === undefined || (title !== '' && gist.startsWith('\u0000'))) {
      // A gist from words alone is marked (\0) until a record with a title gives the thread a real one.
      this.gists.set(info.thread, title !== '' ? title.slice(0, 200) : '\u0000' + text.slice(0, 120).replace(/\s+/g, ' '));
    }
    const people = this.participants.get(info.thread) ?? new Set<string>();
    if (people.size < PARTICIPANTS_KEPT) people.add(actor);
    this.participants.set(info.thread, people);
    if (title === '' && text === '') return;
    this.mini.add({ id, title, path: '', text });
    this.docs.set(id, info);
    this.counts.thread += 1;
  }

  /** Adds or replaces a file. */
  putMaterial(info: MaterialDocInfo, text: string): void {
    const id = materialDocId(info.namespace, info.path);
    this.removeDoc(id);
    const slash = info.path.lastIndexOf('/');
    this.mini.add({ id, title: info.path.slice(slash + 1), path: info.path.slice(0, slash).replace(/\//g, ' '), text });
    this.docs.set(id, info);
    this.counts.material += 1;
  }

  removeDoc(id: string): void {
    const info = this.docs.get(id);
    if (!info) return;
    this.mini.discard(id);
    this.docs.delete(id);
    this.counts[info.type] -= 1;
  }

  /** The files of `namespace` held, by path. */
  materialsOf(namespace: string): Map<string, MaterialDocInfo> {
    const out = new Map<string, MaterialDocInfo>();
    for (const info of this.docs.values()) if (info.type === 'material' && info.namespace === namespace) out.set(info.path, info);
    return out;
  }

  /** Documents discarded but still counted in term statistics. */
  get dirt(): number {
    return this.mini.dirtCount;
  }

  /** Removes what discarded documents left in the term statistics, in batches that yield. */
  async vacuumIfDirty(): Promise<boolean> {
    if (this.mini.dirtCount === 0) return false;
    await this.mini.vacuum({ batchSize: 2_000, batchWait: 0 });
    return true;
  }

  /** Drops every document of `type` (or everything). */
  drop(type: DocType | 'all'): number {
    if (type === 'all') {
      const count = this.docs.size;
      this.mini = FindIndex.create();
      this.docs.clear();
      this.gists.clear();
      this.participants.clear();
      this.counts = { thread: 0, material: 0 };
      return count;
    }
    let dropped = 0;
    for (const [id, info] of [...this.docs]) {
      if (info.type !== type) continue;
      this.removeDoc(id);
      dropped += 1;
    }
    if (type === 'thread') {
      this.gists.clear();
      this.participants.clear();
    }
    return dropped;
  }

  /** Every matching document, best first; `prefix`: the last word also matches as a prefix. */
  search(q: string, options: { prefix: boolean; types: ReadonlySet<DocType> }): SearchResult[] {
    const both = options.types.size === 2;
    return this.mini.search(q, {
      boost: { ...FIELD_BOOST },
      prefix: options.prefix ? (_term, index, terms) => index === terms.length - 1 : false,
      ...(both ? {} : { filter: (result) => options.types.has(this.docs.get(result.id as string)?.type ?? 'thread') }),
    });
  }
}
