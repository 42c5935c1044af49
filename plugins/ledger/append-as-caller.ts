/**
 * Writes a record for a route's caller: as the DID the caller acts as (its
 * X-Service-Actor claim, else its principal; `did:sync:user:operator` for a
 * local caller while enforcement is off), at that actor's next clock on the
 * thread, through the same ingest door and gates as POST /v1/records. A
 * concurrent write that takes the clock first is retried at the next one.
 */
import { SYSTEM, type Caller } from '../../core/access/caller.js';
import type { Ingestor, IngestResult } from '../../core/engine/ingest.js';
import type { RecordReader } from '../../core/engine/record-reader.js';
import { LoomError } from '../../core/errors/loom-error.js';
import type { ThreadStateValue } from '../../core/folds/thread-state.js';
import type { JsonObject } from '../../core/records/json.js';

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
  for (let attempt = 1; ; attempt++) {
    // The clock is the actor's own, read whole (not through the caller's view, which could hide the actor's records).
    const state = (await reader.threadFold<ThreadStateValue>(SYSTEM, 'thread_state', write.thread)).value;
    const highest = state.actor_clocks[actor];
    try {
      return await ingestor.ingest(
        write.plugin ? { caller, via: 'api', plugin: write.plugin } : { caller, via: 'api' },
        { thread: write.thread, actor, act: write.act, body: write.body, clock: highest === undefined ? 0 : highest + 1, data_type: 'SCALAR', parents: [...(write.parents ?? [])].sort(), judged_by: null },
      );
    } catch (error) {
      if (!(error instanceof LoomError) || error.code !== 'DUPLICATE_CLOCK' || attempt >= ATTEMPTS) throw error;
    }
  }
}
