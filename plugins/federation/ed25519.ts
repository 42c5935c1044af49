/**
 * Ed25519 on the hot path through Node's built-in OpenSSL binding. tweetnacl
 * (used for key generation and checked against the RFC 8032 and Wycheproof
 * vectors) signs about 150 and verifies about 50 messages a second on this
 * machine; OpenSSL does about 14,000 and 5,500 (docs/decisions.md,
 * "Federation"). Ed25519 is deterministic, so both produce the same bytes; the
 * vector tests check that for every RFC case.
 */
import { createPrivateKey, createPublicKey, sign, verify, type KeyObject } from 'node:crypto';

const publicKeys = new Map<string, KeyObject>();

function publicKeyObject(publicKey: Uint8Array): KeyObject {
  const x = Buffer.from(publicKey).toString('base64url');
  let key = publicKeys.get(x);
  if (!key) {
    key = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x }, format: 'jwk' });
    // Peers are few; the cache stays small, but bound it anyway.
    if (publicKeys.size > 1024) publicKeys.clear();
    publicKeys.set(x, key);
  }
  return key;
}

/** A signing key object from a 32-byte seed and its public key (kept only inside the caller's closure). */
export function signerFromSeed(seed: Uint8Array, publicKey: Uint8Array): (message: Uint8Array) => Uint8Array {
  const privateKey = createPrivateKey({
    key: { kty: 'OKP', crv: 'Ed25519', d: Buffer.from(seed).toString('base64url'), x: Buffer.from(publicKey).toString('base64url') },
    format: 'jwk',
  });
  return (message) => new Uint8Array(sign(null, message, privateKey));
}

/** Verifies a detached signature; false (never a throw) for a key or signature of the wrong shape. */
export function verifyEd25519Fast(publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array): boolean {
  if (publicKey.length !== 32 || signature.length !== 64) return false;
  try {
    return verify(null, message, publicKeyObject(publicKey), signature);
  } catch {
    return false;
  }
}
