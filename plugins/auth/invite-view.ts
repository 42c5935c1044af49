/** An invite as the API shows it: never its secret or the secret's hash. */
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
