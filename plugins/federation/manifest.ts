/**
 * The federation manifest (spec §2.8), signed with Ed25519 over canonical
 * JSON of the whole manifest except the signature value itself: the
 * signature block's alg, key_id, signed_at and expires_at are covered too,
 * so nobody can extend an expiry without the key. A consumer verifies the
 * signature before trusting any field, then the expiry, then the DID.
 */
import { publicKeyFromDidKey } from './did-key.js';
import type { InstanceKey } from './instance-key.js';
import { descendsFrom, genesisChain, KeyChainError, keyIdOf, parseKeyChain, type KeyChain } from './keys/key-chain.js';
import { signCanonical, verifyCanonical } from './signing.js';

export const MANIFEST_TTL_MS = 7 * 24 * 3600 * 1000;

export interface FederationManifestInput {
  readonly did: string;
  readonly version: string;
  readonly federationProtocolVersion: string;
  /** Absolute endpoints when set, else paths. */
  readonly baseUrl: string | null;
  readonly kinds: readonly string[];
  readonly namespaces: readonly string[];
  /** How this instance answers pair requests (handshake/pair-policy.ts); absent: none taken. */
  readonly consentPolicy?: { readonly default_posture: string; readonly accepts_pair_requests: boolean };
  /** The key in force and the previous keys with their expired_ts (keys/key-chain.ts); absent: never rotated. */
  readonly keys?: KeyChain;
}

export interface ManifestSignature {
  readonly alg: 'Ed25519';
  readonly key_id: string;
  readonly signature: string;
  readonly signed_at: string;
  readonly expires_at: string;
}

export type UnsignedManifest = Record<string, unknown> & { object: 'federation_manifest'; daemon: { did: string; version: string; federation_protocol_version: string } };
export type SignedManifest = UnsignedManifest & { signature: ManifestSignature };

export function buildFederationManifest(input: FederationManifestInput): UnsignedManifest {
  const at = (path: string) => (input.baseUrl ? `${input.baseUrl.replace(/\/+$/, '')}${path}` : path);
  return {
    object: 'federation_manifest',
    manifest_version: '1',
    daemon: { did: input.did, version: input.version, federation_protocol_version: input.federationProtocolVersion },
    federation: { enabled: true, pair_endpoint: at('/v1/federation/pair'), sync_change_endpoint: at('/v1/sync/changes'), sync_record_endpoint: at('/v1/sync/records') },
    advertises: { kinds: [...input.kinds], refs: [], namespaces: [...input.namespaces] },
    // The handshake (POST pair_endpoint) answers as this says; only did:key initiators can sign a request.
    consent_policy: { default_posture: input.consentPolicy?.default_posture ?? 'closed', accepts_pair_requests: input.consentPolicy?.accepts_pair_requests ?? false, requires_did_method: ['did:key'], rejects_did_method: [] },
    capabilities_ref: { url: at('/.well-known/service'), key: 'capabilities_manifest' },
    responders_ref: { url: at('/.well-known/service'), key: 'responders' },
    directory: { registered_at: [], directory_registration_id: null },
    // The key that signs this manifest, and each key before it with the countersignature that retired it.
    keys: input.keys ?? genesisChain(input.did),
  };
}


/** What the signature covers: everything but `signature.signature`. */
function signingInput(manifest: Record<string, unknown>, block: Omit<ManifestSignature, 'signature'>): object {
  return { ...manifest, signature: block };
}

/** Signs with the key in force (`keyDid`; the DID's own key when absent), which must be the manifest's `keys.current`. */
export function signManifest(key: Pick<InstanceKey, 'did' | 'sign'> & { readonly keyDid?: string }, unsigned: UnsignedManifest, options: { now: number; ttlMs: number }): SignedManifest {
  const { signature: _drop, ...body } = unsigned as UnsignedManifest & { signature?: unknown };
  const block = { alg: 'Ed25519' as const, key_id: keyIdOf(key.did, key.keyDid ?? key.did), signed_at: new Date(options.now).toISOString(), expires_at: new Date(options.now + options.ttlMs).toISOString() };
  const signature = signCanonical(key, signingInput(body, block));
  return { ...(body as UnsignedManifest), signature: { ...block, signature } };
}

