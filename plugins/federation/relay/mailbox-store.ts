/**
 * The relay's mailboxes: envelopes waiting for their receiver, one queue per
 * receiver DID, in deposit order. They are not records: the relay is a
 * store-and-forward box that deletes an envelope once its receiver acks it,
 * so they live in the plugin's data directory (one file per envelope,
 * `mailbox/<receiver>/<deposited ms>-<envelope id>.json`, written atomically),
 * or in memory without one. The file holds the envelope exactly as deposited;
 * the receiver, not the relay, decides whether it is still what the sender
 * signed. The deposit time (in the name) is the relay's bookkeeping for the
 * TTL and the order; it is never part of what the receiver gets as a cursor.
 */
import { mkdir, readdir, readFile, rename, rm, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { LoomError } from '../../../core/errors/loom-error.js';

export interface MailboxLimits {
  readonly maxEnvelopes: number;
  readonly ttlMs: number;
}

interface Stored {
  readonly id: string;
  readonly depositedAt: number;
  readonly bytes: number;
  /** Without a data directory: the text itself. */
  readonly text?: string;
}

export interface StoredEnvelope {
  readonly id: string;
  readonly deposited_at: string;
  readonly expires_at: string;
  readonly text: string;
}

const FILE = /^(\d{13})-(menv_[0-9a-f]{64})\.json$/;

export class MailboxStore {
  private readonly boxes = new Map<string, Map<string, Stored>>();
  private loaded = false;

  constructor(private readonly dir: string | null, private readonly now: () => number) {}

  private boxDir(receiver: string): string {
    return join(this.dir!, encodeURIComponent(receiver));
  }

  async load(): Promise<void> {
    if (this.loaded) return;
    this.loaded = true;
    if (this.dir === null) return;
    await mkdir(this.dir, { recursive: true });
    for (const name of await readdir(this.dir)) {
      const receiver = decodeURIComponent(name);
      const box = new Map<string, Stored>();
      for (const file of await readdir(join(this.dir, name)).catch(() => [] as string[])) {
        const match = FILE.exec(file);
        if (match) box.set(match[2]!, { id: match[2]!, depositedAt: Number(match[1]), bytes: 0 });
      }
      if (box.size > 0) this.boxes.set(receiver, box);
    }
  }

  private fileOf(receiver: string, stored: Stored): string {
    return join(this.boxDir(receiver), `${String(stored.depositedAt).padStart(13, '0')}-${stored.id}.json`);
  }

  /** Drops expired envelopes of one receiver (or all). Returns how many went. */
  async sweep(limits: MailboxLimits, receiver?: string): Promise<number> {
    const cutoff = this.now() - limits.ttlMs;
    let dropped = 0;
    for (const [did, box] of this.boxes) {
      if (receiver !== undefined && did !== receiver) continue;
      for (const stored of [...box.values()]) {
        if (stored.depositedAt > cutoff) continue;
        box.delete(stored.id);
        dropped++;
        if (this.dir !== null) await unlink(this.fileOf(did, stored)).catch(() => {});
      }
      if (box.size === 0) {
        this.boxes.delete(did);
        if (this.dir !== null) await rm(this.boxDir(did), { recursive: true, force: true }).catch(() => {});
      }
    }
    return dropped;
  }

  /** Stores one envelope; the same id again is a no-op. MAILBOX_FULL when the receiver's queue is at the cap. */
  async deposit(receiver: string, id: string, text: string, limits: MailboxLimits): Promise<{ duplicate: boolean; queued: number; deposited_at: string; expires_at: string }> {
    await this.sweep(limits, receiver);
    const box = this.boxes.get(receiver);
    const existing = box?.get(id);
    if (existing) return { duplicate: true, queued: box!.size, deposited_at: new Date(existing.depositedAt).toISOString(), expires_at: new Date(existing.depositedAt + limits.ttlMs).toISOString() };
    if ((box?.size ?? 0) >= limits.maxEnvelopes) {
      throw new LoomError('MAILBOX_FULL', `the mailbox of ${receiver} holds ${box?.size ?? 0} envelopes, the cap of this relay; it takes more once its receiver acks some or they expire`);
    }
    const stored: Stored = { id, depositedAt: this.now(), bytes: Buffer.byteLength(text), ...(this.dir === null ? { text } : {}) };
    if (this.dir !== null) {
      await mkdir(this.boxDir(receiver), { recursive: true });
      const path = this.fileOf(receiver, stored);
      await writeFile(`${path}.tmp`, text);
      await rename(`${path}.tmp`, path);
    }
    const target = box ?? new Map<string, Stored>();
    target.set(id, stored);
    this.boxes.set(receiver, target);
    return { duplicate: false, queued: target.size, deposited_at: new Date(stored.depositedAt).toISOString(), expires_at: new Date(stored.depositedAt + limits.ttlMs).toISOString() };
  }

  /** The receiver's oldest envelopes first, up to `limit`, and whether more wait. */
  async list(receiver: string, limit: number, limits: MailboxLimits): Promise<{ envelopes: StoredEnvelope[]; has_more: boolean }> {
    await this.sweep(limits, receiver);
    const all = [...(this.boxes.get(receiver)?.values() ?? [])].sort((a, b) => a.depositedAt - b.depositedAt || (a.id < b.id ? -1 : 1));
    const envelopes: StoredEnvelope[] = [];
    for (const stored of all.slice(0, limit)) {
      let text = stored.text;
      if (text === undefined) {
        try {
          text = await readFile(this.fileOf(receiver, stored), 'utf8');
        } catch {
          continue;
        }
      }
      envelopes.push({ id: stored.id, deposited_at: new Date(stored.depositedAt).toISOString(), expires_at: new Date(stored.depositedAt + limits.ttlMs).toISOString(), text });
    }
    return { envelopes, has_more: all.length > limit };
  }

  /** Deletes the named envelopes of the receiver; unknown ids are ignored (an ack may be repeated). */
  async ack(receiver: string, ids: readonly string[]): Promise<number> {
    const box = this.boxes.get(receiver);
    if (!box) return 0;
    let removed = 0;
    for (const id of ids) {
      const stored = box.get(id);
      if (!stored) continue;
      box.delete(id);
      removed++;
      if (this.dir !== null) await unlink(this.fileOf(receiver, stored)).catch(() => {});
    }
    if (box.size === 0) {
      this.boxes.delete(receiver);
      if (this.dir !== null) await rm(this.boxDir(receiver), { recursive: true, force: true }).catch(() => {});
    }
    return removed;
  }

  /** Per receiver: how many envelopes wait and since when. */
  stats(): Array<{ receiver: string; envelopes: number; oldest_at: string | null }> {
    return [...this.boxes].map(([receiver, box]) => {
      const oldest = Math.min(...[...box.values()].map((s) => s.depositedAt));
      return { receiver, envelopes: box.size, oldest_at: box.size > 0 ? new Date(oldest).toISOString() : null };
    });
  }
}
