/**
 * Checkpoints of global folds (`<dir>/<fold>.ckpt`, ./checkpoint-file.ts): a
 * verified resume at start, and saves taken often enough to keep restarts
 * short but seldom enough that serialising (which holds the event loop)
 * stays cheap. The fold engine decides when records are applied; this file
 * decides when and how the state is kept. A checkpoint of the earlier
 * format (`<fold>.json`, one JSON text) is still read, and removed once a
 * new one is saved.
 */
import { mkdirSync } from 'node:fs';
import { readFile, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { chunked, readCheckpointFile, writeCheckpointFile, type CheckpointHeader } from './checkpoint-file.js';
import type { RecordStore } from '../../storage/contract/record-store.js';
import type { GlobalFoldSlot } from './global-fold-slot.js';

/** A checkpoint as read: the fold's state with the sequence it covers. */
interface CheckpointFile extends CheckpointHeader {
  readonly state: unknown;
}

export interface FoldCheckpointOptions {
  /** Where checkpoints are kept; null: never (every start replays the log). */
  readonly dir: string | null;
  /** A checkpoint is rewritten once this many records were applied since the last one. */
  readonly every: number;
  /** ... but at most this often (ms). */
  readonly intervalMs: number;
  readonly onError: (error: unknown, context: string) => void;
}

export class FoldCheckpoints {
  private readonly saving = new Map<string, Promise<void>>();

  constructor(
    private readonly store: RecordStore,
    private readonly options: FoldCheckpointOptions,
  ) {}

  /** Loads a verified checkpoint into the slot; answers why none was used when one existed. */
  async resume(slot: GlobalFoldSlot, storeWatermark: number): Promise<string | null> {
    const codec = slot.fold.checkpoint;
    if (!codec || this.options.dir === null) return null;
    let saved: CheckpointFile;
    try {
      saved = await this.read(slot.fold.name);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      return `unreadable: ${String(error)}`;
    }
    if (saved.fold !== slot.fold.name || saved.version !== codec.version) return `version ${saved.version}, code is at ${codec.version}`;
    if (!Number.isSafeInteger(saved.watermark) || saved.watermark < 0) return 'no valid watermark';
    if (saved.watermark > storeWatermark) return `covers sequence ${saved.watermark}, the log ends at ${storeWatermark}`;
    if (saved.watermark > 0) {
      const atMark = (await this.store.changesSince(saved.watermark - 1, 1))[0];
      if (!atMark || atMark.sequence !== saved.watermark || atMark.record.id !== saved.anchor) return `record ${saved.watermark} is not the one it was taken at (another log)`;
    }
    try {
      slot.state = codec.load(saved.state);
    } catch (error) {
      slot.state = slot.fold.initial(slot.fold.name);
      return `state did not load: ${String(error)}`;
    }
    slot.watermark = saved.watermark;
    slot.anchor = saved.anchor;
    slot.savedWatermark = saved.watermark;
    return null;
  }

  /** The size of the fold's checkpoint file in bytes; null when it has none (or checkpoints are off). */
  async size(slot: GlobalFoldSlot): Promise<number | null> {
    if (!slot.fold.checkpoint || this.options.dir === null) return null;
    try {
      return (await stat(this.file(slot.fold.name))).size;
    } catch {
      return null;
    }
  }

  /** After the start-up replay: a long replay is worth keeping, so the next start resumes from here. */
  worthKeepingAfterReplay(slot: GlobalFoldSlot): boolean {
    return slot.watermark - slot.savedWatermark >= this.options.every / 10;
  }

  /**
   * Serialising holds the event loop (a 1M-verdict trust state takes seconds),
   * so a state that is slow to serialise is saved less often: at most 0.5%
   * of the time goes to periodic checkpoints. Stop and start always save.
   */
  due(slot: GlobalFoldSlot): boolean {
    if (!slot.fold.checkpoint || this.options.dir === null) return false;
    return slot.watermark - slot.savedWatermark >= this.options.every && Date.now() - slot.lastCheckpointAt >= Math.max(this.options.intervalMs, slot.serialiseMs * 200);
  }

  /**
   * Serialises and writes now (so state and watermark agree; the text goes to
   * the page cache a line at a time, never whole in memory), then makes it
   * durable in the background and renames it over the last one, so a crash
   * leaves the previous checkpoint or the new one, never half of one.
   */
  save(slot: GlobalFoldSlot): void {
    const codec = slot.fold.checkpoint;
    const dir = this.options.dir;
    if (!codec || dir === null || this.saving.has(slot.fold.name)) return;
    const target = this.file(slot.fold.name);
    const temporary = `${target}.${process.pid}.tmp`;
    const began = performance.now();
    let durable: Promise<void>;
    try {
      mkdirSync(dir, { recursive: true });
      const header = { fold: slot.fold.name, version: codec.version, watermark: slot.watermark, anchor: slot.anchor, saved_at: new Date().toISOString() };
      ({ durable } = writeCheckpointFile(temporary, header, codec.saveChunks ? chunked(codec.saveChunks(slot.state)) : codec.save(slot.state)));
    } catch (error) {
      this.options.onError(error, `fold ${slot.fold.name}: checkpoint not taken`);
      void rm(temporary, { force: true });
      return;
    }
    slot.serialiseMs = performance.now() - began;
    slot.savedWatermark = slot.watermark;
    slot.lastCheckpointAt = Date.now();
    const write = durable
      .then(() => rename(temporary, target))
      .then(() => rm(this.legacyFile(slot.fold.name), { force: true }))
      .catch((error) => this.options.onError(error, `fold ${slot.fold.name}: checkpoint not written`))
      .finally(() => this.saving.delete(slot.fold.name));
    this.saving.set(slot.fold.name, write);
  }

  /** Waits for every write under way. */
  async flush(): Promise<void> {
    await Promise.all([...this.saving.values()]);
  }

  /** The checkpoint of `name`: the current format, else one of the earlier format; ENOENT when neither exists. */
  private async read(name: string): Promise<CheckpointFile> {
    try {
      const { header, state } = await readCheckpointFile(this.file(name));
      return { ...header, state };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      return JSON.parse(await readFile(this.legacyFile(name), 'utf8')) as CheckpointFile;
    }
  }

  private file(name: string): string {
    return join(this.options.dir!, `${name}.ckpt`);
  }

  /** Where checkpoints were kept before the line format (one JSON text). */
  private legacyFile(name: string): string {
    return join(this.options.dir!, `${name}.json`);
  }
}
