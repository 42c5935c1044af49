/** did:web for a configured domain, and the DID document served at /.well-known/did.json. */
import { publicKeyMultibase } from './did-key.js';

/** `did:web:` + the domain, a port's colon percent-encoded (did:web method spec). */
export function didWebFromDomain(domain: string): string {
  return `did:web:${domain.replace(':', '%3A')}`;
}

export function didDocument(did: string, publicKey: Uint8Array, alsoKnownAs: readonly string[] = []): Record<string, unknown> {
  const method = `${did}#key-1`;
  return {
    '@context': ['https://www.w3.org/ns/did/v1', 'https://w3id.org/security/multikey/v1'],
    id: did,
    ...(alsoKnownAs.length > 0 ? { alsoKnownAs: [...alsoKnownAs] } : {}),
    verificationMethod: [{ id: method, type: 'Multikey', controller: did, publicKeyMultibase: publicKeyMultibase(publicKey) }],
    authentication: [method],
    assertionMethod: [method],
  };
}
