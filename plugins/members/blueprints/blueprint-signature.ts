/**
 * A blueprint's Ed25519 signature, with federation's key handling: the
 * signer is a did:key, the signature is base64 over the kernel's canonical
 * JSON (spec §2.1) of the blueprint without its `signature` member. The
 * blueprint's source hash is SHA-256 over the same bytes, so the record a
 * materialization writes names exactly what was signed.
 */
import { canonicalJson } from '../../../core/records/canonical-json.js';
import { nobleSha256Hex } from '../../../core/records/sha256.js';
import { signCanonical, verifyCanonical, type InstanceKey } from '../../federation/index.js';
import type { Blueprint } from './blueprint-format.js';

/** What the signature covers: the blueprint less its signature. */
export function signedContent(blueprint: Blueprint): Omit<Blueprint, 'signature'> {
  const { signature: _signature, ...content } = blueprint;
  return content;
}

/** SHA-256 (hex) of the canonical blueprint without its signature. */
export function sourceHash(blueprint: Blueprint): string {
  return nobleSha256Hex(canonicalJson(signedContent(blueprint)));
}

/** The blueprint signed by `key` (any signature it carried is replaced). */
export function signBlueprint(key: Pick<InstanceKey, 'did' | 'sign'>, blueprint: Blueprint): Blueprint {
  const content = signedContent(blueprint);
  return { ...content, signature: { alg: 'Ed25519', signer: key.did, value: signCanonical(key, content) } };
}

export type SignatureCheck =
  | { readonly state: 'unsigned' }
  /** The signer's key made this signature over this content. */
  | { readonly state: 'valid'; readonly signer: string }
  /** Tampered, another key's, or not a signature at all. */
  | { readonly state: 'invalid'; readonly signer: string };

/** Never throws: a malformed signer or value is `invalid`. */
export function checkSignature(blueprint: Blueprint): SignatureCheck {
  const signature = blueprint.signature;
  if (signature === undefined) return { state: 'unsigned' };
  const valid = signature.alg === 'Ed25519' && verifyCanonical(signature.signer, signedContent(blueprint), signature.value);
  return { state: valid ? 'valid' : 'invalid', signer: signature.signer };
}
