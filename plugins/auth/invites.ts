/**
 * Membership invites (spec §4.14): an admin issues one from a preset or a
 * scope set; the holder of its secret redeems it once (or up to `max_uses`
 * times) for a membership: a grant to `did:sync:user:<label>`, a holder
 * account and a bearer parented to the grant. The log keeps only the
 * secret's hash. Uses are counted from the membership grants that cite the
 * invite, so a redemption and its count can never disagree.
 */
import type { LoomRecord } from '../../core/records/record.js';

export type InviteState = 'active' | 'redeemed' | 'exhausted' | 'revoked' | 'expired';

export interface InviteEntry {
  readonly invite_id: string;
  readonly secret_hash: string;
  readonly issued_by: string | null;
  readonly created_at: string | null;
  readonly expires_at: string;
  readonly max_uses: number;
  readonly scopes: readonly string[];
  readonly preset: string | null;
  /** A label pinned by the issuer: the membership it creates (or renews) is that label's. */
  readonly label: string | null;
  readonly grant_ttl_seconds: number;
  readonly note: string | null;
  revoked: boolean;
  revoked_at: string | null;
  /** Membership grant ids created through it, in log order. */
  readonly redemptions: string[];
  readonly record_id: string;
}

const text = (value: unknown): string | null => (typeof value === 'string' && value.length > 0 ? value : null);

export function applyInvite(invites: Map<string, InviteEntry>, record: LoomRecord, body: Readonly<Record<string, unknown>>): boolean {
  const id = text(body['invite_id']);
  const hash = text(body['secret_hash']);
  const expires = text(body['expires_at']);
  const maxUses = body['max_uses'];
  const ttl = body['grant_ttl_seconds'];
  const scopes = body['scopes'];
  if (id === null || invites.has(id) || hash === null || expires === null || typeof maxUses !== 'number' || typeof ttl !== 'number') return false;
  if (!Array.isArray(scopes) || !scopes.every((s) => typeof s === 'string')) return false;
  invites.set(id, {
    invite_id: id,
    secret_hash: hash,
    issued_by: text(body['issued_by']),
    created_at: text(body['created_at']),
    expires_at: expires,
    max_uses: maxUses,
    scopes: scopes as string[],
    preset: text(body['preset']),
    label: text(body['label']),
    grant_ttl_seconds: ttl,
    note: text(body['note']),
    revoked: false,
    revoked_at: null,
    redemptions: [],
    record_id: record.id,
  });
  return true;
}

export function applyInviteRevocation(invites: Map<string, InviteEntry>, body: Readonly<Record<string, unknown>>): boolean {
  const invite = invites.get(text(body['invite_id']) ?? '');
  if (!invite || invite.revoked) return false;
  invite.revoked = true;
  invite.revoked_at = text(body['revoked_at']);
  return true;
}

export function inviteState(invite: InviteEntry, now: number): InviteState {
  if (invite.revoked) return 'revoked';
  if (invite.redemptions.length >= invite.max_uses) return invite.max_uses === 1 ? 'redeemed' : 'exhausted';
  if (!(Date.parse(invite.expires_at) > now)) return 'expired';
  return 'active';
}
