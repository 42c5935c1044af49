import { Type } from 'typebox';
import { LoomError } from '../../../core/errors/loom-error.js';
import { defineRoute } from '../../../core/plugin/route.js';
import { RecordSchema } from '../../../core/plugin/shared-schemas.js';
import { InstanceChromeToken, isChromeOwner } from '../instance-chrome-fold.js';

export const getInstanceShell = defineRoute({
  operationId: 'getInstanceShell',
  method: 'GET',
  path: '/v1/instance/shell',
  summary: "The instance's shell record",
  description: 'lifecycle=published (default) for everyone with records:read; lifecycle=draft for the owner only (403 OWNER_ONLY). 404 when none exists.',
  tags: ['ledger'],
  auth: { scope: 'records:read' },
  request: {
    query: Type.Object({ lifecycle: Type.Optional(Type.Union([Type.Literal('published'), Type.Literal('draft')], { default: 'published' })) }, { additionalProperties: false }),
  },
  responses: {
    200: {
      description: 'The shell.',
      schema: Type.Object({ object: Type.Literal('instance_shell'), version: Type.Integer(), lifecycle: Type.String(), shell: RecordSchema }, { $id: 'InstanceShell' }),
    },
  },
  errors: ['INVALID_SHAPE', 'NOT_FOUND', 'OWNER_ONLY'],
  inject: { chrome: InstanceChromeToken },
  handler: ({ query, caller }, { chrome: own }) => {
    const chrome = own.state();
    const lifecycle = query.lifecycle ?? 'published';
    if (lifecycle === 'draft' && !isChromeOwner(chrome, caller)) throw new LoomError('OWNER_ONLY', 'the draft shell is shown to the instance owner only');
    const entry = lifecycle === 'draft' ? chrome.draft : chrome.published;
    if (!entry) throw new LoomError('NOT_FOUND', lifecycle === 'draft' ? 'no draft shell' : 'nothing is published: no core.instance.shell.v1 record on th_instance_registry');
    return { object: 'instance_shell' as const, version: entry.version, lifecycle, shell: entry.record };
  },
});
