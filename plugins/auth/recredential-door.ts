/**
 * The re-credential door (spec §4.11, §5.6): no bearer, the proof is the
 * credential. Every refusal before a proof verifies is one constant shape
 * (401 RECREDENTIAL_REFUSED, one message) whether the principal does not
 * exist, has no binding, or sent a wrong proof; the rate limit answers first,
 * before any hash is computed; 409 NO_LIVE_GRANT comes only after a proof has
 * verified. The new bearer is parented to the principal's existing live grant:
 * nothing is renewed, revoked or cascaded, so other devices keep working.
 */
import { token } from '../../core/di/token.js';
import { LoomError } from '../../core/errors/loom-error.js';
import { isValidDid } from '../../core/records/did-syntax.js';
import { liveBindingsOf } from './bindings.js';
import type { CredentialService } from './credential-service.js';
import type { GrantService } from './grant-service.js';
import { LABEL_PATTERN, memberDid } from './membership-service.js';
import { verifyAssertion, type AssertionEvidence } from './passkeys.js';
import { RateLimiter } from '../../core/access/rate-limiter.js';
import { recoveryCodeHash } from './recovery-code.js';
import { matchRecoveryCode, recordCounter, removeBinding, type SelfService } from './self-service.js';

export const RECREDENTIAL_REFUSED_MESSAGE = 're-credential refused: no principal with a binding matched this proof';

export interface RecredentialRequest {
  readonly principal: string;
  readonly proof: { readonly kind: string; readonly evidence: unknown };
}

export class RecredentialDoor {
  readonly byPrincipal: RateLimiter;
  readonly byAddress: RateLimiter;
  /** How many proof hashes this door has computed (the rate limit must answer before any). */
  hashCalls = 0;

  constructor(
    private readonly credentials: CredentialService,
    private readonly grants: GrantService,
    private readonly self: SelfService,
    rate: { burst: number; refillMs: number } = { burst: 3, refillMs: 5000 },
    private readonly now: () => number = Date.now,
    /**
     * On a log shared by several servers: brings this server's folds up to the store's head. A binding
     * registered through another server a moment ago may not have reached this one yet; the door looks
     * again after catching up before refusing (as the bearer authenticator does for new tokens).
     */
    private readonly catchUp: (() => Promise<void>) | null = null,
  ) {
    this.byPrincipal = new RateLimiter(rate.burst, rate.refillMs, 10_000, now);
    this.byAddress = new RateLimiter(rate.burst, rate.refillMs, 10_000, now);
  }

  /** A principal string as sent (a DID, or a member label) to the DID it names. */
  static principalDid(principal: string): string | null {
    if (LABEL_PATTERN.test(principal)) return memberDid(principal);
    return isValidDid(principal) ? principal : null;
  }

  private limit(principal: string, address: string): void {
    // Both buckets are charged, so neither a spread of principals nor of addresses gets more attempts.
    const principalOk = this.byPrincipal.take(principal.slice(0, 512));
    const addressOk = this.byAddress.take(address);
    if (!principalOk || !addressOk) {
      const wait = Math.max(this.byPrincipal.retryAfterMs(principal.slice(0, 512)), this.byAddress.retryAfterMs(address));
      throw new LoomError('RATE_LIMITED', `too many re-credential attempts; try again in ${Math.ceil(wait / 1000)} s`);
    }
  }

  async challenge(principal: string, kind: string, address: string) {
    this.limit(principal, address);
    if (kind !== 'passkey') throw new LoomError('INVALID_SHAPE', 'kind must be passkey: only passkey proofs need a challenge');
    const rp = this.self.relyingParty();
    if (!rp) throw new LoomError('PASSKEY_NOT_ACCEPTED', 'this instance declares no passkey relying party (configuration topic passkey_rp)');
    // Issued for every principal string alike: whether it exists is not disclosed.
    const { challenge, expiresAt } = await this.self.challenges.issue('recredential', RecredentialDoor.principalDid(principal) ?? principal);
    return { challenge, rp_id: rp.rp_id, expires_at: expiresAt };
  }

  async recredential(request: RecredentialRequest, address: string) {
    this.limit(request.principal, address);
    const refused = () => new LoomError('RECREDENTIAL_REFUSED', RECREDENTIAL_REFUSED_MESSAGE);
    const did = RecredentialDoor.principalDid(request.principal);
    const { kind, evidence } = request.proof;
    let verified: { spend?: string; counter?: { bindingId: string; value: number } } | null = null;
    if (kind === 'recovery_code') {
      const match = () =>
        matchRecoveryCode(this.credentials.state().bindings, did ?? '', typeof evidence === 'string' ? evidence : '', (code) => {
          this.hashCalls++;
          return recoveryCodeHash(code);
        });
      let binding = match();
      if (!binding && this.catchUp && did !== null) {
        await this.catchUp();
        binding = match();
      }
      if (binding) verified = { spend: binding.id };
    } else if (kind === 'passkey') {
      const rp = this.self.relyingParty();
      const assertion = evidence as AssertionEvidence | null;
      const find = () =>
        rp && did && assertion && typeof assertion === 'object' && typeof assertion.credential_id === 'string'
          ? liveBindingsOf(this.credentials.state().bindings, did, 'passkey').find((b) => b.passkey!.credential_id === assertion.credential_id)
          : undefined;
      let binding = find();
      if (!binding && this.catchUp && did !== null) {
        await this.catchUp();
        binding = find();
      }
      if (binding) {
        this.hashCalls++;
        const counter = await verifyAssertion(rp!, assertion!, binding.passkey!, (c) => this.self.challenges.consume(c, 'recredential', did!));
        if (counter !== null) verified = { counter: { bindingId: binding.id, value: counter } };
      }
    }
    if (!verified || did === null) throw refused();
    return this.credentials.transact(async (tx) => {
      const state = tx.state();
      // Checked again under the write lock: a recovery code is spent exactly once, a counter only moves forward.
      if (verified.spend && state.bindings.get(verified.spend)?.removed !== false) throw refused();
      if (verified.counter) {
        const binding = state.bindings.get(verified.counter.bindingId);
        if (!binding || binding.removed || (verified.counter.value <= binding.passkey!.counter && (verified.counter.value > 0 || binding.passkey!.counter > 0))) throw refused();
      }
      const grant = state.grants.liveGrantFor(did, this.now());
      if (!grant) throw new LoomError('NO_LIVE_GRANT', 'the proof verified, but nothing is granted to this principal now; ask an admin for a new invite');
      if (verified.spend) await removeBinding(tx, verified.spend, 'spent');
      if (verified.counter) await recordCounter(tx, state.bindings.get(verified.counter.bindingId)!, verified.counter.value);
      const minted = await this.grants.mintFor(tx, grant, 'recredential', did);
      return {
        object: 'recredential' as const,
        token: minted.bearer,
        principal: did,
        expires_at: minted.expiresAt,
        label: grant.label,
        sa_id: minted.serviceAccountId,
        scopes: [...grant.scopes],
        // A spent recovery code must be replaced with the new bearer; passkeys and accounts are reusable.
        rebind_required: kind === 'recovery_code',
      };
    });
  }
}

export const RecredentialDoorToken = token<RecredentialDoor>('auth.RecredentialDoor');
