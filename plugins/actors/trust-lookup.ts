/** How the directory learns an actor's trust: from the trust plugin when one is loaded, else none. */
import type { Caller } from '../../core/access/caller.js';
import { token } from '../../core/di/token.js';

export type TrustByDomain = Record<string, { score: number; total: number }>;

export interface TrustLookup {
  byDomain(caller: Caller, actor: string): Promise<TrustByDomain>;
}

export const TrustLookupToken = token<TrustLookup>('actors.TrustLookup');

export const NO_TRUST: TrustLookup = { byDomain: async () => ({}) };
