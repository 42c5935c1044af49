/**
 * Blob garbage collection. Content is live while a file node of any
 * namespace's current tree (the whole `data_fs` fold, not a caller's view)
 * holds its hash: that is every way bytes are read (a bearer read needs a
 * visible file holding the hash, a signed URL a file of any namespace, search
 * and the work tools read current files). Older versions are not readable by
 * hash, so they are not references. Anything else in the blob store is
 * reclaimable, and is deleted once it has been seen unreferenced for the
 * grace period (`blobGraceSeconds`).
 *
 * Grace is measured from the first run that found the content unreferenced
 * (kept in `<plugin dir>/blob-gc.json`, or in a slot of a shared store, so a
 * restart or a new leader does not start it again; a lost file only starts
 * it later). Before each deletion the store's per-hash turn re-checks the
 * reference against the fold as it is then (on a shared log, once the fold
 * has caught up with every record committed before the check) and skips a
 * hash held by a completing upload (storage/contract/blob-store.ts), so
 * content a record is being written for, or was written for since the scan,
 * keeps its bytes. A crash mid-run leaves some unreferenced blobs deleted and
 * others not: never a node without its bytes.
 *
 * A filesystem store is per server (even on a shared log), so each server
 * collects its own and the loop is not a singleton; a shared store (the
 * PostgreSQL driver) is collected by the leader only, and runs of one store
 * take turns across servers (`exclusive`).
 */
import { readFile, rename, writeFile } from 'node:fs/promises';
import { token } from '../../core/di/token.js';
import type { BlobStore } from '../../storage/contract/blob-store.js';
import type { DataState } from './data-fold.js';

export interface LastCollection {
  readonly at: string;
  readonly grace_seconds: number;
  readonly collected_blobs: number;
  readonly freed_bytes: number;
}

export interface CollectionReport extends LastCollection {
  readonly object: 'data_gc';
  readonly scanned_blobs: number;
  /** Why the rest stayed: a file holds it, its grace has not passed, an upload completing with it holds it. */
  readonly kept: { readonly live: number; readonly within_grace: number; readonly held: number };
  /** Unreferenced bytes still stored after this run (within their grace, or held). */
  readonly reclaimable_bytes: number;
}

export interface BlobStoreUsage {
  /** `server`: this server's own directory; `shared`: the store every server of the log reads. */
  readonly scope: 'server' | 'shared';
  readonly blobs: number;
  readonly stored_bytes: number;
  readonly live_bytes: number;
  readonly reclaimable_blobs: number;
  readonly reclaimable_bytes: number;
  readonly grace_seconds: number;
  readonly collect_interval_seconds: number;
  readonly last_collection: LastCollection | null;
}

export interface BlobCollectorDeps {
  readonly blobs: BlobStore;
  /** The data fold's whole state as it is now. */
  readonly dataState: () => DataState;
  /** `<plugin dir>/blob-gc.json`. */
  readonly stateFile: string;
  /** Shared stores: where the collector's state is kept instead of stateFile, so the next leader continues it. */
  readonly slots?: { readSlot(name: string): Promise<string | null>; writeSlot(name: string, value: string | null): Promise<void> } | null;
  /** Shared logs: resolves once the data fold has every record committed before the call. */
  readonly caughtUp?: (() => Promise<void>) | null;
  /** Content open upload sessions are made of (shared sessions keep their chunks as blobs): kept like live content. */
  readonly pinned?: (() => Promise<ReadonlySet<string>>) | null;
  /** Shared stores: runs `work` while no other server collects the same store. */
  readonly exclusive?: (<T>(work: () => Promise<T>) => Promise<T>) | null;
  readonly graceSeconds: number;
  readonly intervalSeconds: number;
  readonly now: () => number;
}

interface SavedState {
  readonly version: 1;
  readonly unreferenced_since: Record<string, number>;
  readonly last_collection: LastCollection | null;
}

/** Whether a file of any namespace holds `hash`. */
export function isReferenced(state: DataState, hash: string): boolean {
  for (const tree of state.namespaces.values()) if (tree.contents.has(hash)) return true;
  return false;
}

function referencedHashes(state: DataState): Set<string> {
  const out = new Set<string>();
  for (const tree of state.namespaces.values()) for (const hash of tree.contents.keys()) out.add(hash);
  return out;
}

const STATE_SLOT = 'data-plane:blob-gc';

