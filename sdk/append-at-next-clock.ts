/**
 * Writing a record at its actor's next clock on a thread, as a client does
 * it (the server's own writes go through the kernel's RecordWriter): the
 * clock is one more than the actor's highest in the thread state (GET
 * /v1/threads/{id}/state, as the caller sees it), 0 for the actor's first
 * record there. When a concurrent write takes that clock first, the server
 * answers 409 DUPLICATE_CLOCK and the state is read again for the clock
 * after it, a few times, so two writers racing on one thread both land.
 */
import type * as operations from './gen/sdk.gen.js';
import type { RecordInput } from './gen/types.gen.js';

/** The generated operations this helper calls (a LoomClient has them all). */
export type NextClockClient = Pick<typeof operations, 'getThreadState' | 'ingestRecord'>;

/** A record to write, without the clock (chosen here) and the id (computed by the server). */
export type RecordDraft = Omit<RecordInput, 'clock' | 'id'>;

export interface AppendAtNextClockOptions {
  /** Writes tried before a DUPLICATE_CLOCK answer is handed back. @default 5 */
  readonly attempts?: number;
}

type IngestResult = Awaited<ReturnType<typeof operations.ingestRecord<false>>>;
type ThreadStateResult = Awaited<ReturnType<typeof operations.getThreadState<false>>>;

/**
 * The answer of the last request made, as the generated client gives it:
 * the write's (201 stored, 200 already stored, or its refusal), or the
 * thread state's refusal when the clock could not be read.
 */
export type AppendAtNextClockResult = IngestResult | Extract<ThreadStateResult, { data: undefined }>;

const isDuplicateClock = (result: IngestResult): boolean => result.response?.status === 409 && (result.error as { code?: unknown } | undefined)?.code === 'DUPLICATE_CLOCK';

export async function appendAtNextClock(client: NextClockClient, draft: RecordDraft, options: AppendAtNextClockOptions = {}): Promise<AppendAtNextClockResult> {
  const attempts = options.attempts ?? 5;
  for (let attempt = 1; ; attempt++) {
    const state = await client.getThreadState({ path: { id: draft.thread } });
    if (state.data === undefined) return state as Extract<ThreadStateResult, { data: undefined }>;
    const highest = state.data.value.actor_clocks[draft.actor];
    const written = await client.ingestRecord({ body: { ...draft, clock: highest === undefined ? 0 : highest + 1 } });
    if (attempt >= attempts || !isDuplicateClock(written)) return written;
  }
}
