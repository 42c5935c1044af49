/**
 * credentials: service accounts, tokens, delegation grants, invites and
 * bindings, with their revocations, folded from the records on the auth thread. The token map is keyed by token id (SHA-256 of
 * the secret), so checking a bearer is one hash and one map lookup, never a
 * storage read. Only this plugin writes the thread, but the fold still
 * checks each record's shape: a record it cannot read is skipped, never
 * half-applied.
 */
import type { Fold } from '../../core/folds/fold.js';
import { isAdmin } from '../../core/access/scopes.js';
import { AUTH_ACTOR, AUTH_THREAD, KIND_ADOPTION, KIND_BINDING, KIND_BINDING_REMOVAL, KIND_GRANT, KIND_GRANT_REVOCATION, KIND_INVITE, KIND_INVITE_REVOCATION, KIND_PASSKEY_COUNTER, KIND_REVOCATION, KIND_SERVICE_ACCOUNT, KIND_TOKEN } from './auth-thread.js';
import { GrantGraph, readGrantFields } from './grant-graph.js';
import { applyBinding, applyBindingRemoval, applyPasskeyCounter, type BindingEntry } from './bindings.js';
import { applyInvite, applyInviteRevocation, type InviteEntry } from './invites.js';

export interface ServiceAccount {
  readonly id: string;
  readonly display_name: string;
  readonly did: string;
  readonly scopes: readonly string[];
  readonly actors: readonly string[];
  readonly namespace: string;
  readonly created_at: string | null;
  active: boolean;
  revoked_at: string | null;
  readonly record_id: string;
}

export interface TokenEntry {
  readonly token_id: string;
  readonly service_account_id: string;
  readonly env_tag: string;
  /** Snapshotted at issuance (spec §5.2). */
  readonly scopes: readonly string[];
  readonly actors: readonly string[];
  readonly created_at: string | null;
  readonly expires_at: string | null;
  revoked: boolean;
  readonly record_id: string;
  /** The grant this credential is parented to (spec §5.4 rule 9), or null for a legacy credential. */
  grant_id: string | null;
  /** How it was issued: bootstrap, mint, rotate, invite, grant, adopt, recredential. */
  readonly via: string;
}

export interface CredentialsState {
  readonly accounts: Map<string, ServiceAccount>;
  readonly tokens: Map<string, TokenEntry>;
  readonly grants: GrantGraph;
  readonly invites: Map<string, InviteEntry>;
  readonly bindings: Map<string, BindingEntry>;
  /** The newest account holding each DID (a member's holder account). */
  readonly accountByDid: Map<string, string>;
  /** Highest clock the plugin's actor has written on the thread (-1 before any). */
  clock: number;
  /** Bumped on every applied record, so caches of derived callers know when to drop. */
  version: number;
}

export interface CredentialsValue {
  service_accounts: Array<Omit<ServiceAccount, 'record_id'> & { record_id: string; tokens: number }>;
  tokens: Array<Omit<TokenEntry, 'token_id'> & { token_id_prefix: string }>;
  /** Counts only: grants are served by the grant fold, invites and bindings by their routes. */
  grants: number;
  invites: number;
  bindings: number;
}

const strings = (value: unknown): string[] | null => (Array.isArray(value) && value.every((v) => typeof v === 'string') ? (value as string[]) : null);
const text = (value: unknown): string | null => (typeof value === 'string' ? value : null);

