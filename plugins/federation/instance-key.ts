/**
 * This instance's Ed25519 identity and the key that signs for it now.
 *
 * The identity is the did:key of the instance's first key; it never changes
 * (records, pairs and peers name it). The key that signs can be rotated
 * (keys/key-chain.ts): the seed in force lives in `<dir>/instance-key`
 * (64 hex, mode 0600), and once a rotation happened `<dir>/instance-keys.json`
 * (0600) holds the identity, the seed in force, the chain's links and the
 * retired seeds until their `expired_ts`. Both are replaced atomically
 * (temporary file, fsync, rename, fsync of the directory).
 *
 * Rotation is crash-safe: the keyring with the new key is durable before
 * anything signs with it, so a crash before that leaves the old key in force
 * and nothing announced, and a crash after it restarts with the new key
 * announced by the first manifest. `instance-keys.json` wins over
 * `instance-key` when they disagree (a crash between the two writes).
 *
 * Seeds are never logged, served or serialised: they are private fields, and
 * JSON/inspect show only the DID. Keys come from tweetnacl; signing runs
 * through OpenSSL (ed25519.ts), which gives the same bytes (Ed25519 is
 * deterministic) a hundred times faster.
 */
import { hkdfSync, randomBytes } from 'node:crypto';
import { chmod, mkdir, open, readFile, rename, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { inspect } from 'node:util';
import nacl from 'tweetnacl';
import { didKeyFromPublicKey } from './did-key.js';
import { signerFromSeed } from './ed25519.js';
import { genesisChain, signRotation, type KeyChain, type PreviousKey } from './keys/key-chain.js';

const FILE = 'instance-key';
const KEYRING = 'instance-keys.json';

interface SigningKey {
  readonly did: string;
  readonly publicKey: Uint8Array;
  readonly seedHex: string;
  sign(message: Uint8Array): Uint8Array;
}

function signingKey(seed: Uint8Array): SigningKey {
  const pair = nacl.sign.keyPair.fromSeed(seed);
  return { did: didKeyFromPublicKey(pair.publicKey), publicKey: pair.publicKey, seedHex: Buffer.from(seed).toString('hex'), sign: signerFromSeed(seed, pair.publicKey) };
}

/** instance-keys.json. `seeds` holds the retired seeds still inside their overlap, by did:key. */
interface Keyring {
  readonly version: 1;
  readonly did: string;
  readonly current: string;
  readonly previous: readonly PreviousKey[];
  readonly seeds: Readonly<Record<string, string>>;
}

const HEX_SEED = /^[0-9a-f]{64}$/;

async function writeAtomically(dir: string, name: string, text: string): Promise<void> {
  const path = join(dir, name);
  const temporary = `${path}.tmp`;
  const handle = await open(temporary, 'w', 0o600);
  try {
    await handle.writeFile(text);
    await handle.sync();
  } finally {
    await handle.close();
  }
  await rename(temporary, path);
  // The rename itself must survive a power loss before anything relies on it.
  const directory = await open(dir, 'r');
  try {
    await directory.sync();
  } finally {
    await directory.close();
  }
}

async function readOptional(path: string): Promise<string | null> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    return null;
  }
}

export class InstanceKey {
  /** The instance DID: the did:key of its first key, for ever. */
  readonly did: string;
  #current: SigningKey;
  #previous: PreviousKey[];
  #retiredSeeds: Map<string, string>;
  readonly #dir: string | null;
  #rotating: Promise<unknown> = Promise.resolve();
  readonly #rotated = new Set<(chain: KeyChain) => void>();

  private constructor(did: string, current: SigningKey, previous: PreviousKey[], retiredSeeds: Map<string, string>, dir: string | null) {
    this.did = did;
    this.#current = current;
    this.#previous = previous;
    this.#retiredSeeds = retiredSeeds;
    this.#dir = dir;
  }

  static fromSeed(seed: Uint8Array): InstanceKey {
    if (seed.length !== 32) throw new TypeError('an Ed25519 seed is 32 bytes');
    const key = signingKey(seed);
    return new InstanceKey(key.did, key, [], new Map(), null);
  }

  /** Reads the key in `dir`, or creates it on first start. */
  static async loadOrCreate(dir: string): Promise<InstanceKey> {
    const path = join(dir, FILE);
    const keyringText = await readOptional(join(dir, KEYRING));
    if (keyringText !== null) return InstanceKey.fromKeyring(dir, keyringText);
    const text = await readOptional(path);
    if (text !== null) {
      const hex = text.trim();
      if (!HEX_SEED.test(hex)) throw new Error(`${path} is not an instance key (64 lowercase hex expected); restore it from a backup or remove it to mint a new identity`);
      // A key readable by others is tightened rather than refused: the fix is the same either way.
      if (((await stat(path)).mode & 0o077) !== 0) await chmod(path, 0o600);
      const key = signingKey(Buffer.from(hex, 'hex'));
      return new InstanceKey(key.did, key, [], new Map(), dir);
    }
    await mkdir(dir, { recursive: true, mode: 0o700 });
    const seed = randomBytes(32);
    await writeAtomically(dir, FILE, `${seed.toString('hex')}\n`);
    const key = signingKey(seed);
    return new InstanceKey(key.did, key, [], new Map(), dir);
  }

