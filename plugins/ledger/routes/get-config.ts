import { RecordReaderToken } from '../../../core/engine/record-reader.js';
import { ENGINE_CONFIG_FOLD } from '../../../core/folds/config/config-fold.js';
import { defineRoute } from '../../../core/plugin/route.js';
import { FoldAnswerSchema } from '../../../core/plugin/shared-schemas.js';

export const getConfig = defineRoute({
  operationId: 'getConfig',
  method: 'GET',
  path: '/v1/config',
  summary: 'The configuration in force',
  description:
    'The engine_config fold: for every configuration topic a loaded plugin registered, the latest LEARN record on th_engine_config (per key for keyed topics), ' +
    'plus warnings for records that did not apply (malformed, or a topic no loaded plugin owns).',
  tags: ['ledger'],
  auth: { scope: 'config:read' },
  responses: { 200: { description: 'The fold answer.', schema: FoldAnswerSchema } },
  errors: [],
  inject: { reader: RecordReaderToken },
  // Through the reader with the caller, like every fold read: a restricted caller sees the fold over what it may read.
  handler: ({ caller }, { reader }) => reader.globalFold(caller, ENGINE_CONFIG_FOLD),
});
