/**
 * What a driver stores and returns: the record plus the metadata the store
 * assigns. `sequence` is global, strictly increasing, and is both the fold
 * watermark and the federation cursor.
 */
import type { LoomRecord } from '../../core/records/record.js';

export interface StoredRecord {
  readonly sequence: number;
  /** Receipt time, Unix milliseconds. */
  readonly createdAt: number;
  readonly record: LoomRecord;
}

/** A validated, hashed record ready to store; the engine builds it, drivers persist it. */
export interface PreparedRecord {
  readonly record: LoomRecord;
  /** `body.namespace` when it is a string, else the default namespace. */
  readonly namespace: string;
  /** Receipt time, Unix milliseconds. */
  readonly createdAt: number;
  /**
   * The record's canonical content text when its maker has it (ingest
   * always does: core/records/content-text.ts). A driver embeds it rather
   * than serialising the body again; without it, it is computed.
   */
  readonly content?: string;
}

export type AppendOutcome =
  /** Newly stored. */
  | { readonly status: 'inserted'; readonly stored: StoredRecord }
  /** The same id was already stored: an idempotent resend. */
  | { readonly status: 'exists'; readonly stored: StoredRecord }
  /** Another record already holds this (actor, thread, clock). */
  | { readonly status: 'duplicate_clock'; readonly existing: StoredRecord };

/** The namespace column of a record, derived from its body. */
export function namespaceOf(record: LoomRecord): string {
  const ns = record.body['namespace'];
  return typeof ns === 'string' && ns.length > 0 ? ns : 'default';
}

/** Key of the (actor, thread, clock) uniqueness slot. */
export function clockSlotKey(record: Pick<LoomRecord, 'actor' | 'thread' | 'clock'>): string {
  return `${record.actor}\u0000${record.thread}\u0000${record.clock}`;
}

/** A page of record objects as a serialized page (record-store.ts SerializedRecordPage). */
export function serializePage(items: readonly StoredRecord[], nextAfter: number | null): { sequences: number[]; json: string; nextAfter: number | null } {
  return { sequences: items.map((stored) => stored.sequence), json: items.map((stored) => JSON.stringify(stored.record)).join(','), nextAfter };
}
