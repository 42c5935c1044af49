/**
 * An identity's DID document, rendered from its current operation alone, as
 * canonical JSON: the same chain gives the same bytes on every instance and
 * in `loom directory verify`, so a document can be checked byte for byte.
 * Verification methods are Multikeys (publicKeyMultibase of the did:key);
 * the handle is `sync://<handle>` in alsoKnownAs; ids are `<did>#<fragment>`,
 * listed in fragment order. Rotation keys are not in the document: they
 * govern the directory entry, not what the identity signs elsewhere (did:plc
 * does the same); they are in the operations.
 */
import { canonicalJson } from '../../../core/records/canonical-json.js';
import { publicKeyMultibase, publicKeyFromDidKey } from '../did-key.js';
import type { SyncOp } from './directory-operation.js';

export const DID_CONTEXT = ['https://www.w3.org/ns/did/v1', 'https://w3id.org/security/multikey/v1'];

export function didDocumentOf(did: string, current: SyncOp): Record<string, unknown> {
  const sorted = <T>(map: Readonly<Record<string, T>>) => Object.keys(map).sort().map((id) => [id, map[id]!] as const);
  return {
    '@context': DID_CONTEXT,
    id: did,
    alsoKnownAs: current.handle === null ? [] : [`sync://${current.handle}`],
    verificationMethod: sorted(current.verification_methods).map(([id, key]) => ({ id: `${did}#${id}`, type: 'Multikey', controller: did, publicKeyMultibase: publicKeyMultibase(publicKeyFromDidKey(key)!) })),
    service: sorted(current.services).map(([id, service]) => ({ id: `${did}#${id}`, type: service.type, serviceEndpoint: service.endpoint })),
  };
}

/** The document's bytes as served: its canonical JSON. */
export function renderDidDocument(did: string, current: SyncOp): string {
  return canonicalJson(didDocumentOf(did, current));
}
