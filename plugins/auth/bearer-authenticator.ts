/**
 * The auth plugin's Authenticator: `Authorization: Bearer loom_<env>_<sa>_<secret>`.
 * One SHA-256 of the secret and one lookup in the credentials fold (memory,
 * never storage), then a constant-time comparison of the token id. Every
 * bearer that does not hold (malformed, unknown, another account's, wrong
 * env, revoked, expired) gets the same 401 AUTH_REQUIRED, so none of them
 * tells an attacker anything. A token parented to a grant is then checked for
 * liveness (spec §5.4 rule 9): one lookup in the folded grant graph, where
 * revocation has already been cascaded and the chain's earliest expiry
 * precomputed, so a 64-hop chain costs what a root grant does. The caller of
 * a token is built once and reused until the credentials change.
 */
import { credentialCaller, withActorClaim, type Caller } from '../../core/access/caller.js';
import type { Authenticator, CallerRequest } from '../../core/access/authenticator.js';
import type { Config } from '../../core/folds/config/config-topic.js';
import { LoomError } from '../../core/errors/loom-error.js';
import { isValidDid } from '../../core/records/did-syntax.js';
import { scopeWithin } from '../../core/access/scopes.js';
import { mayActAs } from './actor-permission.js';
import { parseBearer, sameTokenId, tokenIdOf } from './bearer-token.js';
import type { CredentialService } from './credential-service.js';
import { authRequiredTopic } from './topics.js';
import { credentialClaims } from './caller-claims.js';

const REFUSED = 'invalid, unknown, expired or revoked bearer token';
const BEARER = /^Bearer +([\x21-\x7e]+) *$/i;

export class BearerAuthenticator implements Authenticator {
  /** A delegated credential whose grant no longer holds; an X-Service-Actor the credential may not claim. */
  readonly errors = ['GRANT_REVOKED', 'GRANT_EXPIRED', 'DID_CLAIM_DENIED'] as const;
  private cache = new Map<string, Caller>();
  private cacheVersion = -1;
  /** When each token was last presented (memory only: a read must not write a record). */
  private readonly lastUsed = new Map<string, number>();

  constructor(
    private readonly credentials: CredentialService,
    private readonly config: Config,
    private readonly requiredByDefault: boolean,
    private readonly now: () => number = Date.now,
    /**
     * Where servers share the log: waits until this server has seen every
     * committed record. A bearer minted through another server a moment ago
     * is not in this server's fold yet, so an unknown bearer is looked up
     * once more after catching up rather than refused (one watermark read).
     */
    private readonly catchUp: (() => Promise<void>) | null = null,
  ) {}

  required(): boolean {
    return this.config.single(authRequiredTopic)?.enabled ?? this.requiredByDefault;
  }

  authenticate(request: CallerRequest): Caller | null | Promise<Caller | null> {
    const header = request.headers['authorization'];
    if (header === undefined || header === '') return null;
    const match = BEARER.exec(header);
    if (!match) throw new LoomError('AUTH_REQUIRED', 'malformed Authorization header: send Authorization: Bearer <token>');
    const catchUp = this.catchUp;
    if (catchUp && !this.knows(match[1]!)) {
      return catchUp().then(() => this.withClaim(request, this.callerOf(match[1]!)));
    }
    return this.withClaim(request, this.callerOf(match[1]!));
  }

  /** Whether the fold holds the bearer's token id at all (revoked or not). */
  private knows(bearer: string): boolean {
    const parsed = parseBearer(bearer);
    return parsed !== null && this.credentials.state().tokens.has(tokenIdOf(parsed.secret));
  }

  private withClaim(request: CallerRequest, caller: Caller): Caller {
    const claim = request.headers['x-service-actor'];
    if (claim === undefined || claim === '') return caller;
    if (!isValidDid(claim) || !mayActAs(caller, claim)) {
      throw new LoomError('DID_CLAIM_DENIED', `this credential may not act as ${JSON.stringify(claim.slice(0, 200))}; it is not among the service account's allowed actors`);
    }
    return withActorClaim(caller, claim);
  }

  private callerOf(bearer: string): Caller {
    const state = this.credentials.state();
    if (state.version !== this.cacheVersion) {
      this.cache = new Map();
      this.cacheVersion = state.version;
    }
    const parsed = parseBearer(bearer);
    if (!parsed) throw new LoomError('AUTH_REQUIRED', REFUSED);
    const tokenId = tokenIdOf(parsed.secret);
    const entry = state.tokens.get(tokenId);
    if (!entry || !sameTokenId(entry.token_id, tokenId) || entry.service_account_id !== parsed.serviceAccountId || entry.env_tag !== parsed.env || entry.revoked) {
      throw new LoomError('AUTH_REQUIRED', REFUSED);
    }
    const account = state.accounts.get(entry.service_account_id);
    if (!account || !account.active) throw new LoomError('AUTH_REQUIRED', REFUSED);
    const now = this.now();
    // The grant first: a bearer whose grant expired or was revoked hears why (spec §5.4 rule 9).
    if (entry.grant_id !== null) {
      switch (state.grants.standing(entry.grant_id, now)) {
        case 'in_force':
          break;
        case 'expired':
          throw new LoomError('GRANT_EXPIRED', 'the grant this credential is parented to (or one of its ancestors) has expired; re-credential or ask for a new grant');
        default:
          throw new LoomError('GRANT_REVOKED', 'the grant this credential is parented to (or one of its ancestors) is revoked or not in force');
      }
    }
    if (entry.expires_at !== null && !(Date.parse(entry.expires_at) > now)) throw new LoomError('AUTH_REQUIRED', REFUSED);
    this.lastUsed.set(tokenId, now);
    let caller = this.cache.get(tokenId);
    if (!caller) {
      const grant = entry.grant_id === null ? undefined : state.grants.get(entry.grant_id);
      const grantExpiry = grant && Number.isFinite(grant.effectiveExpiresMs) ? grant.effectiveExpiresMs : Infinity;
      const tokenExpiry = entry.expires_at === null ? Infinity : Date.parse(entry.expires_at);
      const expiry = Math.min(grantExpiry, tokenExpiry);
      caller = credentialCaller({
        principal: account.did,
        credential: tokenId,
        // Never wider than the grant (rule 1), whatever the token snapshotted (an adopted account's older token).
        scopes: grant ? entry.scopes.filter((scope) => scopeWithin(scope, grant.scopes)) : entry.scopes,
        actors: entry.actors,
        expiresAt: Number.isFinite(expiry) ? new Date(expiry).toISOString() : null,
        claims: {
          ...credentialClaims(account.id, grant ?? null),
          'auth.display_name': account.display_name,
          'auth.namespace': account.namespace,
          ...(grant ? { 'auth.budget': grant.effective.budget, 'auth.label': grant.label } : {}),
        },
      });
      this.cache.set(tokenId, caller);
    }
    return caller;
  }

  /** When a token was last presented to this process, or null. */
  lastUsedAt(tokenId: string): string | null {
    const at = this.lastUsed.get(tokenId);
    return at === undefined ? null : new Date(at).toISOString();
  }
}
