/**
 * An engine loop (RECONCILE, TICK, CRON, a federation pull, ...): started once
 * the engine is up, stopped before it goes down. `stop()` resolves only when
 * the run in flight has finished (atproto's sequencer lifecycle).
 */
export interface EngineLoop {
  readonly name: string;
  /**
   * Work that must run on one server only when several share the log
   * (RECONCILE dispatch, TICK, CRON): the engine runs it while this server
   * holds the store's leader lease, and stops it when the lease is lost.
   * Per-server work (a heartbeat) leaves it unset.
   */
  readonly singleton?: boolean;
  start(): void | Promise<void>;
  stop(): Promise<void>;
}
