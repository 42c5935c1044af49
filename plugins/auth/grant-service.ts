/**
 * Issuing and revoking delegation grants (spec §2.5, §5.4). The door checks
 * everything the fold would (so a caller hears why, as 422 GRANT_REFUSED,
 * instead of getting a grant that is silently out of force), writes the grant
 * record citing its parent grant among its parents, and, when asked, mints
 * the audience a bearer parented to the new grant.
 */
import type { Caller } from '../../core/access/caller.js';
import { isAdmin, isScopeOrGrain } from '../../core/access/scopes.js';
import { token } from '../../core/di/token.js';
import { LoomError } from '../../core/errors/loom-error.js';
import type { Config } from '../../core/folds/config/config-topic.js';
import { isValidDid } from '../../core/records/did-syntax.js';
import { KIND_GRANT, KIND_GRANT_REVOCATION } from './auth-thread.js';
import type { AuthWriter, CredentialService } from './credential-service.js';
import { CAVEAT_NAMES, HARD_MAX_LIFETIME_MS, MAX_CHAIN_HOPS, type Caveats, type GrantFields, type GrantNode } from './grant-graph.js';
import { GRANT_LIFETIME_DEFAULTS, grantLifetimeTopic } from './topics.js';
import { grantOf } from './caller-claims.js';

export interface GrantRequest {
  readonly aud: string;
  readonly scopes: readonly string[];
  readonly caveats?: Caveats;
  readonly expires_at?: string;
  readonly ttl_seconds?: number;
  /** The grant to delegate from; by default the caller's own credential's grant (admins may issue roots). */
  readonly parent_grant_id?: string;
  readonly note?: string;
  /** Also mint the audience a bearer parented to the grant, shown once. */
  readonly with_token?: boolean;
}

export interface RevocationSummary {
  grant_id: string;
  standing: 'revoked';
  revoked_at: string | null;
  note: string | null;
  /** Grants out of force through this revocation (the grant and its descendants). */
  grants_revoked: number;
  /** Credentials parented to any of those grants. */
  credentials_revoked: number;
}

export interface Lifetimes {
  readonly default_seconds: number;
  readonly max_seconds: number;
  readonly bearer_seconds: number;
}

export class GrantService {
  constructor(
    private readonly credentials: CredentialService,
    private readonly config: Config,
    private readonly instanceDid: string,
    private readonly envTag: string,
    private readonly now: () => number = Date.now,
  ) {}

  lifetimes(): Lifetimes {
    const entry = this.config.single(grantLifetimeTopic);
    return {
      default_seconds: entry?.default_seconds ?? GRANT_LIFETIME_DEFAULTS.default_seconds,
      max_seconds: Math.min(entry?.max_seconds ?? GRANT_LIFETIME_DEFAULTS.max_seconds, HARD_MAX_LIFETIME_MS / 1000),
      bearer_seconds: entry?.bearer_seconds ?? GRANT_LIFETIME_DEFAULTS.bearer_seconds,
    };
  }

  /** The DID a caller issues as: its principal, or the instance itself when enforcement is off. */
  issuerOf(caller: Caller): string {
    return caller.principal ?? this.instanceDid;
  }

