import { Type } from 'typebox';
import { RecordReaderToken } from '../../../core/engine/record-reader.js';
import { RecordWriterToken } from '../../../core/engine/record-writer.js';
import { Reply } from '../../../core/plugin/reply.js';
import { defineRoute } from '../../../core/plugin/route.js';
import { RecordSchema } from '../../../core/plugin/shared-schemas.js';
import { ClockToken } from '../../../core/engine/clock.js';
import { AdapterRegistryToken } from '../dispatch/adapter.js';
import { DispatcherToken } from '../dispatch/dispatcher.js';
import { manualDispatch } from '../dispatch/manual-dispatch.js';

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
  handler: async ({ body, caller }, deps) => Reply.json(201, await manualDispatch(deps, caller, body)),
});