/** True once less than a quarter of the lifetime is left (the server re-signs then). */
export function manifestNeedsResign(signed: SignedManifest, now: number, ttlMs: number): boolean {
  return Date.parse(signed.signature.expires_at) - now < ttlMs / 4;
}

export type ManifestVerdict =
  | { readonly ok: true; readonly manifest: SignedManifest; readonly did: string; readonly expiresAt: number; readonly keys: KeyChain }
  | { readonly ok: false; readonly reason: 'malformed' | 'signature_invalid' | 'expired' | 'did_mismatch' | 'key_chain_invalid'; readonly message: string };

const SIGNATURE_MEMBERS = ['alg', 'key_id', 'signature', 'signed_at', 'expires_at'];

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

/**
 * `pinned`: the key the verifier trusts for this DID now (default: the DID's
 * own key). The manifest must be signed by its `keys.current`, its chain must
 * verify from the DID's key, and the pinned key must be on it: a rotation the
 * pinned key never countersigned is refused (`key_chain_invalid`).
 */
export function verifyManifest(value: unknown, options: { now: number; strict: boolean; expectedDid?: string; pinned?: string }): ManifestVerdict {
  const malformed = (message: string): ManifestVerdict => ({ ok: false, reason: 'malformed', message: `federation manifest: ${message}` });
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return malformed('not an object');
  const manifest = value as Record<string, unknown>;
  if (manifest['object'] !== 'federation_manifest') return malformed('object is not federation_manifest');
  const daemon = manifest['daemon'] as Record<string, unknown> | undefined;
  const did = daemon?.['did'];
  if (typeof did !== 'string' || !publicKeyFromDidKey(did)) return malformed('daemon.did is not an Ed25519 did:key');
  const block = manifest['signature'] as Record<string, unknown> | undefined;
  if (!block || typeof block !== 'object') return malformed('no signature');
  // The block is outside what is signed, so it holds exactly its five members: an extra one would travel unsigned.
  const members = Object.keys(block);
  if (members.length !== 5 || !SIGNATURE_MEMBERS.every((name) => members.includes(name))) return malformed(`signature must hold exactly ${SIGNATURE_MEMBERS.join(', ')}`);
  const { alg, key_id, signature, signed_at, expires_at } = block;
  if (alg !== 'Ed25519' || typeof signature !== 'string' || typeof signed_at !== 'string' || typeof expires_at !== 'string' || !ISO.test(expires_at) || !ISO.test(signed_at)) {
    return malformed('signature must be {alg: Ed25519, key_id, signature, signed_at, expires_at}');
  }
  // Before trusting any field: the key chain from the DID's own key (a manifest without one was never rotated),
  // then the signature by the chain's current key, which key_id must name.
  let keys: KeyChain;
  try {
    keys = manifest['keys'] === undefined ? genesisChain(did) : parseKeyChain(did, manifest['keys']);
  } catch (error) {
    if (error instanceof KeyChainError) return { ok: false, reason: 'key_chain_invalid', message: `manifest keys: ${error.message}` };
    throw error;
  }
  if (key_id !== keyIdOf(did, keys.current)) return { ok: false, reason: 'signature_invalid', message: 'manifest signature key_id does not name the key in force of the advertised DID' };
  const { signature: _block, ...body } = manifest;
  if (!verifyCanonical(keys.current, signingInput(body, { alg, key_id, signed_at, expires_at } as Omit<ManifestSignature, 'signature'>), signature)) {
    return { ok: false, reason: 'signature_invalid', message: 'manifest signature does not verify against the key in force of the advertised DID' };
  }
  const expiresAt = Date.parse(expires_at);
  if (options.strict && expiresAt <= options.now) return { ok: false, reason: 'expired', message: `manifest signature expired at ${expires_at}` };
  if (options.expectedDid !== undefined && options.expectedDid !== did) {
    return { ok: false, reason: 'did_mismatch', message: `manifest DID ${did} is not the expected ${options.expectedDid}` };
  }
  if (options.pinned !== undefined && !descendsFrom(keys, options.pinned)) {
    return { ok: false, reason: 'key_chain_invalid', message: `manifest keys: the key in force ${keys.current} does not descend from the pinned key ${options.pinned} (a rotation it never countersigned)` };
  }
  return { ok: true, manifest: manifest as SignedManifest, did, expiresAt, keys };
}
