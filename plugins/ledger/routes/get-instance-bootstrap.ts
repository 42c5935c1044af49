import { Type } from 'typebox';
import { defineRoute } from '../../../core/plugin/route.js';
import { RecordSchema } from '../../../core/plugin/shared-schemas.js';
import { InstanceChromeToken, isChromeOwner } from '../instance-chrome-fold.js';

export const getInstanceBootstrap = defineRoute({
  operationId: 'getInstanceBootstrap',
  method: 'GET',
  path: '/v1/instance/bootstrap',
  summary: 'What a client needs to draw the instance, for any caller',
  description:
    'Auth-invariant: needs no token and never refuses one. An anonymous caller (or one whose token does not hold) gets is_authenticated false and no scopes; ' +
    'the published shell and the metadata are the same for everyone.',
  tags: ['ledger'],
  auth: 'optional',
  responses: {
    200: {
      description: 'Shell, metadata and the caller identity.',
      schema: Type.Object(
        {
          object: Type.Literal('instance_bootstrap'),
          shell: Type.Union([RecordSchema, Type.Null()]),
          metadata: Type.Union([RecordSchema, Type.Null()]),
          identity: Type.Object({ object: Type.Literal('identity'), is_authenticated: Type.Boolean(), scopes: Type.Array(Type.String()) }),
          is_owner: Type.Boolean(),
          ts: Type.String(),
        },
        { $id: 'InstanceBootstrap' },
      ),
    },
  },
  errors: [],
  inject: { chrome: InstanceChromeToken },
  handler: ({ caller }, { chrome: own }) => {
    const chrome = own.state();
    const authenticated = caller.kind === 'credential';
    return {
      object: 'instance_bootstrap' as const,
      shell: chrome.published?.record ?? null,
      metadata: chrome.metadata,
      identity: { object: 'identity' as const, is_authenticated: authenticated, scopes: authenticated ? [...caller.scopes] : [] },
      is_owner: authenticated && isChromeOwner(chrome, caller),
      ts: new Date().toISOString(),
    };
  },
});
