/**
 * The ingest journal: an append-only log of accepted records in segment
 * files. A group commit is acknowledged once its frame is written and
 * fdatasync'd here, which is one sequential write; the driver's indexed
 * writes happen later in large batches (JournaledRecordStore's applier). A
 * segment is deleted once every record in it is applied to the driver.
 *
 * Segments are `<directory>/segment-<first sequence, 16 digits>.log`. Only
 * the newest segment can end in a torn frame (a crash mid-write, never
 * acknowledged): it is cut off on open. A bad frame anywhere else means the
 * disk lost acknowledged data, and opening refuses rather than guess.
 */
import { open, mkdir, readdir, readFile, rm, truncate, type FileHandle } from 'node:fs/promises';
import { writeSync } from 'node:fs';
import { join } from 'node:path';
import { LoomError } from '../../../core/errors/loom-error.js';
import type { AcceptedRecord } from './accepted-record.js';
import { encodeFrame, FRAME_MAGICS, readFrame } from './journal-frame.js';

export interface IngestJournalOptions {
  /** Directory of the segment files; created when missing. */
  readonly directory: string;
  /** fdatasync each frame before acknowledging it (durability `full`). */
  readonly sync: boolean;
  /** A new segment starts once the current one reaches this size. @default 64 MiB */
  readonly segmentBytes?: number;
}

/** A torn last frame cut off at open: written when the process died, so never acknowledged. */
export interface TornTail {
  readonly segment: string;
  readonly atByte: number;
  readonly droppedBytes: number;
  readonly reason: string;
}

interface Segment {
  readonly path: string;
  readonly firstSequence: number;
  lastSequence: number;
  bytes: number;
}

const SEGMENT_PATTERN = /^segment-(\d{16})\.log$/;
const DEFAULT_SEGMENT_BYTES = 64 * 1024 * 1024;

function segmentName(firstSequence: number): string {
  return `segment-${String(firstSequence).padStart(16, '0')}.log`;
}

