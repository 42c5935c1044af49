/** Options of the rules plugin (spec §8 defaults). */
import { Type, type Static } from 'typebox';

export const RulesOptions = Type.Object(
  {
    /** Compiled CEL programs kept (LRU). @default 1024 */
    expressionCacheCapacity: Type.Integer({ minimum: 16, maximum: 1_000_000, default: 1024 }),
    /** Dispatches in flight at once. @default 4 */
    reconcileConcurrency: Type.Integer({ minimum: 1, maximum: 256, default: 4 }),
    /** Dispatch jobs waiting for a slot before RECONCILE stops reading the broadcast (it catches up from the store). @default 256 */
    reconcileQueueCapacity: Type.Integer({ minimum: 1, maximum: 100_000, default: 256 }),
    /** TICK (drift detection) interval. @default 60000 */
    tickIntervalMs: Type.Integer({ minimum: 100, maximum: 86_400_000, default: 60_000 }),
    /** How often schedule triggers and CRON check the clock (their firing resolution). @default 1000 */
    schedulerIntervalMs: Type.Integer({ minimum: 50, maximum: 60_000, default: 1000 }),
  },
  { additionalProperties: false },
);

export type RulesOptions = Static<typeof RulesOptions>;
