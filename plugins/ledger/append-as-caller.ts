/**
 * Writes a record for a route's caller: as the DID the caller acts as (its
 * X-Service-Actor claim, else its principal; `did:sync:user:operator` for a
 * local caller while enforcement is off), at that actor's next clock on the
 * thread, through the same ingest door and gates as POST /v1/records. A
 * concurrent write that takes the clock first is retried at the next one.
 * A body that names no namespace lands in its thread's (the namespace of the
 * thread's first record): a thread holds records of one namespace.
 */
import { SYSTEM, type Caller } from '../../core/access/caller.js';
import type { Ingestor, IngestResult } from '../../core/engine/ingest.js';
import type { RecordReader } from '../../core/engine/record-reader.js';
import { LoomError } from '../../core/errors/loom-error.js';
import type { ThreadStateValue } from '../../core/folds/thread-state.js';
import type { JsonObject } from '../../core/records/json.js';
import { isReservedThread } from '../../core/records/reserved-threads.js';
import { namespaceOf } from '../../storage/contract/stored-record.js';

/** The actor of writes by a local caller (no credential, enforcement off). */
export const LOCAL_OPERATOR_DID = 'did:sync:user:operator';

export function actingDid(caller: Caller): string {
  return caller.actor ?? caller.principal ?? LOCAL_OPERATOR_DID;
}

export interface CallerWrite {
  readonly thread: string;
  readonly act: string;
  readonly body: JsonObject;
  readonly parents?: readonly string[];
  /** Defaults to actingDid(caller). */
  readonly actor?: string;
  /** The plugin writing from one of its routes (IngestContext.plugin). */
  readonly plugin?: string;
}

const ATTEMPTS = 5;

export async function appendAsCaller(ingestor: Ingestor, reader: RecordReader, caller: Caller, write: CallerWrite): Promise<IngestResult> {
  const actor = write.actor ?? actingDid(caller);
  const body = await inThreadNamespace(reader, write.thread, write.body);
  for (let attempt = 1; ; attempt++) {
    // The clock is the actor's own, read whole (not through the caller's view, which could hide the actor's records).
    const state = (await reader.threadFold<ThreadStateValue>(SYSTEM, 'thread_state', write.thread)).value;
    const highest = state.actor_clocks[actor];
    try {
      return await ingestor.ingest(
        write.plugin ? { caller, via: 'api', plugin: write.plugin } : { caller, via: 'api' },
        { thread: write.thread, actor, act: write.act, body, clock: highest === undefined ? 0 : highest + 1, data_type: 'SCALAR', parents: [...(write.parents ?? [])].sort(), judged_by: null },
      );
    } catch (error) {
      if (!(error instanceof LoomError) || error.code !== 'DUPLICATE_CLOCK' || attempt >= ATTEMPTS) throw error;
    }
  }
}

/** `body` with its thread's namespace when it names none and the thread has one other than default. */
async function inThreadNamespace(reader: RecordReader, thread: string, body: JsonObject): Promise<JsonObject> {
  if (body['namespace'] !== undefined || isReservedThread(thread)) return body;
  // Read whole: the namespace is the thread's, whatever part of it the caller may see.
  const first = (await reader.listByThread(SYSTEM, thread, { limit: 1 })).items[0];
  const namespace = first ? namespaceOf(first.record) : 'default';
  return namespace === 'default' ? body : { ...body, namespace };
}
