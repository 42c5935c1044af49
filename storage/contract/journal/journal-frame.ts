/**
 * The ingest journal's on-disk frame: one frame per group commit, written
 * with one write() and made durable with one fdatasync before any of its
 * records is acknowledged.
 *
 *   magic "LMJ1" (4 bytes) | payload length (u32 BE) | CRC-32 of payload (u32 BE) | payload
 *
 * The payload is UTF-8 JSON: an array of entries, each
 * `[sequence, createdAt, namespace, id, parents, thread, actor, act, body, clock, data_type, judged_by]`.
 * A crash can tear only the last frame written (frames are written one
 * after another, each after the previous one's fsync), so a reader stops at
 * the first frame that is short or fails its checksum.
 */
import { crc32 } from 'node:zlib';
import type { Act } from '../../../core/records/acts.js';
import type { DataType } from '../../../core/records/data-types.js';
import type { JsonObject } from '../../../core/records/json.js';
import { makeRecord } from '../../../core/records/record.js';
import type { AcceptedRecord } from './accepted-record.js';

export const FRAME_MAGIC = 0x4c4d4a31; // "LMJ1"
export const FRAME_HEADER_BYTES = 12;

type EntryTuple = [number, number, string, string, string[], string, string, string, JsonObject, number, string, string | null];

export function encodeFrame(records: readonly AcceptedRecord[]): Buffer {
  const tuples: EntryTuple[] = records.map(({ stored, namespace }) => {
    const r = stored.record;
    return [stored.sequence, stored.createdAt, namespace, r.id, r.parents, r.thread, r.actor, r.act, r.body, r.clock, r.data_type, r.judged_by];
  });
  // The JSON is encoded straight into the frame, after the header: no intermediate payload buffer.
  const json = JSON.stringify(tuples);
  const length = Buffer.byteLength(json, 'utf8');
  const frame = Buffer.allocUnsafe(FRAME_HEADER_BYTES + length);
  frame.write(json, FRAME_HEADER_BYTES, 'utf8');
  frame.writeUInt32BE(FRAME_MAGIC, 0);
  frame.writeUInt32BE(length, 4);
  frame.writeUInt32BE(crc32(frame.subarray(FRAME_HEADER_BYTES)), 8);
  return frame;
}

export type FrameRead =
  | { readonly kind: 'frame'; readonly records: AcceptedRecord[]; readonly end: number }
  | { readonly kind: 'end' }
  /** The bytes at `offset` are not a whole, intact frame. */
  | { readonly kind: 'bad'; readonly reason: string };

/** Reads the frame starting at `offset` of `buffer`. */
export function readFrame(buffer: Buffer, offset: number): FrameRead {
  if (offset === buffer.length) return { kind: 'end' };
  if (buffer.length - offset < FRAME_HEADER_BYTES) return { kind: 'bad', reason: 'truncated frame header' };
  if (buffer.readUInt32BE(offset) !== FRAME_MAGIC) return { kind: 'bad', reason: 'no frame magic' };
  const length = buffer.readUInt32BE(offset + 4);
  const start = offset + FRAME_HEADER_BYTES;
  const end = start + length;
  if (end > buffer.length) return { kind: 'bad', reason: 'truncated frame payload' };
  const payload = buffer.subarray(start, end);
  if (crc32(payload) !== buffer.readUInt32BE(offset + 8)) return { kind: 'bad', reason: 'checksum mismatch' };
  let tuples: EntryTuple[];
  try {
    tuples = JSON.parse(payload.toString('utf8')) as EntryTuple[];
  } catch {
    return { kind: 'bad', reason: 'payload is not JSON' };
  }
  if (!Array.isArray(tuples)) return { kind: 'bad', reason: 'payload is not an array' };
  const records = tuples.map(([sequence, createdAt, namespace, id, parents, thread, actor, act, body, clock, data_type, judged_by]) => ({
    stored: {
      sequence,
      createdAt,
      record: makeRecord(id, { parents, thread, actor, act: act as Act, body, clock, data_type: data_type as DataType, judged_by }),
    },
    namespace,
  }));
  return { kind: 'frame', records, end };
}
