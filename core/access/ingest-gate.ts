/**
 * Ingest gates: ordered checks every record passes after core's own checks
 * (shape, canonical JSON, hash, namespace narrowing) and before it is stored.
 * Plugins contribute them with `scope.ingestGate`. They run in plugin
 * dependency order, registration order within a plugin, refined by
 * `before`/`after` (hapi's Topo). The first refusal wins and nothing is
 * stored. A gate fails closed: anything thrown that is not a LoomError
 * refuses the record with 500 INTERNAL; no gate can admit by crashing.
 */
import type { LoomRecord } from '../records/record.js';
import type { Caller } from './caller.js';

/** Which door a write came through. */
export type IngestVia =
  /** A client request (POST /v1/records and every route that writes for its caller). */
  | 'api'
  /** A record received from a federation peer (signature verified). */
  | 'federation'
  /** The engine's or a plugin's own write (loops, the auth plugin's account records). */
  | 'engine'
  /**
   * Re-ingest of records from an export (the portability plugin's import,
   * admin only, or `loom import` on a stopped server's data directory): the
   * instance's own history, so gates that keep API clients off system
   * threads or other actors' names let it through; content checks still run.
   */
  | 'replay';

export interface IngestContext {
  /** Who writes: the route's caller, a peer, or SYSTEM. */
  readonly caller: Caller;
  readonly via: IngestVia;
  /**
   * The plugin writing on the caller's behalf from one of its routes (the
   * data plane's node records); absent for POST /v1/records. A plugin's gate
   * can admit kinds only that plugin may write.
   */
  readonly plugin?: string;
}

export interface GateInput {
  readonly record: LoomRecord;
  /** The record's namespace (body.namespace, or `default`), already narrowed. */
  readonly namespace: string;
  readonly context: IngestContext;
}

export interface IngestGate {
  /** `<plugin>.<check>`, unique; used in logs and in before/after. */
  readonly name: string;
  /** Gates this one must run before / after (by name). */
  readonly before?: readonly string[];
  readonly after?: readonly string[];
  /** Throw a LoomError to refuse (FORBIDDEN, SCOPE_FORBIDDEN, DID_CLAIM_DENIED …). Return nothing to admit; async only when needed. */
  check(input: GateInput): void | Promise<void>;
}
