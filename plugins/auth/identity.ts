/** The identity of a caller as /v1/identity and /v1/instance/bootstrap show it (spec §4.11). */
import { Type } from 'typebox';
import type { Caller } from '../../core/access/caller.js';
import { serviceAccountOf } from './caller-claims.js';

export const IdentitySchema = Type.Object(
  {
    object: Type.Literal('identity'),
    actor: Type.Union([Type.String(), Type.Null()], { description: 'The DID this request acts as: the X-Service-Actor claim, else the principal.' }),
    display_name: Type.Union([Type.String(), Type.Null()]),
    did: Type.Union([Type.String(), Type.Null()], { description: 'The principal DID of the credential.' }),
    method: Type.Union([Type.Literal('bearer'), Type.Literal('none')]),
    key_path: Type.Null({ description: 'Bearer credentials have no key file.' }),
    key_fingerprint: Type.Union([Type.String(), Type.Null()], { description: 'First 16 hex digits of the token id (SHA-256 of the secret).' }),
    is_authenticated: Type.Boolean(),
    scopes: Type.Array(Type.String()),
    service_account_id: Type.Union([Type.String(), Type.Null()]),
    expires_at: Type.Union([Type.String(), Type.Null()]),
    allowed_actors: Type.Array(Type.String()),
  },
  { $id: 'Identity' },
);

export function identityOf(caller: Caller) {
  const authenticated = caller.kind === 'credential';
  const displayName = caller.claims['auth.display_name'];
  return {
    object: 'identity' as const,
    actor: caller.actor ?? caller.principal,
    display_name: typeof displayName === 'string' ? displayName : null,
    did: caller.principal,
    method: authenticated ? ('bearer' as const) : ('none' as const),
    key_path: null,
    key_fingerprint: caller.credential ? caller.credential.slice(0, 16) : null,
    is_authenticated: authenticated,
    // An anonymous caller has no scopes (spec §4.12); local callers hold every scope while enforcement is off.
    scopes: caller.kind === 'anonymous' ? [] : [...caller.scopes],
    service_account_id: serviceAccountOf(caller),
    expires_at: caller.expiresAt,
    allowed_actors: [...caller.actors],
  };
}