export class BlobCollector {
  /** When each unreferenced blob was first found unreferenced (Unix ms). */
  private readonly since = new Map<string, number>();
  private last: LastCollection | null = null;
  /** Runs one at a time (the interval and the operator's route). */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly deps: BlobCollectorDeps) {}

  /** Reads what the previous run kept; an unreadable file only starts every grace again. */
  async open(): Promise<void> {
    try {
      const text = this.deps.slots ? await this.deps.slots.readSlot(STATE_SLOT) : await readFile(this.deps.stateFile, 'utf8');
      if (text === null) return;
      const saved = JSON.parse(text) as SavedState;
      if (saved.version !== 1) return;
      this.since.clear();
      for (const [hash, at] of Object.entries(saved.unreferenced_since)) if (typeof at === 'number') this.since.set(hash, at);
      this.last = saved.last_collection;
    } catch {
      // Absent or torn: every unreferenced blob's grace starts at the next run.
    }
  }

  /** Collects what has been unreferenced for `graceSeconds` (default: the configured grace). */
  collect(graceSeconds = this.deps.graceSeconds): Promise<CollectionReport> {
    const exclusive = this.deps.exclusive;
    const job = () => (exclusive ? exclusive(() => this.run(graceSeconds)) : this.run(graceSeconds));
    const run = this.queue.then(job, job);
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async run(graceSeconds: number): Promise<CollectionReport> {
    const { blobs, dataState } = this.deps;
    // A shared store: another server may have collected since, so its state is read again.
    if (this.deps.slots) await this.open();
    const sizes = new Map<string, number>();
    for await (const { hash, size } of blobs.list()) sizes.set(hash, size);
    const now = this.deps.now();
    const live = referencedHashes(dataState());
    for (const hash of (await this.deps.pinned?.()) ?? []) live.add(hash);
    for (const hash of [...this.since.keys()]) if (!sizes.has(hash) || live.has(hash)) this.since.delete(hash);
    const kept = { live: 0, within_grace: 0, held: 0 };
    let collected = 0;
    let freed = 0;
    let reclaimable = 0;
    const entries = [...sizes];
    for (const [hash, size] of entries) {
      if (live.has(hash)) {
        kept.live++;
        continue;
      }
      let first = this.since.get(hash);
      if (first === undefined) this.since.set(hash, (first = now));
      if (now - first < graceSeconds * 1000) {
        kept.within_grace++;
        reclaimable += size;
        continue;
      }
      // Re-checked in the hash's turn, against the fold as it is at the unlink: a write since the scan keeps it.
      const gone = await blobs.remove(hash, async () => {
        await this.deps.caughtUp?.();
        if (isReferenced(dataState(), hash)) return false;
        return !((await this.deps.pinned?.())?.has(hash) ?? false);
      });
      if (gone === null) {
        if (isReferenced(dataState(), hash)) {
          this.since.delete(hash);
          kept.live++;
        } else if ((await blobs.stat(hash)) !== null) {
          kept.held++;
          reclaimable += size;
        }
        continue;
      }
      this.since.delete(hash);
      collected++;
      freed += gone;
    }
    this.last = { at: new Date(now).toISOString(), grace_seconds: graceSeconds, collected_blobs: collected, freed_bytes: freed };
    await this.save();
    return { object: 'data_gc', ...this.last, scanned_blobs: entries.length, kept, reclaimable_bytes: reclaimable };
  }

  /** What the blob store holds: live (some file holds it) and reclaimable bytes. */
  async usage(): Promise<BlobStoreUsage> {
    if (this.deps.slots) await this.open();
    const live = referencedHashes(this.deps.dataState());
    let blobs = 0;
    let stored = 0;
    let liveBytes = 0;
    let reclaimableBlobs = 0;
    for await (const { hash, size } of this.deps.blobs.list()) {
      blobs++;
      stored += size;
      if (live.has(hash)) liveBytes += size;
      else reclaimableBlobs++;
    }
    return {
      scope: this.deps.blobs.shared ? 'shared' : 'server',
      blobs,
      stored_bytes: stored,
      live_bytes: liveBytes,
      reclaimable_blobs: reclaimableBlobs,
      reclaimable_bytes: stored - liveBytes,
      grace_seconds: this.deps.graceSeconds,
      collect_interval_seconds: this.deps.intervalSeconds,
      last_collection: this.last,
    };
  }

  /** Atomic (rename), not fsynced: a lost file only starts the graces again, later. */
  private async save(): Promise<void> {
    const saved: SavedState = { version: 1, unreferenced_since: Object.fromEntries(this.since), last_collection: this.last };
    if (this.deps.slots) return this.deps.slots.writeSlot(STATE_SLOT, JSON.stringify(saved));
    const temporary = `${this.deps.stateFile}.tmp`;
    await writeFile(temporary, JSON.stringify(saved));
    await rename(temporary, this.deps.stateFile);
  }
}

export const BlobCollectorToken = token<BlobCollector>('data-plane.BlobCollector');
