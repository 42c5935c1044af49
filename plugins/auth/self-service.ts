/**
 * The self routes (spec §4.11, §5.6): what a live bearer may do about its own
 * principal with no scope at all. Bindings are the proofs it can come back
 * with (a recovery code, a passkey, an account); credentials are the bearers
 * its principal holds. A second binding of a kind needs a rotation proof, so
 * a stolen bearer alone cannot replace the owner's way back in.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { Caller } from '../../core/access/caller.js';
import { isAdmin } from '../../core/access/scopes.js';
import { token } from '../../core/di/token.js';
import { LoomError } from '../../core/errors/loom-error.js';
import type { Config } from '../../core/folds/config/config-topic.js';
import { KIND_BINDING, KIND_BINDING_REMOVAL, KIND_PASSKEY_COUNTER, KIND_REVOCATION } from './auth-thread.js';
import type { BearerAuthenticator } from './bearer-authenticator.js';
import { liveBindingsOf, type BindingEntry, type BindingKind } from './bindings.js';
import type { AuthWriter, CredentialService } from './credential-service.js';
import { ChallengeStore, type ChallengeSlots, registrationOptions, verifyAssertion, verifyRegistration, type AssertionEvidence, type RegistrationMaterial, type RelyingParty } from './passkeys.js';
import { mintRecoveryCode, normaliseRecoveryCode, recoveryCodeHash } from './recovery-code.js';
import { passkeyRpTopic } from './topics.js';
import { serviceAccountOf } from './caller-claims.js';

export interface RotationProof {
  readonly kind: 'recovery_code' | 'passkey';
  readonly evidence: unknown;
}

export interface BindingRequest {
  readonly kind: BindingKind;
  readonly material?: Record<string, unknown>;
  readonly rotation_proof?: RotationProof | string;
}

const newBindingId = (): string => 'bnd_' + randomBytes(12).toString('hex');

/** The principal a self route acts for; a request without a bearer has none. */
export function selfPrincipal(caller: Caller): string {
  if (caller.kind !== 'credential' || caller.principal === null) throw new LoomError('AUTH_REQUIRED', 'self routes need a bearer: they act on the principal the bearer belongs to');
  return caller.principal;
}

export class SelfService {
  readonly challenges: ChallengeStore;

  constructor(
    private readonly credentials: CredentialService,
    private readonly config: Config,
    private readonly authenticator: BearerAuthenticator,
    private readonly now: () => number = Date.now,
    /** The store's slots when servers share the log (challenges then live there), else null. */
    challengeSlots: ChallengeSlots | null = null,
  ) {
    this.challenges = new ChallengeStore(now, challengeSlots);
  }

  relyingParty(): RelyingParty | null {
    return this.config.single(passkeyRpTopic) ?? null;
  }

  proofKindsAccepted(): string[] {
    return this.relyingParty() ? ['recovery_code', 'passkey'] : ['recovery_code'];
  }

  view(caller: Caller) {
    const principal = selfPrincipal(caller);
    const state = this.credentials.state();
    const grant = state.grants.liveGrantFor(principal, this.now());
    const live = liveBindingsOf(state.bindings, principal);
    const has = (kind: BindingKind) => live.some((b) => b.kind === kind);
    return {
      object: 'self' as const,
      principal,
      label: grant?.label ?? null,
      standing: isAdmin(caller.scopes) ? 'admin' : grant?.label ? 'member' : grant ? 'delegate' : 'service_account',
      service_account_id: serviceAccountOf(caller),
      grant: grant ? { grant_id: grant.id, scopes: [...grant.scopes], expires_at: new Date(grant.effectiveExpiresMs).toISOString() } : null,
      bindings: { recovery_code: has('recovery_code'), passkey: has('passkey'), account: has('account') },
      proof_kinds_accepted: this.proofKindsAccepted(),
    };
  }

  bindings(caller: Caller) {
    const principal = selfPrincipal(caller);
    return { object: 'list' as const, data: liveBindingsOf(this.credentials.state().bindings, principal).map((b) => ({ id: b.id, kind: b.kind, created_at: b.created_at })) };
  }

