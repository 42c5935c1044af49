import { Type } from 'typebox';
import { RecordReaderToken } from '../../../core/engine/record-reader.js';
import { RecordWriterToken } from '../../../core/engine/record-writer.js';
import { actingDid } from '../../../core/access/caller.js';
import { LoomError } from '../../../core/errors/loom-error.js';
import { Reply } from '../../../core/plugin/reply.js';
import { defineRoute } from '../../../core/plugin/route.js';
import { RecordSchema } from '../../../core/plugin/shared-schemas.js';
import { didSyntaxError } from '../../../core/records/did-syntax.js';
import type { JsonObject } from '../../../core/records/json.js';
import { dispatchThreadId, isThreadId } from '../../../core/records/thread-id.js';
import { namespaceOf } from '../../../storage/contract/stored-record.js';
import { DEFAULT_BUDGET, KIND_DISPATCH } from '../dispatch/dispatch-kinds.js';
import { ClockToken } from '../../../core/engine/clock.js';
import { AdapterRegistryToken } from '../dispatch/adapter.js';
import { DispatcherToken } from '../dispatch/dispatcher.js';

export const DispatchSchema = Type.Object(
  {
    object: Type.Literal('dispatch'),
    id: Type.String({ description: 'The dispatch record id (body.fulfills or body.cancels with it completes the dispatch).' }),
    thread: Type.String({ description: 'The dispatch thread: dispatchThreadId(parent_thread, target, dispatched_at) (SDK helper).' }),
    parent_thread: Type.String(),
    target: Type.String(),
    goal: Type.String(),
    budget: Type.Object({ max_cost_usd: Type.Number(), max_duration_secs: Type.Integer() }),
    adapter: Type.String({ description: 'The adapter that delivers it (GET /v1/adapters).' }),
    dispatched_at: Type.String({ format: 'date-time' }),
    status: Type.Literal('queued', { description: 'Delivery is queued behind RECONCILE’s dispatch slots; watch the dispatch thread for the outcome.' }),
    record: RecordSchema,
  },
  { $id: 'Dispatch' },
);

export const createDispatch = defineRoute({
  operationId: 'createDispatch',
  method: 'POST',
  path: '/v1/dispatch',
  summary: 'Dispatch work to an actor by hand',
  description:
    'Writes the dispatch (a DO, kind core.dispatch.v1) as the caller on the dispatch thread derived from thread_id, the target and the dispatch time, then queues its delivery through the adapter that accepts the target. ' +
    'The parent thread must hold records the caller can read. Fleet freezes, the emergency stop and permission rules apply to the DO like to any write. A dispatch is open until a record on its thread fulfils or cancels it; TICK notes drift after budget.max_duration_secs.',
  tags: ['engine'],
  auth: { scope: 'records:write' },
  request: {
    body: Type.Object(
      {
        actor_did: Type.String({ minLength: 1, maxLength: 512, description: 'The target actor.' }),
        goal: Type.String({ minLength: 1, maxLength: 2000 }),
        thread_id: Type.String({ minLength: 1, maxLength: 80, description: 'The parent thread the work belongs to.' }),
        budget: Type.Optional(
          Type.Object(
            {
              max_cost_usd: Type.Optional(Type.Number({ minimum: 0, maximum: 1_000_000 })),
              max_duration_secs: Type.Optional(Type.Integer({ minimum: 1, maximum: 7 * 86_400 })),
            },
            { additionalProperties: false },
          ),
        ),
      },
      { additionalProperties: false },
    ),
  },
  responses: { 201: { description: 'Written and queued for delivery.', schema: DispatchSchema } },
  errors: ['INVALID_SHAPE', 'NOT_FOUND', 'FORBIDDEN', 'NAMESPACE_REJECTED', 'DID_CLAIM_DENIED', 'DISPATCH_QUEUE_FULL'],
  inject: { dispatcher: DispatcherToken, adapters: AdapterRegistryToken, clock: ClockToken, writer: RecordWriterToken, reader: RecordReaderToken },
  handler: async ({ body, caller }, { dispatcher, adapters, clock, writer, reader }) => {
    const targetError = didSyntaxError(body.actor_did);
    if (targetError) throw new LoomError('INVALID_SHAPE', `actor_did ${targetError}`);
    if (!isThreadId(body.thread_id)) throw new LoomError('INVALID_SHAPE', 'thread_id must be th_ followed by 64 lowercase hex characters, or a reserved thread');
    const first = await reader.listByThread(caller, body.thread_id, { limit: 1 });
    const parent = first.items[0];
    if (!parent) throw new LoomError('NOT_FOUND', `thread ${body.thread_id} has no records you can read`);
    if (!dispatcher.hasRoom) throw new LoomError('DISPATCH_QUEUE_FULL', 'the dispatch queue is full; retry shortly (GET /v1/engine/health shows its depth)');
    const budget = { max_cost_usd: body.budget?.max_cost_usd ?? DEFAULT_BUDGET.max_cost_usd, max_duration_secs: body.budget?.max_duration_secs ?? DEFAULT_BUDGET.max_duration_secs };
    const dispatchedAt = new Date(clock()).toISOString();
    const adapter = adapters.select(body.actor_did);
    const namespace = namespaceOf(parent.record);
    const dispatch: JsonObject = {
      kind: KIND_DISPATCH,
      dispatch_handled: true,
      target: body.actor_did,
      goal: body.goal,
      parent_thread: body.thread_id,
      dispatched_at: dispatchedAt,
      budget,
      origin: { type: 'manual', by: caller.principal ?? actingDid(caller) },
      source: null,
      adapter: adapter.name,
    };
    if (namespace !== 'default') dispatch['namespace'] = namespace;
    const thread = dispatchThreadId(body.thread_id, body.actor_did, dispatchedAt);
    const { stored } = await writer.appendAs(caller, { thread, act: 'DO', body: dispatch });
    if (!dispatcher.offerDelivery(stored.record)) {
      // The record stands (a fact); TICK will report it as drift if nobody picks it up.
      throw new LoomError('DISPATCH_QUEUE_FULL', `dispatch ${stored.record.id} was recorded but its delivery could not be queued; the target can still find it on ${thread}`);
    }
    return Reply.json(201, {
      object: 'dispatch' as const,
      id: stored.record.id,
      thread,
      parent_thread: body.thread_id,
      target: body.actor_did,
      goal: body.goal,
      budget,
      adapter: adapter.name,
      dispatched_at: dispatchedAt,
      status: 'queued' as const,
      record: stored.record,
    });
  },
});
