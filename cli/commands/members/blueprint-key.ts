/**
 * Signing blueprints on the operator's machine, as the server verifies them
 * (plugins/members/blueprints/blueprint-signature.ts): Ed25519 over the
 * canonical JSON of the blueprint without `signature`, the signer named by
 * its did:key (`did:key:z` + base58btc of 0xed 0x01 and the public key, as
 * federation names instance keys). A key file is the 32-byte seed as 64
 * hex, the format of the instance key (`<data dir>/federation/instance-key`),
 * so either may sign. The CLI sees no plugin code, so these few lines
 * mirror federation's did-key.ts; a test checks both agree.
 */
import { randomBytes } from 'node:crypto';
import { open, readFile } from 'node:fs/promises';
import { base58 } from '@scure/base';
import nacl from 'tweetnacl';
import { CliError } from '../../../command/cli-error.js';
import { canonicalJson } from '../../../core/records/canonical-json.js';

export interface SigningKey {
  readonly did: string;
  sign(message: Uint8Array): Uint8Array;
}

export function didKey(publicKey: Uint8Array): string {
  const bytes = new Uint8Array(34);
  bytes.set([0xed, 0x01], 0);
  bytes.set(publicKey, 2);
  return `did:key:z${base58.encode(bytes)}`;
}

export function keyFromSeed(seed: Uint8Array): SigningKey {
  const pair = nacl.sign.keyPair.fromSeed(seed);
  return { did: didKey(pair.publicKey), sign: (message) => nacl.sign.detached(message, pair.secretKey) };
}

export async function readKeyFile(path: string): Promise<SigningKey> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new CliError(`cannot read the key file ${path}: ${(error as Error).message}`, 1);
  }
  const hex = text.trim();
  if (!/^[0-9a-f]{64}$/.test(hex)) throw new CliError(`${path} is not a signing key (64 lowercase hex: an Ed25519 seed, as loom blueprint keygen writes)`, 1);
  return keyFromSeed(Buffer.from(hex, 'hex'));
}

/** Writes a new key file readable by its owner only; refuses to replace one. */
export async function writeNewKeyFile(path: string): Promise<SigningKey> {
  const seed = randomBytes(32);
  let handle;
  try {
    handle = await open(path, 'wx', 0o600);
  } catch (error) {
    const exists = (error as NodeJS.ErrnoException).code === 'EEXIST';
    throw new CliError(exists ? `${path} exists: a key is never overwritten (choose another path)` : `cannot create ${path}: ${(error as Error).message}`, 1);
  }
  try {
    await handle.writeFile(`${seed.toString('hex')}\n`);
    await handle.sync();
  } finally {
    await handle.close();
  }
  return keyFromSeed(seed);
}

/** The blueprint with `key`'s signature over everything but its signature (any earlier one is replaced). */
export function signBlueprintObject(key: SigningKey, blueprint: Record<string, unknown>): Record<string, unknown> {
  const { signature: _old, ...content } = blueprint;
  const value = Buffer.from(key.sign(Buffer.from(canonicalJson(content), 'utf8'))).toString('base64');
  return { ...content, signature: { alg: 'Ed25519', signer: key.did, value } };
}