  issue(caller: Caller, request: GrantRequest): Promise<{ grant: GrantNode; bearer: string | null; serviceAccountId: string | null }> {
    if (!isValidDid(request.aud)) throw new LoomError('INVALID_SHAPE', 'aud must be a DID (for example did:sync:user:alice or did:key:z6Mk…)');
    const bad = request.scopes.find((scope) => !isScopeOrGrain(scope));
    if (bad !== undefined) throw new LoomError('INVALID_SHAPE', `scopes: ${JSON.stringify(bad)} is neither a scope nor a wire grain`);
    return this.credentials.transact(async (tx) => {
      const graph = tx.state().grants;
      const parentId = request.parent_grant_id ?? grantOf(caller) ?? null;
      let parent: GrantNode | null = null;
      if (parentId === null) {
        if (!isAdmin(caller.scopes)) throw new LoomError('FORBIDDEN', 'only an admin issues a root grant; delegate from a grant you hold (parent_grant_id)');
      } else {
        parent = graph.get(parentId) ?? null;
        if (!parent) throw new LoomError('NOT_FOUND', `no grant ${parentId}`);
        if (!isAdmin(caller.scopes) && caller.principal !== parent.aud) throw new LoomError('FORBIDDEN', `grant ${parentId} is not held by ${caller.principal ?? 'this caller'}: only its audience (or an admin) delegates from it`);
        const standing = graph.standing(parentId, this.now());
        if (standing !== 'in_force') throw new LoomError('GRANT_REFUSED', `the parent grant ${parentId} is ${standing.replace(/_/g, ' ')}`);
        if (parent.chain.length + 1 > MAX_CHAIN_HOPS) throw new LoomError('GRANT_REFUSED', `a child of ${parentId} would be ${parent.chain.length + 1} hops deep; at most ${MAX_CHAIN_HOPS} are allowed`);
      }
      const expiresAt = this.expiryOf(request, parent);
      const fields: GrantFields = {
        scopes: [...new Set(request.scopes)],
        caveats: this.caveatsOf(request.caveats ?? {}),
        expires_at: expiresAt,
        chain: parent ? [parent.id, ...parent.chain] : [],
        iss: this.issuerOf(caller),
        aud: request.aud,
        guard: null,
        created_at: new Date(this.now()).toISOString(),
        label: null,
        invite_id: null,
        note: request.note ?? null,
      };
      // Refuse what the fold would hold out of force, before anything is written (rules 1-4).
      const fault = graph.faultFor(fields);
      if (fault !== null) throw new LoomError('GRANT_REFUSED', `grant refused: ${fault}`);
      const grant = await writeGrant(tx, fields);
      if (!request.with_token) return { grant, bearer: null, serviceAccountId: null };
      const minted = await this.mintFor(tx, grant, 'grant', this.issuerOf(caller));
      return { grant, bearer: minted.bearer, serviceAccountId: minted.serviceAccountId };
    });
  }

  private caveatsOf(raw: Caveats): Caveats {
    const caveats: Caveats = {};
    for (const [name, value] of Object.entries(raw)) {
      if (!(CAVEAT_NAMES as readonly string[]).includes(name)) throw new LoomError('INVALID_SHAPE', `unknown caveat ${name}: use max_depth, max_fanout or budget`);
      if (value === undefined || value === null) continue;
      caveats[name as keyof Caveats] = value;
    }
    return caveats;
  }

  private expiryOf(request: GrantRequest, parent: GrantNode | null): string {
    const now = this.now();
    const { default_seconds, max_seconds } = this.lifetimes();
    if (request.expires_at !== undefined && request.ttl_seconds !== undefined) throw new LoomError('INVALID_SHAPE', 'send expires_at or ttl_seconds, not both');
    let expires: number;
    if (request.expires_at !== undefined) expires = Date.parse(request.expires_at);
    else if (request.ttl_seconds !== undefined) expires = now + request.ttl_seconds * 1000;
    else expires = Math.min(now + default_seconds * 1000, parent?.effectiveExpiresMs ?? Infinity);
    if (!Number.isFinite(expires)) throw new LoomError('INVALID_SHAPE', 'expires_at must be an ISO 8601 timestamp');
    if (expires <= now) throw new LoomError('GRANT_REFUSED', 'expires_at is in the past');
    if (expires > now + max_seconds * 1000 + 1000) {
      throw new LoomError('GRANT_REFUSED', `a grant lives at most ${max_seconds} s (configuration topic grant_lifetime); ask for an earlier expires_at`);
    }
    if (parent && expires > parent.effectiveExpiresMs) {
      throw new LoomError('GRANT_REFUSED', `expires_at is later than the parent chain's (${new Date(parent.effectiveExpiresMs).toISOString()}); a child never outlives its parent`);
    }
    return new Date(expires).toISOString();
  }

