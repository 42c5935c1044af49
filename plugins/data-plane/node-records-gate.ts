/**
 * Node records are written only by the data plane's own routes (which check
 * paths, preconditions and quotas and place the bytes first), by federation
 * and by replay. A node record sent to POST /v1/records could otherwise name
 * a blob its writer never uploaded and so read another tenant's bytes by hash.
 */
import type { IngestGate } from '../../core/access/ingest-gate.js';
import { LoomError } from '../../core/errors/loom-error.js';
import { DATA_PLANE_PLUGIN } from './data-plane-plugin-name.js';
import { NODE_KIND } from './node-records.js';

export const nodeRecordsGate: IngestGate = {
  name: 'data-plane.node-records',
  check({ record, context }) {
    if (record.body['kind'] !== NODE_KIND) return;
    if (context.via === 'federation' || context.via === 'replay' || context.plugin === DATA_PLANE_PLUGIN) return;
    throw new LoomError('FORBIDDEN', `body.kind ${NODE_KIND} is written by the data plane: use /v1/data/write/init, /v1/data/mkdir, /v1/data/mv, /v1/data/rm and /v1/data/publish`);
  },
};
