/** Invites and memberships as the API shows them: never an invite's secret or the secret's hash. */
import type { GrantNode } from './grant-graph.js';
import type { InviteEntry, InviteState } from './invites.js';

export function inviteView(invite: InviteEntry, state: InviteState) {
  const uses = invite.redemptions.length;
  return {
    object: 'invite' as const,
    invite_id: invite.invite_id,
    state,
    issued_by: invite.issued_by,
    created_at: invite.created_at,
    expires_at: invite.expires_at,
    max_uses: invite.max_uses,
    uses,
    uses_remaining: state === 'active' ? Math.max(0, invite.max_uses - uses) : 0,
    membership: { preset: invite.preset, scopes: [...invite.scopes], label: invite.label, grant_ttl_seconds: invite.grant_ttl_seconds },
    note: invite.note,
    revoked_at: invite.revoked_at,
    redeem: { method: 'POST' as const, path: '/v1/invites/redeem' as const },
  };
}

/** A membership just issued (by redemption or adoption), with its bearer when one was minted: shown once. */
export function membershipIssuedView(
  grant: GrantNode,
  issued: { bearer: string | null; serviceAccountId: string | null; expiresAt: string | null; renewed: boolean },
) {
  return {
    object: 'membership' as const,
    label: grant.label!,
    principal: grant.aud,
    sa_id: issued.serviceAccountId,
    grant_id: grant.id,
    scopes: [...grant.scopes],
    grant_expires_at: grant.expires_at,
    token: issued.bearer,
    expires_at: issued.expiresAt,
    renewed: issued.renewed,
  };
}
