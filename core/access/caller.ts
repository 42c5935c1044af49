/**
 * Who is calling: every request resolves to one Caller before its input is
 * validated, and every write carries one into the ingest gates. Plain frozen
 * data; only the plugin that issued a credential interprets its `claims`.
 */
import { ALL_SCOPES_GRANT } from './scopes.js';

export type CallerKind =
  /** No credential on an exempt or optional route. */
  | 'anonymous'
  /** Enforcement is off (no authenticator, auth not required, --insecure-localhost) and no credential was sent: all scopes. */
  | 'local'
  /** A verified credential (a bearer token, a peer token). */
  | 'credential'
  /** The engine's and plugins' own writes (heartbeat, loops, the auth plugin's records). Gates still run. */
  | 'system';

export interface Caller {
  readonly kind: CallerKind;
  /** The principal DID the credential belongs to; null for anonymous and local. */
  readonly principal: string | null;
  /**
   * The presented credential's id as its issuer names it (a token id), opaque
   * to core: per-credential rate limits and denial logs key on it. Null
   * without a credential.
   */
  readonly credential: string | null;
  /** Scopes and wire grains as snapshotted at issuance (spec §5.2, §5.3), e.g. `records:read`, `thread:th_…:read`. */
  readonly scopes: readonly string[];
  /** DIDs this credential may write as (exact DIDs, or a prefix ending in `*`). */
  readonly actors: readonly string[];
  /** The DID claimed with X-Service-Actor, already admitted against `actors`; null when none was claimed. */
  readonly actor: string | null;
  /** ISO 8601 expiry of the credential, or null for none. */
  readonly expiresAt: string | null;
  /**
   * Facts only their issuing plugin interprets, keyed `<plugin>.<name>`
   * (the auth plugin's service account and grant chain among them), read
   * through the typed accessors that plugin's index exports.
   */
  readonly claims: Readonly<Record<string, unknown>>;
}

function caller(fields: Partial<Caller> & Pick<Caller, 'kind'>): Caller {
  return Object.freeze({
    principal: null,
    credential: null,
    scopes: Object.freeze([]),
    actors: Object.freeze([]),
    actor: null,
    expiresAt: null,
    claims: Object.freeze({}),
    ...fields,
  });
}

/** Makes a credential caller (frozen, with defaults for what the credential does not carry). */
export function credentialCaller(fields: Partial<Omit<Caller, 'kind'>>): Caller {
  return caller({
    ...fields,
    kind: 'credential',
    scopes: Object.freeze([...(fields.scopes ?? [])]),
    actors: Object.freeze([...(fields.actors ?? [])]),
    claims: Object.freeze({ ...(fields.claims ?? {}) }),
  });
}

export const ANONYMOUS: Caller = caller({ kind: 'anonymous' });
export const LOCAL: Caller = caller({ kind: 'local', scopes: Object.freeze([ALL_SCOPES_GRANT]), actors: Object.freeze(['*']) });
export const SYSTEM: Caller = caller({ kind: 'system', principal: null, scopes: Object.freeze([ALL_SCOPES_GRANT]), actors: Object.freeze(['*']) });

/** The same caller acting as `actor` (an admitted X-Service-Actor claim). */
export function withActorClaim(base: Caller, actor: string): Caller {
  return Object.freeze({ ...base, actor });
}

/** The actor of writes by a local caller (no credential, enforcement off). */
export const LOCAL_OPERATOR_DID = 'did:sync:user:operator';

/** The DID a caller writes as: its X-Service-Actor claim, else its principal, else the local operator. */
export function actingDid(caller: Caller): string {
  return caller.actor ?? caller.principal ?? LOCAL_OPERATOR_DID;
}
