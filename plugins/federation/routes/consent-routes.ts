/**
 * GET /v1/sync/consent: the consent grants in force on this instance, as
 * the changes feed applies them. Grants and revocations are written as
 * records on th_consent (POST /v1/records); this is their folded view, so an
 * operator sees what crosses without replaying the thread, and whether an L0
 * grant is actually served at L0 (two-sided) or capped below it.
 */
import { Type } from 'typebox';
import { defineRoute } from '../../../core/plugin/route.js';
import { HASH_LEVELS } from '../consent/hash-levels.js';
import { ConsentGrantsToken } from '../federation-token.js';

const Level = Type.Union(HASH_LEVELS.map((level) => Type.Literal(level)));

export const ConsentGrantSchema = Type.Object(
  {
    object: Type.Literal('consent_grant'),
    id: Type.String({ description: 'The grant record id; revoke with a core.consent.revoke.v1 record naming it.' }),
    source_namespace: Type.String(),
    target_namespace: Type.String(),
    hash_levels: Type.Array(Level),
    threads: Type.Array(Type.String(), { description: '"*" for every thread.' }),
    purpose: Type.Union([Type.String(), Type.Null()]),
    expires_at: Type.Union([Type.String(), Type.Null()]),
    served_level: Level,
    two_sided: Type.Boolean({ description: 'A live reciprocal grant lists L0 too: only then is L0 served across the boundary.' }),
  },
  { $id: 'ConsentGrant' },
);

export const listConsentGrants = defineRoute({
  operationId: 'listConsentGrants',
  method: 'GET',
  path: '/v1/sync/consent',
  summary: 'Consent grants in force',
  description:
    'Live grants (not revoked, not expired), oldest first. `served_level` is the strongest level the changes feed serves under the grant: ' +
    'L0 only when `two_sided`, else the strongest level below L0 the grant lists (default L1).',
  tags: ['federation'],
  auth: { scope: 'federation:manage' },
  responses: { 200: { description: 'The grants.', schema: Type.Object({ object: Type.Literal('list'), data: Type.Array(ConsentGrantSchema) }, { $id: 'ConsentGrantList' }) } },
  errors: [],
  inject: { consent: ConsentGrantsToken },
  handler: (_input, { consent }) => ({ object: 'list' as const, data: consent.inForce() }),
});
