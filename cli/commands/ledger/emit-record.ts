/** Writing one record as the CLI's actor: its next clock from the thread state, then ingest (emit, namespace, consent). */
import { call, type ClientContext } from '../../kit/context.js';

/** The actor's next clock on a thread, from the thread state (0 for a first record). */
export async function nextClock(ctx: ClientContext, thread: string, actor: string): Promise<number> {
  const { data } = await call(ctx, ctx.client.getThreadState({ path: { id: thread } }));
  const highest = data.value.actor_clocks[actor];
  return highest === undefined ? 0 : highest + 1;
}

export async function emitRecord(ctx: ClientContext, record: Record<string, unknown>): Promise<{ record: Record<string, unknown> & { id: string }; created: boolean }> {
  const { data, status } = await call(ctx, ctx.client.ingestRecord({ body: record as never }));
  return { record: data as unknown as Record<string, unknown> & { id: string }, created: status === 201 };
}