  private static async fromKeyring(dir: string, text: string): Promise<InstanceKey> {
    const where = join(dir, KEYRING);
    let ring: Keyring;
    try {
      ring = JSON.parse(text) as Keyring;
    } catch {
      throw new Error(`${where} is not JSON; restore it from a backup`);
    }
    const seedHex = ring?.seeds?.[ring.current];
    if (ring?.version !== 1 || typeof ring.did !== 'string' || typeof seedHex !== 'string' || !HEX_SEED.test(seedHex) || !Array.isArray(ring.previous)) {
      throw new Error(`${where} is not an instance keyring; restore it from a backup`);
    }
    const current = signingKey(Buffer.from(seedHex, 'hex'));
    if (current.did !== ring.current) throw new Error(`${where}: the seed in force is not the key ${ring.current}`);
    if (((await stat(where)).mode & 0o077) !== 0) await chmod(where, 0o600);
    const retired = new Map(Object.entries(ring.seeds).filter(([did]) => did !== ring.current));
    const key = new InstanceKey(ring.did, current, [...ring.previous], retired, dir);
    // A crash between the keyring and the single-key file: bring the file up to the keyring.
    const single = (await readOptional(join(dir, FILE)))?.trim();
    if (single !== current.seedHex) await writeAtomically(dir, FILE, `${current.seedHex}\n`);
    return key;
  }

  /** did:key of the key that signs now (the DID itself until the first rotation). */
  get keyDid(): string {
    return this.#current.did;
  }

  /** The public key that signs now. */
  get publicKey(): Uint8Array {
    return this.#current.publicKey;
  }

  /** The key chain the manifest lists. */
  chain(): KeyChain {
    return this.#previous.length === 0 ? genesisChain(this.did) : { current: this.#current.did, previous: [...this.#previous] };
  }

  /** Whether the key is kept in a directory (only then can it rotate). */
  get persistent(): boolean {
    return this.#dir !== null;
  }

  /** Called after each rotation (the manifest re-signs). */
  onRotated(listener: (chain: KeyChain) => void): () => void {
    this.#rotated.add(listener);
    return () => this.#rotated.delete(listener);
  }

  /**
   * Makes a new key the one that signs. The key in force countersigns the
   * hand-over and stays valid until `now + overlapMs` (its `expired_ts`).
   * The keyring is durable before the new key signs anything. One rotation
   * at a time.
   */
  rotate(now: number, overlapMs: number): Promise<{ readonly key: string; readonly previous: PreviousKey }> {
    const run = this.#rotating.then(async () => {
      const dir = this.#dir;
      if (dir === null) throw new Error('an instance key without a directory cannot rotate');
      const next = signingKey(randomBytes(32));
      const link = signRotation(this.did, this.#current, next.did, now, now + overlapMs);
      const previous = [...this.#previous, link];
      // Retired seeds are kept until their overlap ends (then pruned by the next rotation or start).
      const seeds: Record<string, string> = { [next.did]: next.seedHex, [this.#current.did]: this.#current.seedHex };
      for (const [did, hex] of this.pruned(now)) seeds[did] = hex;
      const ring: Keyring = { version: 1, did: this.did, current: next.did, previous, seeds };
      await writeAtomically(dir, KEYRING, `${JSON.stringify(ring, null, 2)}\n`);
      await writeAtomically(dir, FILE, `${next.seedHex}\n`);
      this.#retiredSeeds = new Map(Object.entries(seeds).filter(([did]) => did !== next.did));
      this.#previous = previous;
      this.#current = next;
      for (const listener of this.#rotated) listener(this.chain());
      return { key: next.did, previous: link };
    });
    this.#rotating = run.catch(() => undefined);
    return run;
  }

  /** Retired seeds whose key is still inside its overlap at `now`. */
  private pruned(now: number): Map<string, string> {
    const live = new Set(this.#previous.filter((link) => now < link.expired_ts).map((link) => link.key));
    return new Map([...this.#retiredSeeds].filter(([did]) => live.has(did)));
  }

  /** A detached Ed25519 signature by the key in force. */
  sign(message: Uint8Array): Uint8Array {
    return this.#current.sign(message);
  }

  /**
   * A 32-byte symmetric key for one purpose (HKDF-SHA256 over the seed in
   * force, the purpose as info): every server holding this instance key
   * derives the same one, and it reveals nothing of the seed or of other
   * purposes' keys. (Rotation is refused on a shared log, the only user.)
   */
  deriveKey(purpose: string): Buffer {
    return Buffer.from(hkdfSync('sha256', Buffer.from(this.#current.seedHex, 'hex'), Buffer.alloc(0), `loom.instance-key.${purpose}`, 32));
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
