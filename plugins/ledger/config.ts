/** Options of the ledger plugin. */
import { Type, type Static } from 'typebox';
import { token } from '../../core/di/token.js';

export const LedgerOptions = Type.Object(
  {
    /** Milliseconds between heartbeat comments on the thread-watch feed. @default 15000 */
    watchHeartbeatMs: Type.Integer({ minimum: 100, maximum: 600_000, default: 15_000 }),
    /** Thread-watch feeds (SSE) open at once; past it a new watch answers 503. @default 1000 */
    maxWatchers: Type.Integer({ minimum: 1, default: 1_000 }),
  },
  { additionalProperties: false },
);

export type LedgerOptions = Static<typeof LedgerOptions>;
export const LedgerOptionsToken = token<LedgerOptions>('ledger.LedgerOptions');
