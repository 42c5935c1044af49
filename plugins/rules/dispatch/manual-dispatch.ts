/**
 * A dispatch by hand (POST /v1/dispatch, and the work plugin's `dispatch`
 * tool for members): the DO written as the caller on the dispatch thread
 * derived from the parent thread, the target and the time, then queued for
 * delivery. One function, so a member dispatching through its tool meets
 * exactly the checks and the record an HTTP client does.
 */
import { actingDid, type Caller } from '../../../core/access/caller.js';
import type { Clock } from '../../../core/engine/clock.js';
import type { RecordReader } from '../../../core/engine/record-reader.js';
import type { RecordWriter } from '../../../core/engine/record-writer.js';
import { LoomError } from '../../../core/errors/loom-error.js';
import { didSyntaxError } from '../../../core/records/did-syntax.js';
import type { JsonObject } from '../../../core/records/json.js';
import type { LoomRecord } from '../../../core/records/record.js';
import { dispatchThreadId, isThreadId } from '../../../core/records/thread-id.js';
import { namespaceOf } from '../../../storage/contract/stored-record.js';
import type { AdapterRegistry } from './adapter.js';
import { DEFAULT_BUDGET, KIND_DISPATCH } from './dispatch-kinds.js';
import type { Dispatcher } from './dispatcher.js';

export interface ManualDispatchRequest {
  readonly actor_did: string;
  readonly goal: string;
  readonly thread_id: string;
  readonly budget?: { readonly max_cost_usd?: number; readonly max_duration_secs?: number };
}

export interface ManualDispatchDeps {
  readonly dispatcher: Dispatcher;
  readonly adapters: AdapterRegistry;
  readonly clock: Clock;
  readonly writer: RecordWriter;
  readonly reader: RecordReader;
}

export interface ManualDispatch {
  object: 'dispatch';
  id: string;
  thread: string;
  parent_thread: string;
  target: string;
  goal: string;
  budget: { max_cost_usd: number; max_duration_secs: number };
  adapter: string;
  dispatched_at: string;
  status: 'queued';
  record: LoomRecord;
}

export async function manualDispatch(deps: ManualDispatchDeps, caller: Caller, request: ManualDispatchRequest): Promise<ManualDispatch> {
  const { dispatcher, adapters, clock, writer, reader } = deps;
  const targetError = didSyntaxError(request.actor_did);
  if (targetError) throw new LoomError('INVALID_SHAPE', `actor_did ${targetError}`);
  if (!isThreadId(request.thread_id)) throw new LoomError('INVALID_SHAPE', 'thread_id must be th_ followed by 64 lowercase hex characters, or a reserved thread');
  const first = await reader.listByThread(caller, request.thread_id, { limit: 1 });
  const parent = first.items[0];
  if (!parent) throw new LoomError('NOT_FOUND', `thread ${request.thread_id} has no records you can read`);
  if (!dispatcher.hasRoom) throw new LoomError('DISPATCH_QUEUE_FULL', 'the dispatch queue is full; retry shortly (GET /v1/engine/health shows its depth)');
  const budget = { max_cost_usd: request.budget?.max_cost_usd ?? DEFAULT_BUDGET.max_cost_usd, max_duration_secs: request.budget?.max_duration_secs ?? DEFAULT_BUDGET.max_duration_secs };
  const dispatchedAt = new Date(clock()).toISOString();
  const adapter = adapters.select(request.actor_did);
  const namespace = namespaceOf(parent.record);
  const dispatch: JsonObject = {
    kind: KIND_DISPATCH,
    dispatch_handled: true,
    target: request.actor_did,
    goal: request.goal,
    parent_thread: request.thread_id,
    dispatched_at: dispatchedAt,
    budget,
    origin: { type: 'manual', by: caller.principal ?? actingDid(caller) },
    source: null,
    adapter: adapter.name,
  };
  if (namespace !== 'default') dispatch['namespace'] = namespace;
  const thread = dispatchThreadId(request.thread_id, request.actor_did, dispatchedAt);
  const { stored } = await writer.appendAs(caller, { thread, act: 'DO', body: dispatch });
  if (!dispatcher.offerDelivery(stored.record)) {
    // The record stands (a fact); TICK will report it as drift if nobody picks it up.
    throw new LoomError('DISPATCH_QUEUE_FULL', `dispatch ${stored.record.id} was recorded but its delivery could not be queued; the target can still find it on ${thread}`);
  }
  return {
    object: 'dispatch',
    id: stored.record.id,
    thread,
    parent_thread: request.thread_id,
    target: request.actor_did,
    goal: request.goal,
    budget,
    adapter: adapter.name,
    dispatched_at: dispatchedAt,
    status: 'queued',
    record: stored.record,
  };
}
