/**
 * Corrections and cancellations (spec §2.1 body conventions), read the same
 * way by every fold that shows content.
 *
 * A correction is a KNOW with `body.topic === "correction"` and a record id
 * in `body.supersedes`. Folds show the superseded record's content with the
 * correction laid over it: the correction's body less its own markers
 * (`topic`, `supersedes`, `reason`, `kind`, `_v`, `namespace`) replaces the
 * superseded body's top-level keys of the same name; every other key stays.
 * The earlier record stays in the log untouched. Only the superseded
 * record's own actor may correct it: a "correction" by anyone else changes
 * nothing (it is shown as an ordinary record), so no one can put words in
 * another actor's mouth. A correction of a correction corrects the content
 * the first one corrected. A correction cannot be cancelled; correct again.
 *
 * A cancellation is a DO with a record id in `body.cancels`; it marks the
 * target cancelled. Anyone may cancel (as thread_state always allowed: who
 * may write a cancellation is a permission rule's business, at ingest).
 * Cancelling a cancellation withdraws it.
 */
import type { JsonObject } from '../records/json.js';
import type { LoomRecord } from '../records/record.js';
import { isRecordId } from '../records/record-id.js';

export const CORRECTION_TOPIC = 'correction';

/** Keys of a correction's body that describe the correction itself, never laid over the content. */
export const CORRECTION_MARKERS: readonly string[] = ['topic', 'supersedes', 'reason', 'kind', '_v', 'namespace'];

/** The id a correction supersedes, or null when the record is no correction. */
export function supersededBy(record: LoomRecord): string | null {
  if (record.act !== 'KNOW' || record.body['topic'] !== CORRECTION_TOPIC) return null;
  const target = record.body['supersedes'];
  return isRecordId(target) ? target : null;
}

/** The id a cancellation cancels, or null when the record is no cancellation. */
export function cancelledBy(record: LoomRecord): string | null {
  if (record.act !== 'DO') return null;
  const target = record.body['cancels'];
  return isRecordId(target) ? target : null;
}

/** The fields a correction sets: its body less its markers. */
export function correctionFields(correction: LoomRecord): JsonObject {
  const fields: JsonObject = {};
  for (const [key, value] of Object.entries(correction.body)) if (!CORRECTION_MARKERS.includes(key)) fields[key] = value;
  return fields;
}

/** `body` with the correction laid over it (a new object; neither input is changed). */
export function correctedBody(body: JsonObject, correction: LoomRecord): JsonObject {
  return { ...body, ...correctionFields(correction) };
}

/** May `correction` correct a record written by `targetActor`? Only its own actor may. */
export function mayCorrect(correction: LoomRecord, targetActor: string): boolean {
  return correction.actor === targetActor;
}
