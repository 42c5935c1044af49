/** A foreign initiator for handshake tests: its own key and manifest, signing pair requests the way an instance does. */
import { randomBytes } from 'node:crypto';
import { FEDERATION_PROTOCOL_VERSION } from '../../plugins/federation/config.js';
import { newNonce, signBody } from '../../plugins/federation/handshake/handshake-bodies.js';
import { InstanceKey } from '../../plugins/federation/instance-key.js';
import { buildFederationManifest, signManifest } from '../../plugins/federation/manifest.js';

export interface ForeignInitiator {
  readonly key: InstanceKey;
  readonly manifest: Record<string, unknown>;
  /** A signed pair request to `responderDid`; `fields` replace fields before signing. */
  request(responderDid: string, fields?: Record<string, unknown>): Record<string, unknown> & { sig: string };
}

export function foreignInitiator(url = 'http://127.0.0.1:9'): ForeignInitiator {
  const key = InstanceKey.fromSeed(randomBytes(32));
  const manifest = signManifest(key, buildFederationManifest({ did: key.did, version: 'test', federationProtocolVersion: FEDERATION_PROTOCOL_VERSION, baseUrl: url, kinds: [], namespaces: [] }), { now: Date.now(), ttlMs: 86_400_000 });
  return {
    key,
    manifest,
    request: (responderDid, fields = {}) =>
      signBody(key, {
        object: 'pair_request',
        protocol: FEDERATION_PROTOCOL_VERSION,
        initiator_did: key.did,
        initiator_url: url,
        initiator_manifest: manifest,
        responder_did: responderDid,
        nonce: newNonce(),
        created: new Date().toISOString(),
        mode: 'polling',
        token: `loom_prod_sa_foreign_${randomBytes(24).toString('base64url').replace(/_/g, 'x')}`,
        token_expires_at: new Date(Date.now() + 86_400_000).toISOString(),
        ...fields,
      }),
  };
}
