/**
 * The CEL evaluation environments (docs/decisions.md, "Rules and engine
 * loops"). A rule's expression is bound to one context and may use only that
 * context's variables: one not in scope fails to compile, so a mistake is
 * refused when the rule is configured, never discovered on a live write.
 *
 * - `routing` (routing rules, RECONCILE): `record`, `ns` (the namespace;
 *   `namespace` is a reserved word in CEL), `now`.
 * - `permission` (permission rules, an ingest gate): the same, plus `caller`
 *   and `via` (which door the write came through).
 *
 * `record` holds the eight fields and the id. `record.clock` is a CEL int;
 * body numbers are JSON numbers, hence CEL doubles (comparisons across int
 * and double work: `record.body.priority > 3`). A missing key is an
 * evaluation error: guard optional fields with `has(record.body.x)`.
 */
import { Environment } from '@marcbachmann/cel-js';
import type { Caller } from '../../../core/access/caller.js';
import { isAdmin } from '../../../core/access/scopes.js';
import type { IngestVia } from '../../../core/access/ingest-gate.js';
import type { LoomRecord } from '../../../core/records/record.js';

export const EXPRESSION_CONTEXTS = ['routing', 'permission'] as const;
export type ExpressionContext = (typeof EXPRESSION_CONTEXTS)[number];

/** Structural limits applied at parse time, so no rule can be pathologically large. */
const LIMITS = { maxAstNodes: 2000, maxDepth: 64, maxListElements: 256, maxMapEntries: 256, maxCallArguments: 16 };

function baseEnvironment(): Environment {
  return new Environment({ unlistedVariablesAreDyn: false, homogeneousAggregateLiterals: false, limits: LIMITS })
    .registerVariable('record', 'map', { description: 'The record: id, thread, actor, act, clock (int), parents, body, data_type, judged_by.' })
    .registerVariable('ns', 'string', { description: "The record's namespace (body.namespace, or default)." })
    .registerVariable('now', 'google.protobuf.Timestamp', { description: 'The evaluation time.' });
}

/** One environment per context, built once. */
export function createEnvironments(): Record<ExpressionContext, Environment> {
  return {
    routing: baseEnvironment(),
    permission: baseEnvironment()
      .registerVariable('caller', 'map', { description: 'Who writes: did (principal or null), actor (claimed DID or null), kind, scopes (list), admin (bool).' })
      .registerVariable('via', 'string', { description: 'The door: api, federation, engine or replay.' }),
  };
}

/** A plain environment with the same options and no variables (the conformance vectors run against it). */
export function createPlainEnvironment(): Environment {
  return new Environment({ unlistedVariablesAreDyn: false, homogeneousAggregateLiterals: false, limits: LIMITS });
}

export type RecordActivation = Readonly<Record<string, unknown>>;

const activations = new WeakMap<LoomRecord, RecordActivation>();

/** The `record` variable: built once per record and shared by every rule that reads it. */
export function recordActivation(record: LoomRecord): RecordActivation {
  let activation = activations.get(record);
  if (!activation) {
    activation = {
      id: record.id,
      thread: record.thread,
      actor: record.actor,
      act: record.act,
      clock: BigInt(record.clock),
      parents: record.parents,
      body: record.body,
      data_type: record.data_type,
      judged_by: record.judged_by,
    };
    activations.set(record, activation);
  }
  return activation;
}

const callers = new WeakMap<Caller, RecordActivation>();

/** The `caller` variable of the permission context. */
export function callerActivation(caller: Caller): RecordActivation {
  let activation = callers.get(caller);
  if (!activation) {
    activation = { did: caller.principal, actor: caller.actor, kind: caller.kind, scopes: [...caller.scopes], admin: isAdmin(caller.scopes) };
    callers.set(caller, activation);
  }
  return activation;
}

export interface PermissionInput {
  readonly record: LoomRecord;
  readonly namespace: string;
  readonly caller: Caller;
  readonly via: IngestVia;
  readonly now: Date;
}

export function permissionActivation(input: PermissionInput): Record<string, unknown> {
  return { record: recordActivation(input.record), ns: input.namespace, caller: callerActivation(input.caller), via: input.via, now: input.now };
}

export function routingActivation(record: LoomRecord, namespace: string, now: Date): Record<string, unknown> {
  return { record: recordActivation(record), ns: namespace, now };
}
