/**
 * did:key for Ed25519 (W3C CCG did:key): `did:key:z` + base58btc of the
 * multicodec ed25519-pub prefix (0xed 0x01) and the 32-byte public key.
 */
import { base58 } from '@scure/base';

const PREFIX = 'did:key:z';
const ED25519_PUB = [0xed, 0x01] as const;

export function didKeyFromPublicKey(publicKey: Uint8Array): string {
  if (publicKey.length !== 32) throw new TypeError('an Ed25519 public key is 32 bytes');
  const bytes = new Uint8Array(34);
  bytes.set(ED25519_PUB, 0);
  bytes.set(publicKey, 2);
  return PREFIX + base58.encode(bytes);
}

/** The public key of an Ed25519 did:key, or null for anything else (a fragment after `#` is ignored). */
export function publicKeyFromDidKey(did: string): Uint8Array | null {
  if (typeof did !== 'string') return null;
  const bare = did.split('#')[0]!;
  if (!bare.startsWith(PREFIX) || bare.length > 80) return null;
  let bytes: Uint8Array;
  try {
    bytes = base58.decode(bare.slice(PREFIX.length));
  } catch {
    return null;
  }
  if (bytes.length !== 34 || bytes[0] !== ED25519_PUB[0] || bytes[1] !== ED25519_PUB[1]) return null;
  return bytes.slice(2);
}

/** The multibase (z + base58btc) of the multicodec-prefixed key: the `publicKeyMultibase` of a Multikey. */
export function publicKeyMultibase(publicKey: Uint8Array): string {
  return didKeyFromPublicKey(publicKey).slice('did:key:'.length);
}
