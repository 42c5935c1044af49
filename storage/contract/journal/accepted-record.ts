/**
 * A record the store has accepted: sequenced, and durable in the ingest
 * journal (or already in the driver), with the namespace column it is stored
 * under. Drivers receive these to apply; readers see only `stored`.
 */
import type { StoredRecord } from '../stored-record.js';

export interface AcceptedRecord {
  readonly stored: StoredRecord;
  readonly namespace: string;
  /** PreparedRecord.content, carried until the driver has applied the record. */
  readonly content?: string;
  /** `clockSlotKey` of the record when the group commit made it (the unapplied tail keys by it rather than build it again). */
  readonly slot?: string;
}
