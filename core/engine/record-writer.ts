/**
 * The one way to write a record as someone: as the DID the caller acts as
 * (or a named actor), at that actor's next clock on the thread, through the
 * same ingest door and gates as POST /v1/records. A concurrent write that
 * takes the clock first (DUPLICATE_CLOCK) is retried at the next one. The
 * fixed fields are fixed here (data_type SCALAR, judged_by null, parents
 * sorted). A body that names no namespace lands in its thread's (the
 * namespace of the thread's first record): a thread holds records of one
 * namespace. Routes, plugins and the engine's own loops all write through it.
 */
import { actingDid, SYSTEM, type Caller } from '../access/caller.js';
import type { IngestContext, IngestVia } from '../access/ingest-gate.js';
import { token } from '../di/token.js';
import { LoomError } from '../errors/loom-error.js';
import type { ThreadStateValue } from '../folds/thread-state.js';
import type { JsonObject } from '../records/json.js';
import { isReservedThread } from '../records/reserved-threads.js';
import type { Ingestor, IngestResult } from './ingest.js';
import type { RecordReader } from './record-reader.js';

export interface RecordWrite {
  readonly thread: string;
  readonly act: string;
  readonly body: JsonObject;
  readonly parents?: readonly string[];
  /** @default actingDid(caller) */
  readonly actor?: string;
  /** The plugin writing from one of its routes or loops (IngestContext.plugin). */
  readonly plugin?: string;
  /** The door. @default 'engine' for the SYSTEM caller, else 'api' */
  readonly via?: Extract<IngestVia, 'api' | 'engine'>;
}

/** Writes taken by a concurrent writer before this one gives up with DUPLICATE_CLOCK. */
const ATTEMPTS = 5;

export class RecordWriter {
  constructor(
    private readonly ingestor: Ingestor,
    private readonly reader: RecordReader,
  ) {}

  async appendAs(caller: Caller, write: RecordWrite): Promise<IngestResult> {
    const actor = write.actor ?? actingDid(caller);
    const via = write.via ?? (caller === SYSTEM ? 'engine' : 'api');
    const context: IngestContext = write.plugin ? { caller, via, plugin: write.plugin } : { caller, via };
    const body = await this.inThreadNamespace(write.thread, write.body);
    const parents = [...(write.parents ?? [])].sort();
    for (let attempt = 1; ; attempt++) {
      // The clock is the actor's own, read whole (not through the caller's view, which could hide the actor's records).
      const state = (await this.reader.threadFold<ThreadStateValue>(SYSTEM, 'thread_state', write.thread)).value;
      const highest = state.actor_clocks[actor];
      try {
        return await this.ingestor.ingest(context, { thread: write.thread, actor, act: write.act, body, clock: highest === undefined ? 0 : highest + 1, data_type: 'SCALAR', parents, judged_by: null });
      } catch (error) {
        if (!(error instanceof LoomError) || error.code !== 'DUPLICATE_CLOCK' || attempt >= ATTEMPTS) throw error;
      }
    }
  }

  /** `body` with its thread's namespace when it names none and the thread has one other than default. */
  private async inThreadNamespace(thread: string, body: JsonObject): Promise<JsonObject> {
    if (body['namespace'] !== undefined || isReservedThread(thread)) return body;
    // The ingestor's cache of thread namespaces (the thread's, whatever part of it the caller may see): no store read once known.
    const namespace = (await this.ingestor.threadNamespace(thread)) ?? 'default';
    return namespace === 'default' ? body : { ...body, namespace };
  }
}

export const RecordWriterToken = token<RecordWriter>('core.RecordWriter');
