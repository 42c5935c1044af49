/**
 * The record reads a graph query makes, already bound to one caller: every
 * read goes through the RecordReader with that caller, so a record it may not
 * see is absent here exactly as a missing one. Queries depend on this narrow
 * interface, not on the reader, so they can be checked against a
 * brute-force reference over plain arrays.
 */
import type { Caller } from '../../core/access/caller.js';
import type { RecordReader } from '../../core/engine/record-reader.js';
import type { PageRequest, RecordPage } from '../../storage/contract/record-store.js';
import type { StoredRecord } from '../../storage/contract/stored-record.js';

export interface GraphReads {
  get(id: string): Promise<StoredRecord | undefined>;
  /** The record stored at `sequence`, if the caller may see it (the fold holds records as sequences). */
  atSequence(sequence: number): Promise<StoredRecord | undefined>;
  listByThread(thread: string, page: PageRequest): Promise<RecordPage>;
  listByActor(actor: string, page: PageRequest): Promise<RecordPage>;
  /** Reserved and plugin control threads: their records are no graph nodes. */
  isSystemThread(thread: string): boolean;
}

export function callerReads(reader: RecordReader, caller: Caller): GraphReads {
  return {
    get: (id) => reader.get(caller, id),
    atSequence: async (sequence) => {
      const [stored] = await reader.changesSince(caller, sequence - 1, 1);
      return stored?.sequence === sequence ? stored : undefined;
    },
    listByThread: (thread, page) => reader.listByThread(caller, thread, page),
    listByActor: (actor, page) => reader.listByActor(caller, actor, page),
    isSystemThread: (thread) => reader.isSystemThread(thread),
  };
}
