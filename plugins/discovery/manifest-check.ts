/**
 * Whether an advertised peer is who its TXT says: GET `<endpoint>/.well-known/service`,
 * verify its federation manifest with the federation plugin's own verifier
 * (signature by the DID's key, expiry, DID equal to the advertised one), and,
 * when the endpoint serves `/.well-known/did.json`, that the document names
 * the DID too, as a sync pair checks its peer (peer-client.ts). The answer is
 * a reason code, never the peer's text: a LAN is not trusted to write our API.
 */
import { verifyManifest } from '../federation/index.js';

export type CheckOutcome = { readonly ok: true; readonly manifestExpiresAt: number } | { readonly ok: false; readonly reason: string };

export interface CheckOptions {
  readonly timeoutMs: number;
  readonly now: () => number;
  /** Refuse an expired manifest signature (the federation plugin's strictManifests). */
  readonly strict: boolean;
}

/** Bodies past this are not a manifest: the check stops reading. */
const MAX_BODY_BYTES = 256 * 1024;

async function getJson(url: string, signal: AbortSignal): Promise<{ status: number; body: unknown }> {
  const response = await fetch(url, { headers: { accept: 'application/json' }, redirect: 'error', signal });
  const length = Number(response.headers.get('content-length') ?? '0');
  if (length > MAX_BODY_BYTES) {
    await response.body?.cancel();
    return { status: response.status, body: null };
  }
  const text = await response.text();
  if (text.length > MAX_BODY_BYTES) return { status: response.status, body: null };
  try {
    return { status: response.status, body: JSON.parse(text) as unknown };
  } catch {
    return { status: response.status, body: null };
  }
}

export async function checkPeerManifest(endpoint: string, did: string, options: CheckOptions): Promise<CheckOutcome> {
  const signal = AbortSignal.timeout(options.timeoutMs);
  let service: { status: number; body: unknown };
  try {
    service = await getJson(`${endpoint}/.well-known/service`, signal);
  } catch {
    return { ok: false, reason: 'unreachable' };
  }
  if (service.status !== 200) return { ok: false, reason: `service_http_${service.status}` };
  const manifest = (service.body as { federation_manifest?: unknown } | null)?.federation_manifest;
  if (manifest === undefined) return { ok: false, reason: 'no_manifest' };
  const verdict = verifyManifest(manifest, { now: options.now(), strict: options.strict, expectedDid: did });
  if (!verdict.ok) return { ok: false, reason: `manifest_${verdict.reason}` };
  let document: { status: number; body: unknown };
  try {
    document = await getJson(`${endpoint}/.well-known/did.json`, signal);
  } catch {
    return { ok: false, reason: 'unreachable' };
  }
  if (document.status === 200) {
    const doc = document.body as { id?: unknown; alsoKnownAs?: unknown } | null;
    const names = [doc?.id, ...(Array.isArray(doc?.alsoKnownAs) ? doc.alsoKnownAs : [])];
    if (!names.includes(did)) return { ok: false, reason: 'did_document_mismatch' };
  }
  return { ok: true, manifestExpiresAt: verdict.expiresAt };
}