  async passkeyChallenge(caller: Caller) {
    const principal = selfPrincipal(caller);
    const rp = this.relyingParty();
    if (!rp) throw new LoomError('PASSKEY_NOT_ACCEPTED', 'this instance declares no passkey relying party (configuration topic passkey_rp)');
    const { challenge, expiresAt } = await this.challenges.issue('register', principal);
    const grant = this.credentials.state().grants.liveGrantFor(principal, this.now());
    const name = grant?.label ?? principal;
    const existing = liveBindingsOf(this.credentials.state().bindings, principal, 'passkey').map((b) => b.passkey!);
    const options = await registrationOptions(rp, principal, name, challenge, existing);
    return {
      challenge,
      rp: { id: rp.rp_id, name: rp.rp_name ?? rp.rp_id },
      user: { id: options.user.id, name, display_name: name },
      expires_at: expiresAt,
      options,
    };
  }

  async bind(caller: Caller, request: BindingRequest) {
    const principal = selfPrincipal(caller);
    if (request.kind === 'account') throw new LoomError('ACCOUNT_NOT_ACCEPTED', 'this instance declares no account verifier, so account bindings cannot be proven; use a recovery code or a passkey');
    const rp = request.kind === 'passkey' ? this.relyingParty() : null;
    if (request.kind === 'passkey' && !rp) throw new LoomError('PASSKEY_NOT_ACCEPTED', 'this instance declares no passkey relying party (configuration topic passkey_rp)');
    // Verify a passkey registration before taking the write lock: it is the slow part.
    let passkey = null;
    if (request.kind === 'passkey') {
      const material = request.material as RegistrationMaterial | undefined;
      if (!material || typeof material.credential_id !== 'string' || typeof material.client_data_json !== 'string' || typeof material.attestation_object !== 'string') {
        throw new LoomError('INVALID_SHAPE', 'material: {credential_id, client_data_json, attestation_object, transports?} from the registration ceremony');
      }
      passkey = await verifyRegistration(rp!, material, (challenge) => this.challenges.consume(challenge, 'register', principal));
      if (!passkey) throw new LoomError('INVALID_SHAPE', 'the passkey registration does not verify (challenge from POST /v1/self/bindings/challenge, origin among passkey_rp.origins, attestation none)');
    }
    const rotation = await this.checkRotation(principal, request);
    return this.credentials.transact(async (tx) => {
      const existing = liveBindingsOf(tx.state().bindings, principal, request.kind);
      if (existing.length > 0 && !rotation) throw new LoomError('ROTATION_REQUIRES_PROOF', `a ${request.kind} is already bound: send rotation_proof (your current recovery code${request.kind === 'passkey' ? ', or a passkey assertion over a re-credential challenge' : ''})`);
      if (passkey && liveBindingsOf(tx.state().bindings, principal, 'passkey').some((b) => b.passkey!.credential_id === passkey.credential_id)) {
        throw new LoomError('INVALID_SHAPE', 'this passkey is already bound');
      }
      const id = newBindingId();
      const createdAt = new Date(this.now()).toISOString();
      let secret: string | null = null;
      const body: Record<string, unknown> = { kind: KIND_BINDING, binding_id: id, principal, binding_kind: request.kind, created_at: createdAt, by: caller.principal };
      if (request.kind === 'recovery_code') {
        secret = mintRecoveryCode();
        body['code_hash'] = recoveryCodeHash(secret);
      } else {
        body['passkey'] = { ...passkey! };
      }
      await tx.write(body);
      // A new recovery code replaces the old one: only one may open the door.
      if (request.kind === 'recovery_code') for (const old of existing) await removeBinding(tx, old.id, 'rotated');
      if (rotation?.spent) await removeBinding(tx, rotation.spent, 'spent');
      return { object: 'binding' as const, id, code_id: id, principal, kind: request.kind, created_at: createdAt, ...(secret !== null ? { secret } : {}) };
    });
  }

