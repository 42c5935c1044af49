/**
 * The TXT record of `_loom._tcp.local` (RFC 6763 §6): `txtvers` first, short
 * keys, each string under 255 bytes. It is a hint: nothing in it is trusted
 * until the manifest at `url` verifies against `did` (manifest-check.ts).
 */

export const SERVICE_TYPE = 'loom';
export const SERVICE_PROTOCOL = 'tcp' as const;
/** `_loom._tcp.local`, as a PTR query names it. */
export const SERVICE_NAME = `_${SERVICE_TYPE}._${SERVICE_PROTOCOL}.local`;

export interface Advertisement {
  readonly did: string | null;
  readonly endpoint: string | null;
  readonly namespace: string | null;
  readonly handle: string | null;
  readonly capabilities: readonly string[];
}

/** RFC 6763 §6.1: a TXT string is at most 255 bytes, `key=` included. */
const MAX_STRING = 255;

export function encodeTxt(ad: Advertisement): Record<string, string> {
  const txt: Record<string, string> = { txtvers: '1' };
  if (ad.did) txt['did'] = ad.did;
  if (ad.endpoint) txt['url'] = ad.endpoint;
  if (ad.namespace) txt['ns'] = ad.namespace;
  if (ad.handle) txt['handle'] = ad.handle;
  // As many capability names as fit one string; the manifest behind `url` has the rest.
  let caps = '';
  for (const name of ad.capabilities) {
    const next = caps ? `${caps},${name}` : name;
    if (Buffer.byteLength(`caps=${next}`) > MAX_STRING) break;
    caps = next;
  }
  if (caps) txt['caps'] = caps;
  for (const [key, value] of Object.entries(txt)) if (Buffer.byteLength(`${key}=${value}`) > MAX_STRING) delete txt[key];
  return txt;
}

const text = (value: unknown, max: number): string | null => (typeof value === 'string' && value.length > 0 && value.length <= max ? value : null);

/** What a peer's TXT says, each field null when absent or unusable (keys are case-insensitive, §6.4). */
export function decodeTxt(txt: unknown): Advertisement {
  const fields: Record<string, unknown> = {};
  if (txt && typeof txt === 'object') for (const [key, value] of Object.entries(txt)) fields[key.toLowerCase()] = value;
  const caps = text(fields['caps'], MAX_STRING);
  return {
    did: text(fields['did'], MAX_STRING),
    endpoint: endpointOf(text(fields['url'], MAX_STRING)),
    namespace: text(fields['ns'], MAX_STRING),
    handle: text(fields['handle'], MAX_STRING),
    capabilities: caps ? [...new Set(caps.split(',').map((name) => name.trim()).filter((name) => /^[A-Za-z0-9._-]{1,64}$/.test(name)))] : [],
  };
}

/** An http(s) origin with an optional path and no trailing slash, or null: nothing else is ever fetched. */
export function endpointOf(value: string | null): string | null {
  if (value === null) return null;
  try {
    const url = new URL(value);
    if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.username || url.password || url.search || url.hash) return null;
    return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
  } catch {
    return null;
  }
}
