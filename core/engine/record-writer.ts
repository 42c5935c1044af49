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
import { computeRecordId } from '../records/record-id.js';
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

/** One record of a sequence written together (appendSequenceAs): its parents may cite the records before it. */
export interface SequencedWrite {
  readonly act: string;
  readonly body: JsonObject;
  /** Given the ids of the sequence's records before this one, in order. */
  readonly parents: (earlier: readonly string[]) => readonly string[];
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

  /**
   * Writes several records of one actor on one thread in one commit, at the
   * actor's next clocks: all of them are stored, or (a refusal) none after
   * the refused one and an error. Later records may cite earlier ones as
   * parents: the ids are content addresses, computed here before the write.
   */
  async appendSequenceAs(caller: Caller, write: { readonly thread: string; readonly actor?: string; readonly plugin?: string; readonly via?: RecordWrite['via'] }, records: readonly SequencedWrite[]): Promise<IngestResult[]> {
    const actor = write.actor ?? actingDid(caller);
    const via = write.via ?? (caller === SYSTEM ? 'engine' : 'api');
    const context: IngestContext = write.plugin ? { caller, via, plugin: write.plugin } : { caller, via };
    const bodies = await Promise.all(records.map((record) => this.inThreadNamespace(write.thread, record.body)));
    for (let attempt = 1; ; attempt++) {
      const state = (await this.reader.threadFold<ThreadStateValue>(SYSTEM, 'thread_state', write.thread)).value;
      const highest = state.actor_clocks[actor];
      const ids: string[] = [];
      const inputs = records.map((record, index) => {
        const fields = { thread: write.thread, actor, act: record.act, body: bodies[index]!, clock: (highest === undefined ? 0 : highest + 1) + index, data_type: 'SCALAR' as const, parents: [...record.parents(ids)].sort() };
        ids.push(computeRecordId(fields as never));
        return { ...fields, judged_by: null };
      });
      const { results, refusal } = await this.ingestor.ingestPrefix(context, inputs);
      const failed = results.find((result): result is LoomError => result instanceof LoomError) ?? refusal;
      if (!failed) return results as IngestResult[];
      if (failed.code !== 'DUPLICATE_CLOCK' || attempt >= ATTEMPTS || results.some((result) => !(result instanceof LoomError))) throw failed;
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
