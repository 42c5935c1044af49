/**
 * Bearers are `loom_<env>_<sa_id>_<secret>` (spec §5.1). The secret is the
 * credential; the log keeps only its token id, SHA-256 (hex) of the secret,
 * so the plaintext never enters a record. Secrets contain no `_`, so the
 * last `_` separates the secret from the account id (which may contain `_`).
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { nodeSha256Hex } from '../../core/engine/native-hash.js';

export const BEARER_PREFIX = 'loom';
/** Server-minted secrets: 32 bytes from the CSPRNG, base64url (43 characters, no `_`: see below). */
const SECRET_BYTES = 32;
export const SECRET_PATTERN = /^[A-Za-z0-9.~-]{16,256}$/;
export const SERVICE_ACCOUNT_ID_PATTERN = /^sa[_-][A-Za-z0-9_-]{1,64}$/;
export const ENV_TAG_PATTERN = /^[a-z0-9]{1,16}$/;
/** The longest bearer worth hashing; anything longer is refused unread. */
const MAX_BEARER = 400;

export interface ParsedBearer {
  readonly env: string;
  readonly serviceAccountId: string;
  readonly secret: string;
}

export function parseBearer(bearer: string): ParsedBearer | null {
  if (bearer.length > MAX_BEARER || !bearer.startsWith(`${BEARER_PREFIX}_`)) return null;
  const rest = bearer.slice(BEARER_PREFIX.length + 1);
  const envEnd = rest.indexOf('_');
  const secretStart = rest.lastIndexOf('_');
  if (envEnd <= 0 || secretStart <= envEnd) return null;
  const env = rest.slice(0, envEnd);
  const serviceAccountId = rest.slice(envEnd + 1, secretStart);
  const secret = rest.slice(secretStart + 1);
  if (!ENV_TAG_PATTERN.test(env) || !SERVICE_ACCOUNT_ID_PATTERN.test(serviceAccountId) || !SECRET_PATTERN.test(secret)) return null;
  return { env, serviceAccountId, secret };
}

export function formatBearer(env: string, serviceAccountId: string, secret: string): string {
  return `${BEARER_PREFIX}_${env}_${serviceAccountId}_${secret}`;
}

/** A fresh secret: 256 bits, base64url with `_` replaced by `.` (so it never splits a bearer). */
export function mintSecret(): string {
  return randomBytes(SECRET_BYTES).toString('base64url').replace(/_/g, '.');
}

/** The token id of a secret: SHA-256 of its UTF-8 bytes, lowercase hex (one-shot: every authenticated request hashes its bearer). */
export function tokenIdOf(secret: string): string {
  return nodeSha256Hex(secret);
}

/** Constant-time comparison of two token ids (hex of equal length). */
export function sameTokenId(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex');
  const right = Buffer.from(b, 'hex');
  return left.length === right.length && left.length > 0 && timingSafeEqual(left, right);
}