  /** Mints a bearer for a grant's audience on its holder account (created if needed), parented to the grant. */
  async mintFor(tx: AuthWriter, grant: GrantNode, via: string, by: string | null): Promise<{ bearer: string; serviceAccountId: string; expiresAt: string }> {
    const state = tx.state();
    const existing = state.accountByDid.get(grant.aud);
    let account = existing === undefined ? undefined : state.accounts.get(existing);
    if (!account || !account.active) {
      account = await tx.createAccount({
        displayName: grant.label ?? grant.aud,
        did: grant.aud,
        scopes: [...grant.scopes],
        actors: [grant.aud],
        namespace: 'default',
        by,
      });
    }
    const expiresAt = new Date(Math.min(this.now() + this.lifetimes().bearer_seconds * 1000, grant.effectiveExpiresMs)).toISOString();
    // A bearer under a grant writes as the grant's audience only, whatever else the holder account may act as
    // (a grant to an existing account's DID must not hand out that account's wider actor list).
    const { bearer } = await tx.mint({ serviceAccountId: account.id, envTag: this.envTag, tokenId: null, by, grantId: grant.id, scopes: grant.scopes, actors: [grant.aud], via, expiresAt });
    return { bearer: bearer!, serviceAccountId: account.id, expiresAt };
  }

  /**
   * Revokes a grant and its subtree. Allowed to an admin, to the grant's
   * issuer, to the audience of any ancestor (who could have stopped the
   * delegation), and to the audience itself (giving it up). Idempotent: a
   * second call writes nothing and answers the same summary.
   */
  revoke(caller: Caller, grantId: string, note: string | null): Promise<RevocationSummary> {
    return this.credentials.transact(async (tx) => {
      const graph = tx.state().grants;
      const node = graph.get(grantId);
      const me = caller.principal;
      const mayRevoke = node !== undefined && (isAdmin(caller.scopes) || (me !== null && (me === node.iss || me === node.aud || node.chain.some((id) => graph.get(id)?.aud === me))));
      // One answer for a grant that does not exist and one the caller may not touch: neither is disclosed.
      if (!node || !mayRevoke) throw new LoomError('NOT_FOUND', `no grant ${grantId} that this caller may revoke`);
      if (!node.revoked) await revokeGrant(tx, grantId, note, this.issuerOf(caller), 'revoked');
      return summarise(tx, grantId);
    });
  }
}

export async function writeGrant(tx: AuthWriter, fields: GrantFields): Promise<GrantNode> {
  const id = await tx.write({ kind: KIND_GRANT, ...fields, caveats: { ...fields.caveats }, scopes: [...fields.scopes], chain: [...fields.chain] }, fields.chain.slice(0, 1));
  const node = tx.state().grants.get(id);
  if (!node) throw new LoomError('INTERNAL', 'the grant record did not come into force');
  const fault = node.fault;
  if (fault !== null) throw new LoomError('GRANT_REFUSED', `the grant was recorded but is not in force: ${fault}`);
  return node;
}

export async function revokeGrant(tx: AuthWriter, grantId: string, note: string | null, by: string | null, reason: string): Promise<void> {
  await tx.write({ kind: KIND_GRANT_REVOCATION, revoked_grant: grantId, reason, revoked_at: new Date().toISOString(), by, ...(note ? { note } : {}) });
}

/** The same figures every time it is asked for a revoked grant. */
export function summarise(tx: { state: AuthWriter['state'] }, grantId: string): RevocationSummary {
  const state = tx.state();
  const graph = state.grants;
  const root = graph.get(grantId)!;
  const subtree = new Set<string>();
  const stack = [grantId];
  while (stack.length > 0) {
    const id = stack.pop()!;
    if (subtree.has(id)) continue;
    subtree.add(id);
    stack.push(...graph.get(id)!.children);
  }
  let credentials = 0;
  for (const entry of state.tokens.values()) if (entry.grant_id !== null && subtree.has(entry.grant_id)) credentials++;
  return { grant_id: grantId, standing: 'revoked', revoked_at: root.revokedAt, note: root.revocationNote, grants_revoked: subtree.size, credentials_revoked: credentials };
}

export const GrantServiceToken = token<GrantService>('auth.GrantService');
