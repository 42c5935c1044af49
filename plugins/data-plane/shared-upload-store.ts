/**
 * Upload sessions on a shared log: every server sees every session, so the
 * chunks of one upload may land on different servers and any server
 * completes it. What was declared and which chunks arrived is one slot of the
 * shared store (`data-plane:uploads`, every open session, changed under the
 * store's lock `data-plane:uploads`); each PUT's bytes are a blob of the
 * shared blob store, streamed in with no lock held. Completion streams the
 * parts in order into the final blob (hashing it), the way the filesystem
 * store hashes its data file.
 *
 * A PUT counts once its blob is stored and the slot names it; a PUT still
 * streaming when the upload is sealed for completion is refused (not
 * counted), so the content completed is exactly the parts named at the seal.
 * The parts are pinned (`pinned()`, which the collector honours) while the
 * session is open, and deleted when it ends (completed, aborted, expired)
 * unless a file or another session names the same content; what a crash
 * leaves is collected like any unreferenced content.
 *
 * A seal is a lease (`sealLeaseMs`), renewed by the completing server while
 * it works: if that server dies mid-completion, the seal lapses and the
 * client's next complete, through any server, takes the upload over,
 * instead of finding it "being completed" until the session's TTL.
 */
import { randomBytes } from 'node:crypto';
import { pipeline, Readable, Transform } from 'node:stream';
import { LoomError } from '../../core/errors/loom-error.js';
import type { BlobStore } from '../../storage/contract/blob-store.js';
import type { ChunkRange } from './content-range.js';
import type { NewUpload, UploadMeta, UploadSessions } from './upload-sessions.js';

export interface SharedSlots {
  readSlot(name: string): Promise<string | null>;
  writeSlot(name: string, value: string | null): Promise<void>;
  withLock<T>(key: string, work: () => Promise<T>): Promise<T>;
}

interface Part {
  readonly first: number;
  readonly last: number;
  readonly hash: string;
}

interface SharedMeta extends UploadMeta {
  parts: Part[];
  sealed: boolean;
  /** Until when the seal holds unless renewed (ms; absent in sessions saved before seals were leases: it holds). */
  sealed_until?: number;
}

interface Saved {
  readonly version: 1;
  readonly sessions: Record<string, SharedMeta>;
}

const SLOT = 'data-plane:uploads';
const UPLOAD_ID = /^up_[0-9a-f]{32}$/;

export interface SharedUploadStoreOptions {
  readonly ttlMs: number;
  /** Whether a file names `hash` (on a fold caught up with the log): a finished session's parts are deleted unless one does. */
  readonly referenced: (hash: string) => Promise<boolean>;
  readonly now?: () => number;
  /** How long a seal holds without renewal; the completing server renews it every third of that. @default 60000 */
  readonly sealLeaseMs?: number;
}

const DEFAULT_SEAL_LEASE_MS = 60_000;

export class SharedUploadStore implements UploadSessions {
  private sessions = new Map<string, SharedMeta>();
  /** Completions in progress here: the blob their parts were assembled into. */
  private readonly assembled = new Map<string, { hash: string; outcome: 'stored' | 'deduplicated' }>();
  private readonly now: () => number;
  private readonly sealLeaseMs: number;
  /** Seals this server holds, renewed until `unseal`. */
  private readonly renewals = new Map<string, NodeJS.Timeout>();

  constructor(
    private readonly slots: SharedSlots,
    private readonly blobs: BlobStore,
    private readonly options: SharedUploadStoreOptions,
  ) {
    this.now = options.now ?? Date.now;
    this.sealLeaseMs = options.sealLeaseMs ?? DEFAULT_SEAL_LEASE_MS;
  }

  /** Whether a completion holds the session now (its lease not lapsed). */
  private sealed(meta: SharedMeta | undefined): boolean {
    return meta !== undefined && meta.sealed && (meta.sealed_until === undefined || meta.sealed_until > this.now());
  }

  private async load(): Promise<Map<string, SharedMeta>> {
    const text = await this.slots.readSlot(SLOT);
    const out = new Map<string, SharedMeta>();
    if (text === null) return out;
    try {
      const saved = JSON.parse(text) as Saved;
      if (saved.version === 1) for (const [id, meta] of Object.entries(saved.sessions)) if (UPLOAD_ID.test(id)) out.set(id, meta);
    } catch {
      // A torn value only forgets the sessions: their clients start again.
    }
    return out;
  }

