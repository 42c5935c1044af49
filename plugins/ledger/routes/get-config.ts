import { FoldEngineToken } from '../../../core/engine/fold-engine.js';
import { defineRoute } from '../../../core/plugin/route.js';
import { FoldAnswerSchema } from '../../../core/plugin/shared-schemas.js';

export const getConfig = defineRoute({
  operationId: 'getConfig',
  method: 'GET',
  path: '/v1/config',
  summary: 'The configuration in force',
  description: 'The engine_config fold: every topic of LEARN records on th_engine_config, latest per topic or key, plus warnings for records that did not apply.',
  tags: ['ledger'],
  auth: { scope: 'config:read' },
  responses: { 200: { description: 'The fold answer.', schema: FoldAnswerSchema } },
  errors: ['AUTH_REQUIRED', 'SCOPE_FORBIDDEN'],
  inject: { folds: FoldEngineToken },
  handler: (_input, { folds }) => folds.global('engine_config'),
});
