/** Ed25519 signatures over canonical JSON (spec §2.1: the canonical form is the federation wire form). */
import { canonicalJson } from '../../core/records/canonical-json.js';
import type { LoomRecord } from '../../core/records/record.js';
import { publicKeyFromDidKey } from './did-key.js';
import { verifyEd25519Fast } from './ed25519.js';

/** What signs: the instance key (instance-key.ts) or any Ed25519 key with a did:key. */
export interface Signer {
  readonly did: string;
  sign(message: Uint8Array): Uint8Array;
}

/** 64 bytes in canonical base64: the last character before the padding carries 2 bits, the 4 below them zero (another letter decodes to the same bytes). */
const BASE64_SIGNATURE = /^[A-Za-z0-9+/]{85}[AQgw]==$/;

export function signCanonical(key: Pick<Signer, 'sign'>, value: object): string {
  return Buffer.from(key.sign(Buffer.from(canonicalJson(value), 'utf8'))).toString('base64');
}

/** False (never a throw) for a DID that is not an Ed25519 did:key, a malformed signature, or a failed check. */
export function verifyCanonical(did: string, value: object, signatureBase64: string): boolean {
  const publicKey = publicKeyFromDidKey(did);
  if (!publicKey || typeof signatureBase64 !== 'string' || !BASE64_SIGNATURE.test(signatureBase64)) return false;
  let text: string;
  try {
    text = canonicalJson(value);
  } catch {
    return false;
  }
  return verifyEd25519Fast(publicKey, Buffer.from(text, 'utf8'), Buffer.from(signatureBase64, 'base64'));
}

/** A federation transfer's signature on one record (spec §4.13 `sig`). */
export interface RecordSig {
  readonly alg: 'Ed25519';
  /** did:key of the signing instance. */
  readonly signer: string;
  /** base64 over the canonical JSON of the record with its id (without `sig`). */
  readonly value: string;
}

export function signRecord(key: Signer, record: LoomRecord): RecordSig {
  return { alg: 'Ed25519', signer: key.did, value: signCanonical(key, record) };
}

/**
 * Whether `sig` is a well-formed signature whose value verifies over `record`
 * with one of `keys` (the signer's keys in force, keys/peer-keys.ts; default:
 * the signer DID's own key). `signer` stays the instance DID after a rotation.
 */
export function verifyRecordSig(record: LoomRecord, sig: unknown, keys?: readonly string[]): boolean {
  if (typeof sig !== 'object' || sig === null) return false;
  const { alg, signer, value } = sig as Record<string, unknown>;
  if (alg !== 'Ed25519' || typeof signer !== 'string' || typeof value !== 'string') return false;
  return (keys ?? [signer]).some((key) => verifyCanonical(key, record, value));
}
