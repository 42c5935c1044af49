/**
 * Checkpoints of global folds (`<dir>/<fold>.json`): a verified resume at
 * start, and saves taken often enough to keep restarts short but seldom
 * enough that serialising (which holds the event loop) stays cheap. The fold
 * engine decides when records are applied; this file decides when and how
 * the state is kept.
 */
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { RecordStore } from '../../storage/contract/record-store.js';
import type { GlobalFoldSlot } from './global-fold-slot.js';

/** The file a checkpoint is kept in: the fold's state with the sequence it covers. */
interface CheckpointFile {
  readonly fold: string;
  readonly version: number;
  readonly watermark: number;
  readonly anchor: string | null;
  readonly saved_at: string;
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
      saved = JSON.parse(await readFile(this.file(slot.fold.name), 'utf8')) as CheckpointFile;
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
    return null;
  }

  /** After the start-up replay: a long replay is worth keeping, so the next start resumes from here. */
  worthKeepingAfterReplay(slot: GlobalFoldSlot): boolean {
    return slot.sinceCheckpoint >= this.options.every / 10;
  }

  /**
   * Serialising holds the event loop (a 1M-verdict trust state takes seconds),
   * so a state that is slow to serialise is saved less often: at most 0.5%
   * of the time goes to periodic checkpoints. Stop and start always save.
   */
  due(slot: GlobalFoldSlot): boolean {
    return slot.sinceCheckpoint >= this.options.every && Date.now() - slot.lastCheckpointAt >= Math.max(this.options.intervalMs, slot.serialiseMs * 200);
  }

  /**
   * Serialises now (so state and watermark agree) and writes in the
   * background: temporary file, then rename, so a crash leaves the previous
   * checkpoint or the new one, never half of one.
   */
  save(slot: GlobalFoldSlot): void {
    const codec = slot.fold.checkpoint;
    const dir = this.options.dir;
    if (!codec || dir === null || this.saving.has(slot.fold.name)) return;
    let text: string;
    const began = performance.now();
    try {
      const file: CheckpointFile = { fold: slot.fold.name, version: codec.version, watermark: slot.watermark, anchor: slot.anchor, saved_at: new Date().toISOString(), state: codec.save(slot.state) };
      text = JSON.stringify(file);
    } catch (error) {
      this.options.onError(error, `fold ${slot.fold.name}: checkpoint not taken`);
      return;
    }
    slot.serialiseMs = performance.now() - began;
    slot.sinceCheckpoint = 0;
    slot.lastCheckpointAt = Date.now();
    const target = this.file(slot.fold.name);
    const temporary = `${target}.${process.pid}.tmp`;
    const write = (async () => {
      await mkdir(dir, { recursive: true });
      await writeFile(temporary, text);
      await rename(temporary, target);
    })()
      .catch((error) => this.options.onError(error, `fold ${slot.fold.name}: checkpoint not written`))
      .finally(() => this.saving.delete(slot.fold.name));
    this.saving.set(slot.fold.name, write);
  }

  /** Waits for every write under way. */
  async flush(): Promise<void> {
    await Promise.all([...this.saving.values()]);
  }

  private file(name: string): string {
    return join(this.options.dir!, `${name}.json`);
  }
}
