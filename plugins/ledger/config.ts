/** Options of the ledger plugin. */
import { Type, type Static } from 'typebox';
import { token } from '../../core/di/token.js';

export const LedgerOptions = Type.Object(
  {
    /** Milliseconds between heartbeat comments on the thread-watch feed. @default 15000 */
    watchHeartbeatMs: Type.Integer({ minimum: 100, maximum: 600_000, default: 15_000 }),
  },
  { additionalProperties: false },
);

export type LedgerOptions = Static<typeof LedgerOptions>;
export const LedgerOptionsToken = token<LedgerOptions>('ledger.LedgerOptions');
