/**
 * Where the auth plugin keeps its facts: service accounts, tokens (their
 * hashes only) and revocations are records on one thread of their own,
 * written only by this plugin (an ingest gate refuses every other writer) and
 * sealed from every caller but an admin (a read policy). The id is derived
 * like any thread id, from a fixed seed, so every instance agrees on it.
 */
import { canonicalJson } from '../../core/records/canonical-json.js';
import { nobleSha256Hex } from '../../core/records/sha256.js';

export const AUTH_THREAD = 'th_' + nobleSha256Hex(canonicalJson(['reserved', 'loom.auth.credentials']));

/** The actor of the plugin's records; `body.by` names who asked. */
export const AUTH_ACTOR = 'did:sync:system:loom-auth';

export const KIND_SERVICE_ACCOUNT = 'core.auth.service_account.v1';
export const KIND_TOKEN = 'core.auth.token.v1';
export const KIND_REVOCATION = 'core.auth.revocation.v1';

/** Delegation grants (spec §2.5, §5.4); the record id is the grant id. */
export const KIND_GRANT = 'core.identity.grant.v1';
/** Revokes a grant and, with it, every descendant grant and every credential parented to them. */
export const KIND_GRANT_REVOCATION = 'core.identity.revoke.v1';
/** Parents an adopted service account's live tokens to a membership grant. */
export const KIND_ADOPTION = 'core.identity.adoption.v1';
export const KIND_INVITE = 'core.invite.v1';
export const KIND_INVITE_REVOCATION = 'core.invite.revoke.v1';
/** A proof a principal can re-credential with (recovery code hash, passkey public key, account subject). */
export const KIND_BINDING = 'core.identity.binding.v1';
/** A binding removed by its principal, or a recovery code spent by use. */
export const KIND_BINDING_REMOVAL = 'core.identity.binding_removal.v1';
/** A passkey's last seen signature counter, so a cloned authenticator is noticed across restarts. */
export const KIND_PASSKEY_COUNTER = 'core.identity.passkey_counter.v1';
