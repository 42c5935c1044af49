/**
 * Memberships (spec §2.5, §4.14): a membership is a root grant carrying a
 * `label`, to `did:sync:user:<label>` (or to an adopted account's DID), with
 * a holder account whose bearers are parented to it. Invites are how people
 * join; adoption is how an admin makes an existing account or actor a member.
 * Revoking a membership revokes its grant, which cascades to every grant
 * delegated below it and every credential parented to any of them.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { ANONYMOUS, type Caller } from '../../core/access/caller.js';
import { isAdmin, isScopeOrGrain } from '../../core/access/scopes.js';
import { token } from '../../core/di/token.js';
import { LoomError } from '../../core/errors/loom-error.js';
import { isValidDid } from '../../core/records/did-syntax.js';
import { KIND_ADOPTION, KIND_INVITE, KIND_INVITE_REVOCATION } from './auth-thread.js';
import type { CredentialService } from './credential-service.js';
import type { GrantNode } from './grant-graph.js';
import { revokeGrant, summarise, writeGrant, type GrantService, type RevocationSummary } from './grant-service.js';
import { inviteState, type InviteEntry, type InviteState } from './invites.js';
import { SCOPE_PRESETS } from './scope-presets.js';

export const LABEL_PATTERN = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
export const INVITE_TOKEN_PREFIX = 'loominv';
const INVITE_TOKEN = /^loominv_(inv_[a-z2-7]{20})_([A-Za-z0-9.~-]{43})$/;
const DAY = 86_400;

export const memberDid = (label: string): string => `did:sync:user:${label}`;

export interface InviteRequest {
  readonly membership: { preset?: string; scopes?: string[]; label?: string; grant_ttl_seconds?: number };
  readonly ttl_seconds?: number;
  readonly max_uses?: number;
  readonly note?: string;
}

export interface MemberRow {
  object: 'member';
  label: string;
  did: string;
  sa_id: string | null;
  grant_id: string;
  scopes: string[];
  state: 'active' | 'revoked' | 'expired' | 'not_in_force';
  via: 'invite' | 'adopt';
  created_at: string;
  expires_at: string;
  revoked_at: string | null;
  note: string | null;
}

function hashSecret(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

export class MembershipService {
  constructor(
    private readonly credentials: CredentialService,
    private readonly grants: GrantService,
    private readonly now: () => number = Date.now,
  ) {}

  private scopesOf(spec: { preset?: string; scopes?: string[] }): { scopes: string[]; preset: string | null } {
    if (spec.preset !== undefined && spec.scopes !== undefined) throw new LoomError('INVALID_SHAPE', 'membership: send a preset or scopes, not both');
    if (spec.scopes !== undefined) {
      const bad = spec.scopes.find((s) => !isScopeOrGrain(s));
      if (bad !== undefined) throw new LoomError('INVALID_SHAPE', `membership.scopes: ${JSON.stringify(bad)} is neither a scope nor a wire grain`);
      return { scopes: [...new Set(spec.scopes)], preset: null };
    }
    const preset = spec.preset ?? 'contributor';
    const scopes = (SCOPE_PRESETS as Record<string, readonly string[]>)[preset];
    if (!scopes) throw new LoomError('INVALID_SHAPE', `membership.preset must be one of ${Object.keys(SCOPE_PRESETS).join(', ')}`);
    return { scopes: [...scopes], preset };
  }

  private grantTtl(requested: number | undefined): number {
    const { default_seconds, max_seconds } = this.grants.lifetimes();
    const ttl = requested ?? Math.min(default_seconds, max_seconds);
    if (ttl > max_seconds) throw new LoomError('GRANT_REFUSED', `membership.grant_ttl_seconds exceeds the grant lifetime cap of ${max_seconds} s (configuration topic grant_lifetime)`);
    return ttl;
  }

  async createInvite(caller: Caller, request: InviteRequest): Promise<{ invite: InviteEntry; token: string }> {
    const { scopes, preset } = this.scopesOf(request.membership);
    const label = request.membership.label ?? null;
    if (label !== null && !LABEL_PATTERN.test(label)) throw new LoomError('INVALID_SHAPE', 'membership.label: lowercase letters, digits and hyphens, at most 63 characters');
    const maxUses = request.max_uses ?? 1;
    if (label !== null && maxUses !== 1) throw new LoomError('INVALID_SHAPE', 'an invite pinned to a label is single-use (max_uses 1)');
    const grantTtl = this.grantTtl(request.membership.grant_ttl_seconds);
    const ttl = request.ttl_seconds ?? DAY;
    const secret = randomBytes(32).toString('base64url').replace(/_/g, '.');
    const alphabet = 'abcdefghijklmnopqrstuvwxyz234567';
    const inviteId = 'inv_' + Array.from(randomBytes(20), (b) => alphabet[b & 31]).join('');
    return this.credentials.transact(async (tx) => {
      await tx.write({
        kind: KIND_INVITE,
        invite_id: inviteId,
        secret_hash: hashSecret(secret),
        issued_by: this.grants.issuerOf(caller),
        created_at: new Date(this.now()).toISOString(),
        expires_at: new Date(this.now() + ttl * 1000).toISOString(),
        max_uses: maxUses,
        scopes,
        preset,
        label,
        grant_ttl_seconds: grantTtl,
        ...(request.note ? { note: request.note } : {}),
      });
      const invite = tx.state().invites.get(inviteId);
      if (!invite) throw new LoomError('INTERNAL', 'the invite record did not come into force');
      return { invite, token: `${INVITE_TOKEN_PREFIX}_${inviteId}_${secret}` };
    });
  }

  invites(): InviteEntry[] {
    return [...this.credentials.state().invites.values()];
  }

  inviteState(invite: InviteEntry): InviteState {
    return inviteState(invite, this.now());
  }

  revokeInvite(inviteId: string, by: string | null): Promise<InviteEntry> {
    return this.credentials.transact(async (tx) => {
      const invite = tx.state().invites.get(inviteId);
      if (!invite) throw new LoomError('INVITE_NOT_FOUND', `no invite ${inviteId}`);
      if (!invite.revoked) await tx.write({ kind: KIND_INVITE_REVOCATION, invite_id: inviteId, revoked_at: new Date(this.now()).toISOString(), by });
      return tx.state().invites.get(inviteId)!;
    });
  }

  /**
   * Redeems an invite: writes the membership grant first (it is what counts
   * a use), then the holder account, then the bearer. Cut short, the worst
   * left behind is a membership without a bearer, which an admin revokes.
   */
  redeem(inviteToken: string, requestedLabel: string | undefined): Promise<{ grant: GrantNode; bearer: string; serviceAccountId: string; expiresAt: string; renewed: boolean }> {
    const match = INVITE_TOKEN.exec(inviteToken);
    return this.credentials.transact(async (tx) => {
      const invite = match ? tx.state().invites.get(match[1]!) : undefined;
      const presented = match ? Buffer.from(hashSecret(match[2]!), 'hex') : Buffer.alloc(32);
      if (!invite || !timingSafeEqual(presented, Buffer.from(invite.secret_hash, 'hex'))) {
        throw new LoomError('INVITE_NOT_FOUND', 'no invite matches this invite token; ask for a new one');
      }
      const state = this.inviteState(invite);
      if (state === 'revoked') throw new LoomError('INVITE_REVOKED', 'this invite was revoked by its issuer');
      if (state === 'expired') throw new LoomError('INVITE_EXPIRED', `this invite expired at ${invite.expires_at}`);
      if (state !== 'active') throw new LoomError('INVITE_EXHAUSTED', 'this invite has been used');
      const label = invite.label ?? requestedLabel;
      if (label === undefined) throw new LoomError('INVALID_SHAPE', 'label is required: the name you will be known by (lowercase letters, digits, hyphens)');
      if (!LABEL_PATTERN.test(label)) throw new LoomError('INVALID_SHAPE', 'label: lowercase letters, digits and hyphens, at most 63 characters');
      if (invite.label !== null && requestedLabel !== undefined && requestedLabel !== invite.label) {
        throw new LoomError('INVALID_SHAPE', `this invite is pinned to the label ${invite.label}`);
      }
      const graph = tx.state().grants;
      const held = graph.membershipsOf(label).filter((g) => graph.standing(g.id, this.now()) === 'in_force');
      // Renewal happens only through an invite pinned to the label by an admin; anyone else is refused the name.
      if (held.length > 0 && invite.label === null) throw new LoomError('MEMBER_LABEL_TAKEN', `the label ${label} belongs to a current member; choose another`);
      const grant = await writeGrant(tx, {
        scopes: [...invite.scopes],
        caveats: {},
        expires_at: new Date(this.now() + invite.grant_ttl_seconds * 1000).toISOString(),
        chain: [],
        iss: invite.issued_by ?? this.grants.issuerOf(ANONYMOUS),
        aud: memberDid(label),
        guard: null,
        created_at: new Date(this.now()).toISOString(),
        label,
        invite_id: invite.invite_id,
        note: null,
      });
      const minted = await this.grants.mintFor(tx, grant, 'invite', invite.issued_by);
      for (const old of held) await revokeGrant(tx, old.id, 'membership renewed', invite.issued_by, 'membership-renewed');
      return { grant, bearer: minted.bearer, serviceAccountId: minted.serviceAccountId, expiresAt: minted.expiresAt, renewed: held.length > 0 };
    });
  }

  /**
   * Adopts an existing account (its live bearers keep working, now under the
   * membership grant) or an actor DID (a fresh bearer is minted, shown once).
   */
  adopt(
    caller: Caller,
    request: { label: string; sa_id?: string; did?: string; preset?: string; scopes?: string[]; grant_ttl_seconds?: number; note?: string },
  ): Promise<{ grant: GrantNode; bearer: string | null; serviceAccountId: string | null; expiresAt: string | null }> {
    if (!LABEL_PATTERN.test(request.label)) throw new LoomError('INVALID_SHAPE', 'label: lowercase letters, digits and hyphens, at most 63 characters');
    if ((request.sa_id === undefined) === (request.did === undefined)) throw new LoomError('INVALID_SHAPE', 'adopt names exactly one of sa_id (a service account) or did (an actor)');
    if (request.did !== undefined && !isValidDid(request.did)) throw new LoomError('INVALID_SHAPE', 'did must be a DID');
    const ttl = this.grantTtl(request.grant_ttl_seconds);
    return this.credentials.transact(async (tx) => {
      const state = tx.state();
      const graph = state.grants;
      if (graph.membershipsOf(request.label).some((g) => graph.standing(g.id, this.now()) === 'in_force')) {
        throw new LoomError('MEMBER_LABEL_TAKEN', `the label ${request.label} belongs to a current member; revoke it first or choose another`);
      }
      const account = request.sa_id === undefined ? undefined : state.accounts.get(request.sa_id);
      if (request.sa_id !== undefined && (!account || !account.active)) throw new LoomError('NOT_FOUND', `no live service account ${request.sa_id}`);
      const spec = request.scopes === undefined && request.preset === undefined && account ? { scopes: [...account.scopes] } : request;
      const { scopes } = this.scopesOf(spec);
      const grant = await writeGrant(tx, {
        scopes,
        caveats: {},
        expires_at: new Date(this.now() + ttl * 1000).toISOString(),
        chain: [],
        iss: this.grants.issuerOf(caller),
        aud: account ? account.did : request.did!,
        guard: null,
        created_at: new Date(this.now()).toISOString(),
        label: request.label,
        invite_id: null,
        note: request.note ?? null,
      });
      if (account) {
        await tx.write({ kind: KIND_ADOPTION, service_account_id: account.id, grant_id: grant.id, label: request.label, by: this.grants.issuerOf(caller) });
        return { grant, bearer: null, serviceAccountId: account.id, expiresAt: null };
      }
      const minted = await this.grants.mintFor(tx, grant, 'adopt', this.grants.issuerOf(caller));
      return { grant, bearer: minted.bearer, serviceAccountId: minted.serviceAccountId, expiresAt: minted.expiresAt };
    });
  }

  /** Member rows: every label's newest membership. An admin sees all; anyone else only rows that are theirs. */
  members(caller: Caller): MemberRow[] {
    const state = this.credentials.state();
    const graph = state.grants;
    const rows: MemberRow[] = [];
    for (const label of graph.labels()) {
      const list = graph.membershipsOf(label);
      const grant = list[list.length - 1]!;
      if (!isAdmin(caller.scopes) && caller.principal !== grant.aud) continue;
      rows.push(this.rowOf(grant));
    }
    return rows.sort((a, b) => (a.label < b.label ? -1 : 1));
  }

  rowOf(grant: GrantNode): MemberRow {
    const state = this.credentials.state();
    const standing = state.grants.standing(grant.id, this.now());
    return {
      object: 'member',
      label: grant.label!,
      did: grant.aud,
      sa_id: state.accountByDid.get(grant.aud) ?? null,
      grant_id: grant.id,
      scopes: [...grant.scopes],
      state: standing === 'in_force' ? 'active' : standing,
      via: grant.invite_id === null ? 'adopt' : 'invite',
      created_at: grant.created_at,
      expires_at: grant.expires_at,
      revoked_at: grant.revokedAt,
      note: grant.revocationNote,
    };
  }

  /** Revokes a label's membership (every live membership grant of it); idempotent, same answer twice. */
  revokeMember(caller: Caller, label: string, note: string | null): Promise<MemberRow & { grants_revoked: number; credentials_revoked: number }> {
    return this.credentials.transact(async (tx) => {
      const graph = tx.state().grants;
      const list = graph.membershipsOf(label);
      const newest = list[list.length - 1];
      // Another's membership reads exactly like a missing one.
      if (!newest || (!isAdmin(caller.scopes) && caller.principal !== newest.aud)) throw new LoomError('NOT_FOUND', `no member ${label}`);
      for (const grant of list) if (!grant.revoked) await revokeGrant(tx, grant.id, note, this.grants.issuerOf(caller), 'membership-revoked');
      const totals = list.map((g) => summarise(tx, g.id)).reduce((sum: Pick<RevocationSummary, 'grants_revoked' | 'credentials_revoked'>, s) => ({ grants_revoked: sum.grants_revoked + s.grants_revoked, credentials_revoked: sum.credentials_revoked + s.credentials_revoked }), { grants_revoked: 0, credentials_revoked: 0 });
      return { ...this.rowOf(newest), ...totals };
    });
  }
}

export const MembershipServiceToken = token<MembershipService>('auth.MembershipService');
