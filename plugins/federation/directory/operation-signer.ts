/**
 * Making operations: an Ed25519 key from a 32-byte seed (the key-file format
 * of `loom blueprint keygen` and the instance key: 64 hex) and the signed
 * genesis, update and revoke operations. Used by `loom directory
 * genesis|update|revoke` and by tests; node:crypto only, so thousands of
 * identities sign in well under a second.
 */
import { createPrivateKey, createPublicKey, randomBytes } from 'node:crypto';
import { didKeyFromPublicKey } from '../did-key.js';
import { signerFromSeed } from '../ed25519.js';
import { signingBytes, OP_TYPE, REVOKE_TYPE, type ServiceEntry, type SyncOp, type SyncRevoke, type UnsignedOperation } from './directory-operation.js';

/** DER prefix of a PKCS #8 Ed25519 private key (RFC 8410): the 32-byte seed follows. */
const PKCS8_ED25519 = Buffer.from('302e020100300506032b657004220420', 'hex');

export interface OperationKey {
  /** did:key of the public key. */
  readonly did: string;
  readonly seed: Uint8Array;
  sign(message: Uint8Array): Uint8Array;
}

export function operationKeyFromSeed(seed: Uint8Array): OperationKey {
  if (seed.length !== 32) throw new TypeError('an Ed25519 seed is 32 bytes');
  const privateKey = createPrivateKey({ key: Buffer.concat([PKCS8_ED25519, seed]), format: 'der', type: 'pkcs8' });
  const x = createPublicKey(privateKey).export({ format: 'jwk' }).x!;
  const publicKey = Buffer.from(x, 'base64url');
  const sign = signerFromSeed(seed, publicKey);
  return { did: didKeyFromPublicKey(publicKey), seed, sign };
}

export function newOperationKey(): OperationKey {
  return operationKeyFromSeed(randomBytes(32));
}

/** `sig` for an operation: base64 Ed25519 over the canonical JSON without `sig`. */
export function signOperation<T extends UnsignedOperation>(key: Pick<OperationKey, 'sign'>, unsigned: T): T & { sig: string } {
  return { ...unsigned, sig: Buffer.from(key.sign(signingBytes(unsigned))).toString('base64') };
}

export interface IdentityContent {
  readonly rotation_keys: readonly string[];
  readonly verification_methods?: Readonly<Record<string, string>>;
  readonly services?: Readonly<Record<string, ServiceEntry>>;
  readonly handle?: string | null;
}

/** A `sync_op` with every field present, signed by `key` (a genesis when `prev` is null). */
export function syncOp(key: Pick<OperationKey, 'sign'>, content: IdentityContent, prev: string | null): SyncOp {
  return signOperation(key, {
    type: OP_TYPE,
    rotation_keys: [...content.rotation_keys],
    verification_methods: { ...content.verification_methods },
    services: { ...content.services },
    handle: content.handle ?? null,
    prev,
  });
}

export function revokeOp(key: Pick<OperationKey, 'sign'>, prev: string): SyncRevoke {
  return signOperation(key, { type: REVOKE_TYPE, prev });
}
