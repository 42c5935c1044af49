/**
 * This instance's Ed25519 identity. The 32-byte seed lives in
 * `<dir>/instance-key` (64 hex, mode 0600), created on first start with an
 * atomic write; it is never logged, served or serialised: the seed is a
 * private field, and JSON/inspect show only the DID. Keys come from
 * tweetnacl; signing runs through OpenSSL (ed25519.ts), which gives the same
 * bytes (Ed25519 is deterministic) a hundred times faster.
 */
import { hkdfSync, randomBytes } from 'node:crypto';
import { chmod, mkdir, open, readFile, rename, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { inspect } from 'node:util';
import nacl from 'tweetnacl';
import { didKeyFromPublicKey } from './did-key.js';
import { signerFromSeed } from './ed25519.js';

const FILE = 'instance-key';

export class InstanceKey {
  readonly did: string;
  readonly publicKey: Uint8Array;
  readonly #sign: (message: Uint8Array) => Uint8Array;
  readonly #derive: (purpose: string) => Buffer;

  private constructor(seed: Uint8Array) {
    const copy = Buffer.from(seed);
    this.#derive = (purpose) => Buffer.from(hkdfSync('sha256', copy, Buffer.alloc(0), `loom.instance-key.${purpose}`, 32));
    const pair = nacl.sign.keyPair.fromSeed(seed);
    this.publicKey = pair.publicKey;
    this.did = didKeyFromPublicKey(pair.publicKey);
    this.#sign = signerFromSeed(seed, pair.publicKey);
  }

  static fromSeed(seed: Uint8Array): InstanceKey {
    if (seed.length !== 32) throw new TypeError('an Ed25519 seed is 32 bytes');
    return new InstanceKey(seed);
  }

  /** Reads the key in `dir`, or creates it on first start. */
  static async loadOrCreate(dir: string): Promise<InstanceKey> {
    const path = join(dir, FILE);
    let text: string | null = null;
    try {
      text = await readFile(path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    if (text !== null) {
      const hex = text.trim();
      if (!/^[0-9a-f]{64}$/.test(hex)) throw new Error(`${path} is not an instance key (64 lowercase hex expected); restore it from a backup or remove it to mint a new identity`);
      // A key readable by others is tightened rather than refused: the fix is the same either way.
      if (((await stat(path)).mode & 0o077) !== 0) await chmod(path, 0o600);
      return new InstanceKey(Buffer.from(hex, 'hex'));
    }
    await mkdir(dir, { recursive: true, mode: 0o700 });
    const seed = randomBytes(32);
    const temporary = `${path}.tmp`;
    const handle = await open(temporary, 'w', 0o600);
    try {
      await handle.writeFile(`${seed.toString('hex')}\n`);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temporary, path);
    return new InstanceKey(seed);
  }

  /** A detached Ed25519 signature. */
  sign(message: Uint8Array): Uint8Array {
    return this.#sign(message);
  }

  /**
   * A 32-byte symmetric key for one purpose (HKDF-SHA256 over the seed, the
   * purpose as info): every server holding this instance key derives the
   * same one, and it reveals nothing of the seed or of other purposes' keys.
   */
  deriveKey(purpose: string): Buffer {
    return this.#derive(purpose);
  }

  toJSON(): { did: string } {
    return { did: this.did };
  }

  toString(): string {
    return `InstanceKey(${this.did})`;
  }

  [inspect.custom](): string {
    return this.toString();
  }
}
