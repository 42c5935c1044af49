/**
 * A record as a tool answers it: the fields a model reasons with, and
 * nothing it pays tokens for without use (no clock, data_type, judged_by or
 * signature). `sequence` is what `after` takes to read on from it.
 */
import type { JsonObject } from '../../../core/records/json.js';
import type { StoredRecord } from '../../../storage/contract/stored-record.js';

export interface ToolRecord extends JsonObject {
  id: string;
  thread: string;
  actor: string;
  act: string;
  body: JsonObject;
  parents: string[];
  created_at: string | null;
  sequence: number;
}

export function toolRecord(stored: StoredRecord): ToolRecord {
  const { record } = stored;
  return {
    id: record.id,
    thread: record.thread,
    actor: record.actor,
    act: record.act,
    body: record.body,
    parents: [...record.parents],
    // A store that keeps no receipt time answers 0.
    created_at: stored.createdAt > 0 ? new Date(stored.createdAt).toISOString() : null,
    sequence: stored.sequence,
  };
}

/** `limit` within 1..max, `fallback` when absent: the model pays per token, so lists stay short. */
export function clampLimit(limit: number | undefined, fallback: number, max: number): number {
  return Math.min(max, Math.max(1, Math.floor(limit ?? fallback)));
}
