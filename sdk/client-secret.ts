/**
 * The client's half of a bearer (spec §5.1, `loom_<env>_<sa_id>_<secret>`):
 * a client that creates a credential (`loom bootstrap`, a service account
 * with `with_token`) mints the secret itself and sends only its token id, so
 * the plaintext never travels and the server never holds it. The auth
 * plugin parses and checks bearers on its side (plugins/auth/bearer-token.ts);
 * test/client-secret.test.ts keeps the two halves in step.
 */
import { base64urlnopad } from '@scure/base';
import { nobleSha256Hex } from '../core/records/sha256.js';

const SECRET_BYTES = 32;
const ACCOUNT_ID_ALPHABET = 'abcdefghijklmnopqrstuvwxyz234567';

function randomBytes(length: number): Uint8Array {
  return globalThis.crypto.getRandomValues(new Uint8Array(length));
}

/** A fresh secret: 256 bits, base64url with `_` replaced by `.` (so it never splits a bearer). */
export function mintSecret(): string {
  return base64urlnopad.encode(randomBytes(SECRET_BYTES)).replace(/_/g, '.');
}

/** The token id of a secret: SHA-256 of its UTF-8 bytes, lowercase hex. */
export function tokenIdOf(secret: string): string {
  return nobleSha256Hex(secret);
}

/** The bearer a client presents: `loom_<env>_<service account id>_<secret>`. */
export function formatBearer(env: string, serviceAccountId: string, secret: string): string {
  return `loom_${env}_${serviceAccountId}_${secret}`;
}

/** A new service account id: `sa_` and 20 random base32 characters. */
export function newServiceAccountId(): string {
  return 'sa_' + Array.from(randomBytes(20), (b) => ACCOUNT_ID_ALPHABET[b & 31]).join('');
}
