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