  /** Reads, changes and writes the sessions under the lock every server takes for them. */
  private mutate<T>(change: (sessions: Map<string, SharedMeta>) => T): Promise<T> {
    return this.slots.withLock(SLOT, async () => {
      const sessions = await this.load();
      const before = JSON.stringify({ version: 1, sessions: Object.fromEntries(sessions) } satisfies Saved);
      const result = change(sessions);
      const after = JSON.stringify({ version: 1, sessions: Object.fromEntries(sessions) } satisfies Saved);
      // Every server sweeps: a sweep that removed nothing writes nothing.
      if (after !== before) await this.slots.writeSlot(SLOT, after);
      this.sessions = sessions;
      return result;
    });
  }

  async refresh(): Promise<void> {
    this.sessions = await this.load();
  }

  async open(): Promise<{ resumed: number; removed: number }> {
    const removed = await this.sweep();
    return { resumed: this.sessions.size, removed };
  }

  async create(fields: NewUpload): Promise<UploadMeta> {
    const id = `up_${randomBytes(16).toString('hex')}`;
    const now = this.now();
    const meta: SharedMeta = { ...fields, upload_id: id, created_at: new Date(now).toISOString(), expires_at: new Date(now + this.options.ttlMs).toISOString(), received: [], parts: [], sealed: false };
    await this.mutate((sessions) => sessions.set(id, meta));
    return this.view(meta);
  }

  /** The session without its parts (what callers see, as the filesystem store shows it). */
  private view(meta: SharedMeta): UploadMeta {
    const { parts: _parts, sealed: _sealed, sealed_until: _until, ...rest } = meta;
    return rest;
  }

  private live(id: string, sessions = this.sessions): SharedMeta | undefined {
    if (!UPLOAD_ID.test(id)) return undefined;
    const meta = sessions.get(id);
    if (!meta || Date.parse(meta.expires_at) <= this.now()) return undefined;
    return meta;
  }

  get(id: string): UploadMeta | undefined {
    const meta = this.live(id);
    return meta ? this.view(meta) : undefined;
  }

  reservedBytes(namespace: string, except?: string): number {
    let total = 0;
    for (const meta of this.sessions.values()) if (meta.namespace === namespace && meta.upload_id !== except && this.live(meta.upload_id)) total += meta.size_bytes;
    return total;
  }

  openCount(namespace: string): number {
    let count = 0;
    for (const meta of this.sessions.values()) if (meta.namespace === namespace && this.live(meta.upload_id)) count++;
    return count;
  }

  async seal(id: string): Promise<boolean> {
    const sealed = await this.mutate((sessions) => {
      const meta = this.live(id, sessions);
      if (!meta || this.sealed(meta)) return false;
      meta.sealed = true;
      meta.sealed_until = this.now() + this.sealLeaseMs;
      return true;
    });
    if (sealed) {
      const timer = setInterval(() => void this.renew(id), Math.max(1, Math.floor(this.sealLeaseMs / 3)));
      timer.unref();
      this.renewals.set(id, timer);
    }
    return sealed;
  }

  /** Extends a seal this server holds (best effort: a lapse only lets another server take the completion over). */
  private async renew(id: string): Promise<void> {
    await this.mutate((sessions) => {
      const meta = sessions.get(id);
      if (meta?.sealed) meta.sealed_until = this.now() + this.sealLeaseMs;
    }).catch(() => undefined);
  }

  async unseal(id: string): Promise<void> {
    const timer = this.renewals.get(id);
    if (timer) clearInterval(timer);
    this.renewals.delete(id);
    if (!this.sessions.has(id)) return;
    await this.mutate((sessions) => {
      const meta = sessions.get(id);
      if (meta) {
        meta.sealed = false;
        delete meta.sealed_until;
      }
    });
  }

