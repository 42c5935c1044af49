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
import { acceptableKeys, parseKeyChain, type KeyChain } from '../keys/key-chain.js';

export const PROOF_OBJECT = 'mailbox_access.v1';
export const PROOF_WINDOW_MS = 60_000;
export const PROOF_HEADERS = { did: 'x-loom-mailbox-did', created: 'x-loom-mailbox-created', sig: 'x-loom-mailbox-sig' } as const;
/** A receiver that rotated its key sends its key chain (base64url JSON, self-certifying from its DID's key): the relay checks the key in force. */
export const PROOF_KEYS_HEADER = 'x-loom-mailbox-keys';

function bodyHash(body: unknown): string | null {
  return body === undefined || body === null ? null : createHash('sha256').update(canonicalJson(body)).digest('hex');
}

const signed = (did: string, method: string, path: string, created: string, body: unknown) => ({ object: PROOF_OBJECT, did, method: method.toUpperCase(), path, created, body_sha256: bodyHash(body) });

export function mailboxProofHeaders(key: { did: string; sign(message: Uint8Array): Uint8Array; chain?(): KeyChain }, method: string, path: string, body: unknown, now: number): Record<string, string> {
  const created = new Date(now).toISOString();
  const chain = key.chain?.();
  return {
    [PROOF_HEADERS.did]: key.did,
    [PROOF_HEADERS.created]: created,
    [PROOF_HEADERS.sig]: signCanonical(key, signed(key.did, method, path, created, body)),
    ...(chain && chain.previous.length > 0 ? { [PROOF_KEYS_HEADER]: Buffer.from(JSON.stringify(chain)).toString('base64url') } : {}),
  };
}

/** The keys a proof by `did` may be signed with now: its chain's keys in force when it sent one, else the DID's own key. */
function proofKeys(did: string, header: string | undefined, now: number): string[] | string {
  if (header === undefined) return [did];
  try {
    return acceptableKeys(parseKeyChain(did, JSON.parse(Buffer.from(header, 'base64url').toString('utf8'))), now);
  } catch (error) {
    return `${PROOF_KEYS_HEADER} is not a key chain of ${did}: ${error instanceof Error ? error.message : String(error)}`;
  }
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
  const keys = proofKeys(did, headers[PROOF_KEYS_HEADER], now);
  if (typeof keys === 'string') return { ok: false, reason: keys };
  let valid = false;
  try {
    const message = signed(did, method, path, created, body);
    valid = keys.some((key) => verifyCanonical(key, message, sig));
  } catch {
    valid = false;
  }
  return valid ? { ok: true, did } : { ok: false, reason: `the signature does not verify against ${did} for ${method.toUpperCase()} ${path}` };
}
