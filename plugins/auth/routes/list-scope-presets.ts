import { Type } from 'typebox';
import { SCOPES } from '../../../core/access/scopes.js';
import { defineRoute } from '../../../core/plugin/route.js';
import { SCOPE_PRESETS } from '../scope-presets.js';

export const listScopePresets = defineRoute({
  operationId: 'listScopePresets',
  method: 'GET',
  path: '/v1/scope_presets',
  summary: 'Scope presets and the closed scope enum',
  tags: ['auth'],
  auth: 'none',
  responses: {
    200: {
      description: 'Presets reader, contributor and admin with their scope sets.',
      schema: Type.Object(
        {
          object: Type.Literal('scope_presets'),
          presets: Type.Object({ reader: Type.Array(Type.String()), contributor: Type.Array(Type.String()), admin: Type.Array(Type.String()) }),
          scopes: Type.Array(Type.String()),
          grains: Type.Array(Type.String()),
        },
        { $id: 'ScopePresets' },
      ),
    },
  },
  errors: [],
  inject: {},
  handler: () => ({
    object: 'scope_presets' as const,
    presets: { reader: [...SCOPE_PRESETS.reader], contributor: [...SCOPE_PRESETS.contributor], admin: [...SCOPE_PRESETS.admin] },
    scopes: [...SCOPES],
    grains: ['thread:<thread_id>:read', 'thread:<thread_id>:write', 'namespace:<namespace>:read', 'namespace:<namespace>:write'],
  }),
});
