/**
 * How a receiver proves to a relay that a mailbox is its own: each request to
 * `GET /v1/mailbox/{did}/receive` and `POST /v1/mailbox/{did}/ack` carries a
 * signature by the receiver's instance key (headers `x-loom-mailbox-did`,
 * `-created`, `-sig`) over the method, the path, the `created` time (±60 s)
 * and the SHA-256 of the canonical body. The receiver's DID is a did:key, so
 * the relay verifies it with nothing stored and no pairing with the receiver:
 * a token would need an exchange between relay and receiver first, and a
 * relay serves receivers it has never met. A proof for another path, another
 * method or another body does not verify; a replay within the window can
 * only read again or ack again, both harmless.
 */
import { createHash } from 'node:crypto';
import { canonicalJson } from '../../../core/records/canonical-json.js';
import { signCanonical, verifyCanonical } from '../signing.js';

export const PROOF_OBJECT = 'mailbox_access.v1';
export const PROOF_WINDOW_MS = 60_000;
export const PROOF_HEADERS = { did: 'x-loom-mailbox-did', created: 'x-loom-mailbox-created', sig: 'x-loom-mailbox-sig' } as const;

function bodyHash(body: unknown): string | null {
  return body === undefined || body === null ? null : createHash('sha256').update(canonicalJson(body)).digest('hex');
}

const signed = (did: string, method: string, path: string, created: string, body: unknown) => ({ object: PROOF_OBJECT, did, method: method.toUpperCase(), path, created, body_sha256: bodyHash(body) });

export function mailboxProofHeaders(key: { did: string; sign(message: Uint8Array): Uint8Array }, method: string, path: string, body: unknown, now: number): Record<string, string> {
  const created = new Date(now).toISOString();
  return { [PROOF_HEADERS.did]: key.did, [PROOF_HEADERS.created]: created, [PROOF_HEADERS.sig]: signCanonical(key, signed(key.did, method, path, created, body)) };
}

export type ProofOutcome = { readonly ok: true; readonly did: string } | { readonly ok: false; readonly reason: string };

/** Whom the proof authenticates, or why it does not. */
export function verifyMailboxProof(headers: Readonly<Record<string, string | undefined>>, method: string, path: string, body: unknown, now: number): ProofOutcome {
  const did = headers[PROOF_HEADERS.did];
  const created = headers[PROOF_HEADERS.created];
  const sig = headers[PROOF_HEADERS.sig];
  if (!did || !created || !sig) return { ok: false, reason: `a mailbox request must be signed by its receiver: headers ${Object.values(PROOF_HEADERS).join(', ')}` };
  const at = Date.parse(created);
  if (!/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,3})?Z$/.test(created) || Number.isNaN(at)) return { ok: false, reason: `${PROOF_HEADERS.created} is not an ISO 8601 UTC time` };
  if (Math.abs(now - at) > PROOF_WINDOW_MS) return { ok: false, reason: `${PROOF_HEADERS.created} is ${Math.round((at - now) / 1000)} s from this relay's clock (window ±${PROOF_WINDOW_MS / 1000} s)` };
  let valid = false;
  try {
    valid = verifyCanonical(did, signed(did, method, path, created, body), sig);
  } catch {
    valid = false;
  }
  return valid ? { ok: true, did } : { ok: false, reason: `the signature does not verify against ${did} for ${method.toUpperCase()} ${path}` };
}