/** fsync a directory so a file created or removed in it survives power loss. */
async function syncDirectory(directory: string): Promise<void> {
  const handle = await open(directory, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Whether an intact frame starts anywhere after `offset` (then the bad bytes at `offset` are not a torn tail). */
function intactFrameAfter(buffer: Buffer, offset: number): boolean {
  for (const value of FRAME_MAGICS) {
    const magic = Buffer.alloc(4);
    magic.writeUInt32BE(value, 0);
    for (let at = buffer.indexOf(magic, offset + 1); at !== -1; at = buffer.indexOf(magic, at + 1)) {
      if (readFrame(buffer, at).kind === 'frame') return true;
    }
  }
  return false;
}

export class IngestJournal {
  /** Oldest first; the last one is open for appends (once one exists). */
  private readonly segments: Segment[] = [];
  private handle: FileHandle | null = null;
  /** Set when a failed write could not be undone: later appends would follow garbage. */
  private broken: Error | null = null;
  private readonly segmentBytes: number;

  /** Segment files currently held. */
  get segmentCount(): number {
    return this.segments.length;
  }

  private constructor(private readonly options: IngestJournalOptions) {
    this.segmentBytes = options.segmentBytes ?? DEFAULT_SEGMENT_BYTES;
  }

  /**
   * Opens the journal and returns every record it holds, in sequence order
   * (the caller applies those its driver does not have yet, then calls
   * `release`). Cuts a torn last frame off the newest segment.
   */
  static async open(options: IngestJournalOptions): Promise<{ journal: IngestJournal; records: AcceptedRecord[]; tornTail: TornTail | null }> {
    const journal = new IngestJournal(options);
    let tornTail: TornTail | null = null;
    await mkdir(options.directory, { recursive: true });
    const names = (await readdir(options.directory)).filter((name) => SEGMENT_PATTERN.test(name)).sort();
    const records: AcceptedRecord[] = [];
    for (const [index, name] of names.entries()) {
      const path = join(options.directory, name);
      const firstSequence = Number(SEGMENT_PATTERN.exec(name)![1]);
      const buffer = await readFile(path);
      let offset = 0;
      let lastSequence = firstSequence - 1;
      for (;;) {
        const read = readFrame(buffer, offset);
        if (read.kind === 'end') break;
        if (read.kind === 'bad') {
          // Frames are written one after another, each after the previous one's fsync, so only the
          // newest segment's last frame can be torn, and nothing intact can follow it.
          if (index !== names.length - 1 || intactFrameAfter(buffer, offset)) {
            throw new LoomError(
              'INTERNAL',
              `ingest journal ${path} is damaged at byte ${offset} (${read.reason}) before its end: acknowledged records may be lost; ` +
                'move the file aside to open the store without it',
            );
          }
          await truncate(path, offset);
          tornTail = { segment: path, atByte: offset, droppedBytes: buffer.length - offset, reason: read.reason };
          break;
        }
        for (const record of read.records) {
          const expected = records.length > 0 ? records[records.length - 1]!.stored.sequence + 1 : record.stored.sequence;
          if (record.stored.sequence !== expected) {
            throw new LoomError('INTERNAL', `ingest journal ${path}: sequence ${record.stored.sequence} follows ${expected - 1}`);
          }
          records.push(record);
          lastSequence = record.stored.sequence;
        }
        offset = read.end;
      }
      // A segment created just before a crash may hold nothing; a new one may take its name.
      if (offset === 0) await rm(path, { force: true });
      else journal.segments.push({ path, firstSequence, lastSequence, bytes: offset });
    }
    return { journal, records, tornTail };
  }

  /** Appends one frame holding `records` (ascending sequences) and, with `sync`, makes it durable. */
  async append(records: readonly AcceptedRecord[]): Promise<void> {
    if (this.broken) throw new LoomError('SERVICE_UNAVAILABLE', `ingest journal unusable after a failed write: ${this.broken.message}`);
    if (records.length === 0) return;
    const frame = encodeFrame(records);
    const first = records[0]!.stored.sequence;
    const last = records[records.length - 1]!.stored.sequence;
    const segment = await this.writableSegment(first);
    const handle = this.handle!;
    try {
      // The frame goes to the page cache with a synchronous write (~30 µs for a group commit's
      // frame): an async write costs as much event-loop time to dispatch on this kind of VM
      // and adds a thread-pool round trip to every acknowledgement's latency. Only the
      // fdatasync, which waits for the disk, goes to the thread pool.
      let written = 0;
      while (written < frame.length) {
        written += writeSync(handle.fd, frame, written, frame.length - written, segment.bytes + written);
      }
      if (this.options.sync) await handle.datasync();
    } catch (error) {
      // Undo the partial frame so the next one does not follow garbage.
      try {
        await handle.truncate(segment.bytes);
        if (this.options.sync) await handle.datasync();
      } catch {
        this.broken = error as Error;
      }
      throw error;
    }
    segment.bytes += frame.length;
    segment.lastSequence = last;
  }

  /** Deletes segments whose records are all applied (sequence ≤ `applied`), except the one open for appends. */
  async release(applied: number): Promise<void> {
    let removed = false;
    while (this.segments.length > 1 && this.segments[0]!.lastSequence <= applied) {
      await rm(this.segments.shift()!.path, { force: true });
      removed = true;
    }
    // With no open handle (just recovered), the newest segment is closed and fully applied too.
    if (!this.handle && this.segments.length === 1 && this.segments[0]!.lastSequence <= applied) {
      await rm(this.segments.shift()!.path, { force: true });
      removed = true;
    }
    if (removed && this.options.sync) await syncDirectory(this.options.directory);
  }

  /** Closes the open segment; with `applied` covering everything, deletes the segments too. */
  async close(applied?: number): Promise<void> {
    const handle = this.handle;
    this.handle = null;
    if (handle) await handle.close();
    if (applied !== undefined) await this.release(applied);
  }

  /** The segment the frame starting at `firstSequence` goes to, starting a new one when needed. */
  private async writableSegment(firstSequence: number): Promise<Segment> {
    const current = this.segments[this.segments.length - 1];
    if (current && this.handle && current.bytes < this.segmentBytes) return current;
    if (this.handle) {
      await this.handle.close();
      this.handle = null;
    }
    const path = join(this.options.directory, segmentName(firstSequence));
    this.handle = await open(path, 'w');
    if (this.options.sync) await syncDirectory(this.options.directory);
    const segment: Segment = { path, firstSequence, lastSequence: firstSequence - 1, bytes: 0 };
    this.segments.push(segment);
    return segment;
  }
}
