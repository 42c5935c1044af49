/**
 * DID syntax (W3C DID Core §3.1) for the three supported methods (spec §1):
 * `did:key`, `did:web`, `did:sync`. Unknown actors are allowed; unknown methods are not.
 * Returns null when valid, otherwise the rule that failed.
 */
export const SUPPORTED_DID_METHODS = ['key', 'web', 'sync'] as const;
export const DID_SYNC_KINDS = ['user', 'agent', 'system'] as const;
export const DID_MAX_LENGTH = 512;

// did = "did:" method-name ":" method-specific-id ; idchar = ALPHA / DIGIT / "." / "-" / "_" / pct-encoded
const GENERIC_DID = /^did:([a-z0-9]+):((?:(?:[A-Za-z0-9._-]|%[0-9A-Fa-f]{2})*:)*(?:[A-Za-z0-9._-]|%[0-9A-Fa-f]{2})+)$/;
// did:key is a multibase base58btc ("z") multicodec public key.
const DID_KEY_ID = /^z[1-9A-HJ-NP-Za-km-z]{8,}$/;
// did:web: a host (optionally with a %3A-encoded port) then optional ":"-separated path segments.
const DNS_LABEL = '[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?';
const DID_WEB_ID = new RegExp(`^${DNS_LABEL}(?:\\.${DNS_LABEL})*(?:%3[Aa][0-9]{1,5})?(?::(?:[A-Za-z0-9._-]|%[0-9A-Fa-f]{2})+)*$`);
const IDCHARS = /^(?:[A-Za-z0-9._-]|%[0-9A-Fa-f]{2})+$/;

/**
 * DIDs recently found valid: a busy writer repeats its DID on every record,
 * and two regular expressions per record showed up in ingest profiles.
 * Forgotten wholesale when full (a plain Set; no recency order needed).
 */
const recentlyValid = new Set<string>();
const RECENTLY_VALID_LIMIT = 10_000;

export function didSyntaxError(value: unknown): string | null {
  if (typeof value !== 'string') return 'must be a string DID';
  if (recentlyValid.has(value)) return null;
  const error = checkDid(value);
  if (error === null) {
    if (recentlyValid.size >= RECENTLY_VALID_LIMIT) recentlyValid.clear();
    recentlyValid.add(value);
  }
  return error;
}

function checkDid(value: string): string | null {
  if (value.length > DID_MAX_LENGTH) return `must be at most ${DID_MAX_LENGTH} characters`;
  const match = GENERIC_DID.exec(value);
  if (!match) return 'must be a DID of the form did:<method>:<method-specific-id> (W3C DID syntax)';
  const method = match[1]!;
  const id = match[2]!;
  switch (method) {
    case 'key':
      return DID_KEY_ID.test(id) ? null : 'did:key must carry a base58btc multibase key starting with "z"';
    case 'web':
      return DID_WEB_ID.test(id) ? null : 'did:web must carry a domain name, optionally a %3A-encoded port and :-separated path';
    case 'sync': {
      const segments = id.split(':');
      if (segments.length === 1) return null; // directory identity: did:sync:<hash>
      const [kind, ...rest] = segments;
      if (!(DID_SYNC_KINDS as readonly string[]).includes(kind!)) {
        return `did:sync with a kind must use one of ${DID_SYNC_KINDS.join(', ')} (did:sync:<kind>:<name>)`;
      }
      if (rest.length !== 1 || !IDCHARS.test(rest[0]!)) return `did:sync:${kind}: must be followed by exactly one name segment`;
      return null;
    }
    default:
      return `DID method "${method}" is not supported (supported: ${SUPPORTED_DID_METHODS.join(', ')})`;
  }
}

export function isValidDid(value: unknown): value is string {
  return didSyntaxError(value) === null;
}

/** `did:sync:user:<name>` and friends, for the system-local conventions. */
export function syncDid(kind: (typeof DID_SYNC_KINDS)[number], name: string): string {
  const did = `did:sync:${kind}:${name}`;
  const error = didSyntaxError(did);
  if (error) throw new TypeError(`invalid name for ${kind} DID: ${error}`);
  return did;
}
