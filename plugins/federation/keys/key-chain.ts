/**
 * An instance's signing keys as its manifest lists them (issue 35, key
 * rotation): the key in force and every key before it, each previous key with
 * its `expired_ts` (ms, Matrix's old_verify_keys) and the countersignature by
 * which it named its successor. The instance DID stays the did:key of its
 * first key: it is the instance's name, and the chain shows which key speaks
 * for it now.
 *
 * Pure rules, shared by the signer (instance-key.ts), the manifest and every
 * verifier (peer-keys.ts): a verifier that pinned one key accepts a later key
 * only through the links from the pinned key onwards, each signed by the key
 * it retires.
 */
import { LoomError } from '../../../core/errors/loom-error.js';
import { publicKeyFromDidKey } from '../did-key.js';
import { signCanonical, verifyCanonical } from '../signing.js';

/** One retired key and the link that retired it. */
export interface PreviousKey {
  /** did:key of the retired key. */
  readonly key: string;
  /** The key that replaced it. */
  readonly succeeded_by: string;
  /** When the rotation happened (ms since the epoch). */
  readonly rotated_at: number;
  /** From this moment on, signatures by `key` are refused (ms since the epoch). */
  readonly expired_ts: number;
  /** Ed25519 by `key` over the canonical JSON of `rotationStatement(...)`: the old key vouches for the new one. */
  readonly countersignature: string;
}

/** The manifest's `keys` block. */
export interface KeyChain {
  readonly current: string;
  /** Oldest first; previous[0].key is the DID's own key. */
  readonly previous: readonly PreviousKey[];
}

/** A never-rotated instance: its DID's key is the key in force. */
export function genesisChain(did: string): KeyChain {
  return { current: did, previous: [] };
}

/** What the retiring key signs: the identity, both keys, and the overlap it grants. */
export function rotationStatement(did: string, link: Omit<PreviousKey, 'countersignature'>): object {
  return { object: 'federation_key_rotation', did, key: link.key, succeeded_by: link.succeeded_by, rotated_at: link.rotated_at, expired_ts: link.expired_ts };
}

/** The link by which `retiring` hands over to `next`, countersigned by `retiring`. */
export function signRotation(did: string, retiring: { readonly did: string; sign(message: Uint8Array): Uint8Array }, next: string, rotatedAt: number, expiredTs: number): PreviousKey {
  const link = { key: retiring.did, succeeded_by: next, rotated_at: rotatedAt, expired_ts: expiredTs };
  return { ...link, countersignature: signCanonical(retiring, rotationStatement(did, link)) };
}

/** Why a chain is refused; every refusal is KEY_CHAIN_INVALID. */
export class KeyChainError extends LoomError {
  constructor(message: string) {
    super('KEY_CHAIN_INVALID', message);
  }
}

const KEYS_FIELDS = ['current', 'previous'];
const LINK_FIELDS = ['countersignature', 'expired_ts', 'key', 'rotated_at', 'succeeded_by'];

function exactFields(value: unknown, fields: readonly string[], what: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new KeyChainError(`${what} is not an object`);
  const keys = Object.keys(value).sort();
  if (keys.length !== fields.length || keys.some((key, index) => key !== fields[index])) throw new KeyChainError(`${what} must have exactly the fields ${fields.join(', ')}`);
  return value as Record<string, unknown>;
}

const isTime = (value: unknown): value is number => typeof value === 'number' && Number.isSafeInteger(value) && value > 0;

/**
 * Parses a manifest's `keys` block for `did` and checks the whole chain: it
 * starts at the DID's key, each link names the next key, is countersigned by
 * the key it retires, and no key appears twice. Throws KeyChainError.
 * Link expiry is not applied here: a link is a statement of the past; old
 * keys' other signatures are refused after their `expired_ts` (acceptableKeys).
 */
export function parseKeyChain(did: string, value: unknown): KeyChain {
  const block = exactFields(value, KEYS_FIELDS, 'keys');
  const { current, previous } = block;
  if (typeof current !== 'string' || !publicKeyFromDidKey(current) || current.includes('#')) throw new KeyChainError('keys.current is not an Ed25519 did:key');
  if (!Array.isArray(previous) || previous.length > 64) throw new KeyChainError('keys.previous is not a list of at most 64 links');
  const links: PreviousKey[] = previous.map((item, index) => {
    const link = exactFields(item, LINK_FIELDS, `keys.previous[${index}]`);
    if (typeof link['key'] !== 'string' || !publicKeyFromDidKey(link['key']) || link['key'].includes('#')) throw new KeyChainError(`keys.previous[${index}].key is not an Ed25519 did:key`);
    if (typeof link['succeeded_by'] !== 'string' || typeof link['countersignature'] !== 'string') throw new KeyChainError(`keys.previous[${index}] names no successor or countersignature`);
    if (!isTime(link['rotated_at']) || !isTime(link['expired_ts']) || link['expired_ts'] < link['rotated_at']) throw new KeyChainError(`keys.previous[${index}]: rotated_at and expired_ts are ms timestamps, expired_ts not before rotated_at`);
    return link as unknown as PreviousKey;
  });
  const sequence = [...links.map((link) => link.key), current];
  if (sequence[0] !== did) throw new KeyChainError(`the key chain does not start at the DID's own key ${did}`);
  if (new Set(sequence).size !== sequence.length) throw new KeyChainError('a key appears twice in the chain');
  links.forEach((link, index) => {
    if (link.succeeded_by !== sequence[index + 1]) throw new KeyChainError(`keys.previous[${index}] hands over to ${link.succeeded_by}, but the next key is ${sequence[index + 1]}`);
    if (index > 0 && link.rotated_at < links[index - 1]!.rotated_at) throw new KeyChainError(`keys.previous[${index}] rotated before the key it follows`);
    if (!verifyCanonical(link.key, rotationStatement(did, link), link.countersignature)) throw new KeyChainError(`the rotation from ${link.key} to ${link.succeeded_by} is not countersigned by ${link.key}`);
  });
  return { current, previous: links };
}

/**
 * The chain, if it descends from `pinned` (the key a verifier trusts now):
 * `pinned` is the chain's current key or one of its previous keys, and every
 * link after it verified in parseKeyChain. A chain that forks away from the
 * pinned key (a "rotation" the pinned key never countersigned) is refused.
 */
export function descendsFrom(chain: KeyChain, pinned: string): boolean {
  return chain.current === pinned || chain.previous.some((link) => link.key === pinned);
}

/** The keys whose signatures count at `now`: the current key, then the previous keys not yet expired, newest first. */
export function acceptableKeys(chain: KeyChain, now: number): string[] {
  return [chain.current, ...chain.previous.filter((link) => now < link.expired_ts).map((link) => link.key).reverse()];
}

/** Where `key` stands in the chain at `now`: in force, in its overlap, expired, or not in the chain at all. */
export function keyStanding(chain: KeyChain, key: string, now: number): 'current' | 'overlap' | 'expired' | 'unknown' {
  if (chain.current === key) return 'current';
  const link = chain.previous.find((entry) => entry.key === key);
  if (!link) return 'unknown';
  return now < link.expired_ts ? 'overlap' : 'expired';
}

/** The key id a manifest signature names: the DID, then the signing key's multibase as the fragment. */
export function keyIdOf(did: string, key: string): string {
  return `${did}#${key.slice('did:key:'.length)}`;
}
