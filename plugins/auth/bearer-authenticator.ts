/**
 * The auth plugin's Authenticator: `Authorization: Bearer loom_<env>_<sa>_<secret>`.
 * One SHA-256 of the secret and one lookup in the credentials fold (memory,
 * never storage), then a constant-time comparison of the token id. Every
 * bearer that does not hold (malformed, unknown, another account's, wrong
 * env, revoked, expired) gets the same 401 AUTH_REQUIRED, so none of them
 * tells an attacker anything. The caller of a token is built once and
 * reused until the credentials change.
 */
import { credentialCaller, withActorClaim, type Caller } from '../../core/access/caller.js';
import type { Authenticator, CallerRequest } from '../../core/access/authenticator.js';
import type { Config } from '../../core/folds/config/config-topic.js';
import { LoomError } from '../../core/errors/loom-error.js';
import { isValidDid } from '../../core/records/did-syntax.js';
import { mayActAs } from './actor-permission.js';
import { parseBearer, sameTokenId, tokenIdOf } from './bearer-token.js';
import type { CredentialService } from './credential-service.js';
import { authRequiredTopic } from './topics.js';

const REFUSED = 'invalid, unknown, expired or revoked bearer token';
const BEARER = /^Bearer +([\x21-\x7e]+) *$/i;

export class BearerAuthenticator implements Authenticator {
  private cache = new Map<string, Caller>();
  private cacheVersion = -1;

  constructor(
    private readonly credentials: CredentialService,
    private readonly config: Config,
    private readonly requiredByDefault: boolean,
    private readonly now: () => number = Date.now,
  ) {}

  required(): boolean {
    return this.config.single(authRequiredTopic)?.enabled ?? this.requiredByDefault;
  }

  authenticate(request: CallerRequest): Caller | null {
    const header = request.headers['authorization'];
    if (header === undefined || header === '') return null;
    const match = BEARER.exec(header);
    if (!match) throw new LoomError('AUTH_REQUIRED', 'malformed Authorization header: send Authorization: Bearer <token>');
    const caller = this.callerOf(match[1]!);
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
    if (entry.expires_at !== null && !(Date.parse(entry.expires_at) > this.now())) throw new LoomError('AUTH_REQUIRED', REFUSED);
    let caller = this.cache.get(tokenId);
    if (!caller) {
      caller = credentialCaller({
        principal: account.did,
        serviceAccountId: account.id,
        credentialId: tokenId,
        scopes: entry.scopes,
        actors: entry.actors,
        expiresAt: entry.expires_at,
        claims: { 'auth.display_name': account.display_name, 'auth.namespace': account.namespace },
      });
      this.cache.set(tokenId, caller);
    }
    return caller;
  }
}