export const credentialsFold: Fold<CredentialsState, CredentialsValue> = {
  name: 'credentials',
  scope: 'global',
  description: 'Service accounts and bearer tokens (hashes only) with their revocations; admin only.',
  threads: [AUTH_THREAD],
  initial: () => ({ accounts: new Map(), tokens: new Map(), grants: new GrantGraph(), invites: new Map(), bindings: new Map(), accountByDid: new Map(), clock: -1, version: 0 }),
  apply(state, { record }) {
    if (record.thread !== AUTH_THREAD) return state;
    if (record.actor === AUTH_ACTOR) state.clock = Math.max(state.clock, record.clock);
    const body = record.body;
    switch (body['kind']) {
      case KIND_SERVICE_ACCOUNT: {
        const id = text(body['service_account_id']);
        const scopes = strings(body['scopes']);
        const actors = strings(body['actors']);
        if (!id || !scopes || !actors || state.accounts.has(id)) return state;
        state.accounts.set(id, {
          id,
          display_name: text(body['display_name']) ?? id,
          did: text(body['did']) ?? `did:sync:system:${id}`,
          scopes,
          actors,
          namespace: text(body['account_namespace']) ?? 'default',
          created_at: text(body['created_at']),
          active: true,
          revoked_at: null,
          record_id: record.id,
        });
        state.accountByDid.set(state.accounts.get(id)!.did, id);
        break;
      }
      case KIND_TOKEN: {
        const tokenId = text(body['token_id']);
        const accountId = text(body['service_account_id']);
        const scopes = strings(body['scopes']);
        const actors = strings(body['actors']);
        const account = accountId ? state.accounts.get(accountId) : undefined;
        // A token for an unknown or revoked account never comes into force.
        if (!tokenId || !/^[0-9a-f]{64}$/.test(tokenId) || !account || !account.active || !scopes || !actors || state.tokens.has(tokenId)) return state;
        // A token citing a grant this log does not hold would escape every revocation: it never comes into force.
        const grantId = text(body['grant_id']);
        if (grantId !== null && !state.grants.has(grantId)) return state;
        state.tokens.set(tokenId, {
          token_id: tokenId,
          service_account_id: account.id,
          env_tag: text(body['env_tag']) ?? 'prod',
          scopes,
          actors,
          created_at: text(body['created_at']),
          expires_at: text(body['expires_at']),
          revoked: false,
          record_id: record.id,
          grant_id: grantId,
          via: text(body['via']) ?? 'mint',
        });
        break;
      }
      case KIND_GRANT: {
        const fields = readGrantFields(body);
        if (typeof fields === 'string' || state.grants.has(record.id)) return state;
        state.grants.add(record.id, fields);
        if (fields.invite_id !== null) state.invites.get(fields.invite_id)?.redemptions.push(record.id);
        break;
      }
      case KIND_GRANT_REVOCATION: {
        const grantId = text(body['revoked_grant']);
        if (grantId === null || state.grants.revoke(grantId, text(body['revoked_at']), text(body['note'])).length === 0) return state;
        break;
      }
      case KIND_ADOPTION: {
        // The account's live legacy tokens come under the membership grant, so revoking the member reaches them.
        const accountId = text(body['service_account_id']);
        const grantId = text(body['grant_id']);
        if (accountId === null || grantId === null || !state.grants.has(grantId)) return state;
        for (const token of state.tokens.values()) if (token.service_account_id === accountId && !token.revoked && token.grant_id === null) token.grant_id = grantId;
        break;
      }
      case KIND_INVITE:
        if (!applyInvite(state.invites, record, body)) return state;
        break;
      case KIND_INVITE_REVOCATION:
        if (!applyInviteRevocation(state.invites, body)) return state;
        break;
      case KIND_BINDING:
        if (!applyBinding(state.bindings, record, body)) return state;
        break;
      case KIND_BINDING_REMOVAL:
        if (!applyBindingRemoval(state.bindings, body)) return state;
        break;
      case KIND_PASSKEY_COUNTER:
        if (!applyPasskeyCounter(state.bindings, body)) return state;
        break;
      case KIND_REVOCATION: {
        const accountId = text(body['service_account_id']);
        const tokenId = text(body['token_id']);
        if (tokenId) {
          const token = state.tokens.get(tokenId);
          if (token && (!accountId || token.service_account_id === accountId)) token.revoked = true;
        } else if (accountId) {
          const account = state.accounts.get(accountId);
          if (!account) return state;
          account.active = false;
          account.revoked_at = text(body['revoked_at']);
          for (const token of state.tokens.values()) if (token.service_account_id === accountId) token.revoked = true;
        }
        break;
      }
      default:
        return state;
    }
    state.version++;
    return state;
  },
  value(state) {
    const live = new Map<string, number>();
    for (const token of state.tokens.values()) if (!token.revoked) live.set(token.service_account_id, (live.get(token.service_account_id) ?? 0) + 1);
    return {
      service_accounts: [...state.accounts.values()].map((account) => ({ ...account, scopes: [...account.scopes], actors: [...account.actors], tokens: live.get(account.id) ?? 0 })),
      // Token ids are hashes of secrets; the value shows a prefix to tell them apart, never the whole hash.
      tokens: [...state.tokens.values()].map(({ token_id, ...token }) => ({ ...token, scopes: [...token.scopes], actors: [...token.actors], token_id_prefix: token_id.slice(0, 12) })),
      grants: state.grants.size,
      invites: state.invites.size,
      bindings: [...state.bindings.values()].filter((b) => !b.removed).length,
    };
  },
  // Only admins see credentials: a restricted caller gets an empty view, the honest complete answer for it.
  view: (value, viewer) => (isAdmin(viewer.scopes) ? value : { service_accounts: [], tokens: [], grants: 0, invites: 0, bindings: 0 }),
};
