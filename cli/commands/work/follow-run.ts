/**
 * Follows a run's records through its event stream (GET
 * /v1/work/loop/{thread}/stream, the SDK's streamWorkLoop) until the run's
 * outcome lands. A stream that drops or ends before the outcome (the server
 * restarted, a proxy cut an idle connection, the server's "feed
 * interrupted" event) is reopened with Last-Event-ID set to the last record
 * seen, so no record is shown twice or skipped. The generated client's own
 * retry counts attempts over the whole stream and never reopens a stream
 * that ended cleanly, so each connection here is one attempt and the retry
 * loop is this one: backoff doubling from 250 ms to 5 s, reset by a
 * connection the server answered, given up after MAX_FAILURES attempts in a
 * row that got no answer. Between those, the status door (GET /v1/work/loop/{thread}) is
 * asked, because an SSE refusal reaches the generated client only as a bare
 * status: its answer carries the server's code (NOT_FOUND, AUTH_REQUIRED).
 */
import { CliError } from '../../../command/cli-error.js';
import type { Record as LoomRecord } from '../../../sdk/index.js';
import { call, type ClientContext } from '../../kit/context.js';

const KIND_RUN = 'core.work.run.v1';
const KIND_LOOP_OUTCOME = 'core.work.loop_outcome.v1';
const MAX_FAILURES = 8;
const FIRST_BACKOFF_MS = 250;
const MAX_BACKOFF_MS = 5_000;

export interface FollowOptions {
  readonly thread: string;
  /** The run's actor, whose outcome record ends the run; null: learnt from the opening record (then `after` must precede it). */
  readonly actor: string | null;
  /** Deliver records with a sequence greater than this. */
  readonly after: number;
  /** Stops following (the caller quits); the promise then resolves with null. @default never */
  readonly signal?: AbortSignal;
  onRecord(sequence: number, record: LoomRecord): void;
}

export interface FollowedOutcome {
  readonly sequence: number;
  readonly record: LoomRecord;
}

interface SseEvent {
  readonly event?: string;
  readonly id?: string;
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}

export async function followRun(ctx: ClientContext, options: FollowOptions): Promise<FollowedOutcome | null> {
  const { thread } = options;
  const signal = options.signal ?? new AbortController().signal;
  let actor = options.actor;
  let after = options.after;
  let reopened = false;
  let failures = 0;
  let lastFailure: unknown = null;
  while (!signal.aborted) {
    const connection = new AbortController();
    const stop = () => connection.abort();
    signal.addEventListener('abort', stop, { once: true });
    let current: SseEvent = {};
    // Any event (the greeting, a heartbeat) shows the server answered: only connections that never did count as failures.
    let connected = false;
    try {
      const { stream } = await ctx.client.streamWorkLoop({
        path: { thread },
        // The first connection starts after a sequence; a reconnection resumes from the last event seen.
        ...(reopened ? { headers: { 'Last-Event-ID': String(after) } } : { query: { after: String(after) } }),
        signal: connection.signal,
        sseMaxRetryAttempts: 1,
        onSseEvent: (event) => {
          current = event;
          connected = true;
        },
        onSseError: (error) => {
          lastFailure = error;
        },
      });
      for await (const data of stream) {
        const event = current;
        if (event.event === 'error') {
          lastFailure = new Error((data as { message?: string })?.message ?? 'the server interrupted the feed');
          break;
        }
        if (event.event !== 'record' || event.id === undefined) continue;
        const sequence = Number(event.id);
        // Last-Event-ID promises no duplicate; this keeps the promise if a server breaks it.
        if (!(sequence > after)) continue;
        after = sequence;
        const record = data as LoomRecord;
        if (actor === null && record.body['kind'] === KIND_RUN) actor = record.actor;
        options.onRecord(sequence, record);
        if (record.body['kind'] === KIND_LOOP_OUTCOME && record.actor === actor) return { sequence, record };
      }
    } catch (error) {
      lastFailure = error;
    } finally {
      connection.abort();
      signal.removeEventListener('abort', stop);
    }
    if (signal.aborted) break;
    reopened = true;
    failures = connected ? 1 : failures + 1;
    if (failures > MAX_FAILURES) {
      const cause = lastFailure instanceof Error ? lastFailure.message : 'the stream kept ending';
      throw new CliError(`lost the event stream of run ${thread} (${cause}); follow it again with: loom runs tail ${thread}`, 1, 'UNREACHABLE');
    }
    if (!connected) await refusalOf(ctx, thread);
    await sleep(Math.min(FIRST_BACKOFF_MS * 2 ** (failures - 1), MAX_BACKOFF_MS), signal);
  }
  return null;
}

/** Throws the status door's refusal (with the server's code); an unreachable server is worth another try. */
async function refusalOf(ctx: ClientContext, thread: string): Promise<void> {
  try {
    await call(ctx, ctx.client.getWorkLoop({ path: { thread } }));
  } catch (error) {
    if (!(error instanceof CliError) || error.code !== 'UNREACHABLE') throw error;
  }
}
