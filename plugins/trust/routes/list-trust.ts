import { Type } from 'typebox';
import { defineRoute } from '../../../core/plugin/route.js';
import { HALF_LIFE_DAYS } from '../decay.js';
import { TrustServiceToken } from '../trust-service.js';
import { TrustListSchema } from './trust-schemas.js';

export const listTrust = defineRoute({
  operationId: 'listTrust',
  method: 'GET',
  path: '/v1/trust',
  summary: 'Trust scores',
  description:
    'One row per (actor, domain, judged_by), or per (actor, domain) with group=actor_domain, best score first (then actor, domain, judge). ' +
    'Scores are the Wilson lower bound (95%) of verdicts weighted by a 90-day half-life, read at as_of; ' +
    'only verdicts, claims and tasks the caller may read count, and a judge resolving to the worker’s own principal is left out.',
  tags: ['trust'],
  auth: { scope: 'records:read' },
  request: {
    query: Type.Object(
      {
        actor: Type.Optional(Type.String({ minLength: 1, maxLength: 512, description: 'Only this worker DID.' })),
        domain: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
        judged_by: Type.Optional(Type.String({ minLength: 1, maxLength: 512, description: 'Only verdicts by this judge DID (with group=actor_domain: aggregate only this judge’s rows).' })),
        group: Type.Optional(Type.Union([Type.Literal('judge'), Type.Literal('actor_domain')], { default: 'judge', description: 'judge: a row per judge; actor_domain: all judges together.' })),
        limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 100 })),
        after: Type.Optional(Type.String({ pattern: '^[0-9]{1,9}$', description: 'next_cursor of the previous page.' })),
      },
      { additionalProperties: false },
    ),
  },
  responses: { 200: { description: 'A page of trust scores.', schema: TrustListSchema } },
  errors: ['INVALID_SHAPE'],
  inject: { trust: TrustServiceToken },
  handler: async ({ query, caller }, { trust }) => {
    const listing = await trust.rows(caller, { actor: query.actor, domain: query.domain, judged_by: query.judged_by }, query.group ?? 'judge');
    const offset = query.after === undefined ? 0 : Number(query.after);
    const end = offset + (query.limit ?? 100);
    const more = end < listing.rows.length;
    return {
      object: 'list' as const,
      data: listing.rows.slice(offset, end),
      has_more: more,
      next_cursor: more ? String(end) : null,
      as_of: new Date(listing.asOf).toISOString(),
      watermark: listing.watermark,
      half_life_days: HALF_LIFE_DAYS,
      stats: listing.stats,
    };
  },
});