  async writeChunk(meta: UploadMeta, range: ChunkRange, body: Readable): Promise<UploadMeta> {
    const id = meta.upload_id;
    if (this.sealed(this.sessions.get(id))) throw new LoomError('UPLOAD_NOT_FOUND', `upload ${id} is being completed and takes no more chunks`);
    const expected = range.end - range.start + 1;
    let seen = 0;
    const count = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        if (seen + chunk.length > expected) return done(new LoomError('CONTENT_LENGTH_MISMATCH', `the body is longer than the ${expected} bytes Content-Range declares`));
        seen += chunk.length;
        done(null, chunk);
      },
      flush(done) {
        done(seen === expected ? null : new LoomError('CONTENT_LENGTH_MISMATCH', `the body has ${seen} bytes but Content-Range declares ${expected}: the chunk was not stored; send it again`));
      },
    });
    // Errors of the body end the counted stream too, so the put fails with them.
    const counted = pipeline(body, count, () => undefined);
    const { hash } = await this.blobs.put(counted);
    // Held from here until the slot names it, so the collector cannot take content that was already stored.
    const release = await this.blobs.hold(hash);
    try {
      if ((await this.blobs.stat(hash)) === null) throw new LoomError('SERVICE_UNAVAILABLE', `the chunk's bytes were collected as they were stored: send the chunk again`);
      const updated = await this.mutate((sessions) => {
        const session = this.live(id, sessions);
        if (!session) throw new LoomError('UPLOAD_NOT_FOUND', `upload ${id} was completed, aborted or expired while this chunk arrived`);
        if (this.sealed(session)) throw new LoomError('UPLOAD_NOT_FOUND', `upload ${id} is being completed and takes no more chunks`);
        // A re-sent range replaces every part it overlaps (their other chunks count as missing until sent again).
        session.parts = [...session.parts.filter((part) => part.last < range.first || part.first > range.last), { first: range.first, last: range.last, hash }].sort((a, b) => a.first - b.first);
        const received: number[] = [];
        for (const part of session.parts) for (let i = part.first; i <= part.last; i++) received.push(i);
        session.received = received;
        session.expires_at = new Date(this.now() + this.options.ttlMs).toISOString();
        return session;
      });
      return this.view(updated);
    } finally {
      await release();
    }
  }

  /** The parts in order, one stream. */
  private content(meta: SharedMeta): Readable {
    const blobs = this.blobs;
    const chunkSize = meta.chunk_size;
    const sizeBytes = meta.size_bytes;
    async function* parts(): AsyncGenerator<Buffer> {
      for (const part of meta.parts) {
        const length = Math.min((part.last + 1) * chunkSize, sizeBytes) - part.first * chunkSize;
        if (length > 0) for await (const chunk of blobs.read(part.hash, 0, length - 1)) yield chunk as Buffer;
      }
    }
    return Readable.from(parts(), { objectMode: false });
  }

  async digest(meta: UploadMeta): Promise<string> {
    const session = this.sessions.get(meta.upload_id);
    if (!session) throw new LoomError('UPLOAD_NOT_FOUND', `upload ${meta.upload_id} is no longer open`);
    const put = await this.blobs.put(this.content(session));
    this.assembled.set(meta.upload_id, { hash: put.hash, outcome: put.outcome });
    return put.hash;
  }

  async adopt(meta: UploadMeta, hash: string, blobs: BlobStore): Promise<'stored' | 'deduplicated'> {
    const done = this.assembled.get(meta.upload_id);
    // Collected between the digest and the caller's hold (content that was stored already, unreferenced): stored again.
    if (done && done.hash === hash && (await blobs.stat(hash)) !== null) return done.outcome;
    const session = this.sessions.get(meta.upload_id);
    if (!session) throw new LoomError('UPLOAD_NOT_FOUND', `upload ${meta.upload_id} is no longer open`);
    return (await blobs.put(this.content(session), hash)).outcome;
  }

  async remove(id: string): Promise<void> {
    this.assembled.delete(id);
    const ended = await this.mutate((sessions) => {
      const meta = sessions.get(id);
      sessions.delete(id);
      return meta ? [meta] : [];
    });
    await this.dropParts(ended);
  }

  async sweep(): Promise<number> {
    const ended = await this.mutate((sessions) => {
      const out: SharedMeta[] = [];
      const now = this.now();
      for (const [id, meta] of sessions) {
        if (Date.parse(meta.expires_at) <= now) {
          sessions.delete(id);
          out.push(meta);
        }
      }
      return out;
    });
    await this.dropParts(ended);
    return ended.length;
  }

  /**
   * Deletes the parts of ended sessions, each in its turn, unless a file or
   * an open session names the same content (checked then, so a chunk another
   * upload stored meanwhile stays). Best effort: the collector takes the rest.
   */
  private async dropParts(ended: readonly SharedMeta[]): Promise<void> {
    const hashes = new Set(ended.flatMap((meta) => meta.parts.map((part) => part.hash)));
    for (const hash of hashes) {
      await this.blobs
        .remove(hash, async () => !(await this.pinned()).has(hash) && !(await this.options.referenced(hash)))
        .catch(() => null);
    }
  }

  async pinned(): Promise<ReadonlySet<string>> {
    await this.refresh();
    const out = new Set<string>();
    for (const meta of this.sessions.values()) for (const part of meta.parts) out.add(part.hash);
    return out;
  }
}
