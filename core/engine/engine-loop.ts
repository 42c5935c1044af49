/**
 * An engine loop (RECONCILE, TICK, CRON, a federation pull, ...): started once
 * the engine is up, stopped before it goes down. `stop()` resolves only when
 * the run in flight has finished (atproto's sequencer lifecycle).
 */
export interface EngineLoop {
  readonly name: string;
  start(): void | Promise<void>;
  stop(): Promise<void>;
}