  /** A verified rotation proof (and the recovery code it spends, if any), or null when none was sent or it does not verify. */
  private async checkRotation(principal: string, request: BindingRequest): Promise<{ spent: string | null } | null> {
    const proof = typeof request.rotation_proof === 'string' ? { kind: 'recovery_code' as const, evidence: request.rotation_proof } : request.rotation_proof;
    if (!proof) return null;
    const bindings = this.credentials.state().bindings;
    if (proof.kind === 'recovery_code') {
      const binding = typeof proof.evidence === 'string' ? matchRecoveryCode(bindings, principal, proof.evidence) : null;
      if (!binding) throw new LoomError('ROTATION_REQUIRES_PROOF', 'rotation_proof does not verify: send your current recovery code');
      // Proving with the code that is being replaced spends nothing extra; proving a passkey rotation with it does not spend it either.
      return { spent: null };
    }
    if (proof.kind === 'passkey' && request.kind === 'passkey') {
      const rp = this.relyingParty();
      const evidence = proof.evidence as AssertionEvidence;
      const binding = rp && evidence && typeof evidence.credential_id === 'string' ? liveBindingsOf(bindings, principal, 'passkey').find((b) => b.passkey!.credential_id === evidence.credential_id) : undefined;
      const counter = binding ? await verifyAssertion(rp!, evidence, binding.passkey!, (c) => this.challenges.consume(c, 'recredential', principal)) : null;
      if (counter === null) throw new LoomError('ROTATION_REQUIRES_PROOF', 'rotation_proof does not verify: assert with a bound passkey over a re-credential challenge');
      await this.credentials.transact((tx) => recordCounter(tx, binding!, counter));
      return { spent: null };
    }
    throw new LoomError('ROTATION_REQUIRES_PROOF', 'rotation_proof.kind must be recovery_code (or passkey, to add a passkey)');
  }

  removeBinding(caller: Caller, id: string) {
    const principal = selfPrincipal(caller);
    return this.credentials.transact(async (tx) => {
      const binding = tx.state().bindings.get(id);
      if (!binding || binding.removed || binding.principal !== principal) throw new LoomError('NOT_FOUND', `no binding ${id}`);
      await removeBinding(tx, id, 'removed');
      return { object: 'binding' as const, id, kind: binding.kind, removed: true };
    });
  }

  credentialsOf(caller: Caller) {
    const principal = selfPrincipal(caller);
    const state = this.credentials.state();
    const now = this.now();
    const data = [];
    for (const entry of state.tokens.values()) {
      const account = state.accounts.get(entry.service_account_id);
      if (entry.revoked || !account || !account.active || account.did !== principal) continue;
      if (entry.expires_at !== null && !(Date.parse(entry.expires_at) > now)) continue;
      if (entry.grant_id !== null && state.grants.standing(entry.grant_id, now) !== 'in_force') continue;
      data.push({
        bearer_id: entry.record_id,
        sa_id: entry.service_account_id,
        expires_at: entry.expires_at,
        last_used_at: this.authenticator.lastUsedAt(entry.token_id),
        via: entry.via,
        current: entry.token_id === caller.credential,
      });
    }
    return { object: 'list' as const, data };
  }

  revokeCredential(caller: Caller, bearerId: string) {
    const principal = selfPrincipal(caller);
    return this.credentials.transact(async (tx) => {
      const state = tx.state();
      const entry = [...state.tokens.values()].find((t) => t.record_id === bearerId);
      const account = entry ? state.accounts.get(entry.service_account_id) : undefined;
      // Another principal's bearer and one that does not exist get the same answer (spec §7).
      if (!entry || entry.revoked || !account || account.did !== principal) throw new LoomError('CREDENTIAL_NOT_FOUND', `no bearer ${bearerId} of yours`);
      await tx.write({ kind: KIND_REVOCATION, service_account_id: entry.service_account_id, token_id: entry.token_id, reason: 'revoked by its principal', revoked_at: new Date(this.now()).toISOString(), by: principal });
      return { object: 'credential' as const, bearer_id: bearerId, revoked: true };
    });
  }
}

/** The live recovery-code binding of `principal` the code opens, comparing hashes in constant time. */
export function matchRecoveryCode(bindings: ReadonlyMap<string, BindingEntry>, principal: string, typed: string, hash: (code: string) => string = recoveryCodeHash): BindingEntry | null {
  const code = normaliseRecoveryCode(typed);
  const presented = Buffer.from(hash(code ?? 'not a code'), 'hex');
  let found: BindingEntry | null = null;
  for (const binding of liveBindingsOf(bindings, principal, 'recovery_code')) {
    if (timingSafeEqual(presented, Buffer.from(binding.code_hash!, 'hex')) && code !== null) found = binding;
  }
  return found;
}

export async function removeBinding(tx: AuthWriter, id: string, reason: string): Promise<void> {
  await tx.write({ kind: KIND_BINDING_REMOVAL, binding_id: id, reason, removed_at: new Date().toISOString() });
}

export async function recordCounter(tx: AuthWriter, binding: BindingEntry, counter: number): Promise<void> {
  if (counter > binding.passkey!.counter) await tx.write({ kind: KIND_PASSKEY_COUNTER, binding_id: binding.id, counter });
}

export const SelfServiceToken = token<SelfService>('auth.SelfService');
