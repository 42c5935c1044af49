/**
 * The ingest journal's on-disk frame: one frame per group commit, written
 * with one write() and made durable with one fdatasync before any of its
 * records is acknowledged.
 *
 *   magic "LMJ2" (4 bytes) | payload length (u32 BE) | CRC-32 of payload (u32 BE) | payload
 *
 * The payload is UTF-8 JSON: an array of entries, each
 * `[sequence, createdAt, namespace, id, judged_by, content]`, where content
 * is the record's canonical content text (core/records/content-text.ts, the
 * bytes its id hashes) written in place, not serialised again.
 *
 * Frames of the first format, magic "LMJ1" with entries
 * `[sequence, createdAt, namespace, id, parents, thread, actor, act, body, clock, data_type, judged_by]`,
 * are still read: a journal written before an upgrade may hold records the
 * driver has not applied yet.
 *
 * A crash can tear only the last frame written (frames are written one
 * after another, each after the previous one's fsync), so a reader stops at
 * the first frame that is short or fails its checksum.
 */
import { crc32 } from 'node:zlib';
import type { Act } from '../../../core/records/acts.js';
import type { DataType } from '../../../core/records/data-types.js';
import type { JsonObject } from '../../../core/records/json.js';
import { contentText } from '../../../core/records/content-text.js';
import { makeRecord, type RecordFields } from '../../../core/records/record.js';
import type { AcceptedRecord } from './accepted-record.js';

/** The magic frames are written with. */
export const FRAME_MAGIC = 0x4c4d4a32; // "LMJ2"
/** The first format's magic, still read. */
export const FRAME_MAGIC_V1 = 0x4c4d4a31; // "LMJ1"
/** Both magics, for a scan looking for the next frame. */
export const FRAME_MAGICS: readonly number[] = [FRAME_MAGIC, FRAME_MAGIC_V1];
export const FRAME_HEADER_BYTES = 12;

type EntryV1 = [number, number, string, string, string[], string, string, string, JsonObject, number, string, string | null];
type Content = Omit<RecordFields, 'judged_by'>;
type Entry = [number, number, string, string, string | null, Content];

/** One entry's JSON text: the store's own fields, then the content text spliced in as it is. */
function entryJson(accepted: AcceptedRecord): string {
  const { stored, namespace } = accepted;
  const r = stored.record;
  // Written by hand: a JSON.stringify of a small array per entry cost more than the body it saves.
  // The sequence and time are integers and the id is 64 hex digits: none needs escaping.
  return `[${stored.sequence},${stored.createdAt},${JSON.stringify(namespace)},"${r.id}",${r.judged_by === null ? 'null' : JSON.stringify(r.judged_by)},${contentText({ record: r, content: accepted.content })}]`;
}

export function encodeFrame(records: readonly AcceptedRecord[]): Buffer {
  let json = '[';
  for (let i = 0; i < records.length; i++) json += (i === 0 ? '' : ',') + entryJson(records[i]!);
  json += ']';
  // The JSON is encoded straight into the frame, after the header: no intermediate payload buffer.
  const length = Buffer.byteLength(json, 'utf8');
  const frame = Buffer.allocUnsafe(FRAME_HEADER_BYTES + length);
  frame.write(json, FRAME_HEADER_BYTES, 'utf8');
  frame.writeUInt32BE(FRAME_MAGIC, 0);
  frame.writeUInt32BE(length, 4);
  frame.writeUInt32BE(crc32(frame.subarray(FRAME_HEADER_BYTES)), 8);
  return frame;
}

function fromEntry([sequence, createdAt, namespace, id, judged_by, content]: Entry): AcceptedRecord {
  const { parents, thread, actor, act, body, clock, data_type } = content;
  return { stored: { sequence, createdAt, record: makeRecord(id, { parents, thread, actor, act, body, clock, data_type, judged_by }) }, namespace };
}

function fromEntryV1([sequence, createdAt, namespace, id, parents, thread, actor, act, body, clock, data_type, judged_by]: EntryV1): AcceptedRecord {
  return { stored: { sequence, createdAt, record: makeRecord(id, { parents, thread, actor, act: act as Act, body, clock, data_type: data_type as DataType, judged_by }) }, namespace };
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
  const magic = buffer.readUInt32BE(offset);
  if (magic !== FRAME_MAGIC && magic !== FRAME_MAGIC_V1) return { kind: 'bad', reason: 'no frame magic' };
  const length = buffer.readUInt32BE(offset + 4);
  const start = offset + FRAME_HEADER_BYTES;
  const end = start + length;
  if (end > buffer.length) return { kind: 'bad', reason: 'truncated frame payload' };
  const payload = buffer.subarray(start, end);
  if (crc32(payload) !== buffer.readUInt32BE(offset + 8)) return { kind: 'bad', reason: 'checksum mismatch' };
  let entries: unknown;
  try {
    entries = JSON.parse(payload.toString('utf8'));
  } catch {
    return { kind: 'bad', reason: 'payload is not JSON' };
  }
  if (!Array.isArray(entries)) return { kind: 'bad', reason: 'payload is not an array' };
  const records = magic === FRAME_MAGIC ? (entries as Entry[]).map(fromEntry) : (entries as EntryV1[]).map(fromEntryV1);
  return { kind: 'frame', records, end };
}
