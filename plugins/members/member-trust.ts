/** A member's trust standing by domain: from the trust plugin when it is loaded, else none. */
import type { Caller } from '../../core/access/caller.js';
import { token } from '../../core/di/token.js';

export type TrustByDomain = Record<string, { score: number; total: number }>;

export interface MemberTrust {
  byDomain(caller: Caller, actor: string): Promise<TrustByDomain>;
}

export const MemberTrustToken = token<MemberTrust>('members.MemberTrust');
