/** Writing one record as the CLI's actor (emit, namespace, consent): at the clock given, or at the actor's next one (the SDK's appendAtNextClock). */
import { appendAtNextClock, type RecordDraft } from '../../../sdk/index.js';
import { call, type ClientContext } from '../../kit/context.js';

type Written = { record: Record<string, unknown> & { id: string; clock: number }; created: boolean };

/** Writes `record` as it is, clock included. */
export async function emitRecord(ctx: ClientContext, record: Record<string, unknown>): Promise<Written> {
  const { data, status } = await call(ctx, ctx.client.ingestRecord({ body: record as never }));
  return { record: data as unknown as Written['record'], created: status === 201 };
}

/** Writes `draft` at its actor's next clock on its thread, again at the next one if a concurrent write takes it first. */
export async function emitAtNextClock(ctx: ClientContext, draft: Record<string, unknown>): Promise<Written> {
  const { data, status } = await call(ctx, appendAtNextClock(ctx.client, draft as unknown as RecordDraft));
  return { record: data as unknown as Written['record'], created: status === 201 };
}
