/**
 * Pair lifecycle records on `th_federation_pairs` are the registry: only the
 * federation plugin writes them (from its routes), so POST /v1/records
 * cannot forge a pair or delete one.
 */
import type { IngestGate } from '../../core/access/ingest-gate.js';
import { LoomError } from '../../core/errors/loom-error.js';
import { TH_FEDERATION_PAIRS } from '../../core/records/reserved-threads.js';
import { FEDERATION_PLUGIN } from './sync-service.js';

export const controlRecordsGate: IngestGate = {
  name: 'federation.control-records',
  check({ record, context }) {
    if (record.thread !== TH_FEDERATION_PAIRS) return;
    if (context.plugin === FEDERATION_PLUGIN || context.via === 'engine' || context.via === 'replay') return;
    throw new LoomError('FORBIDDEN', `${TH_FEDERATION_PAIRS} holds sync pair lifecycle records; manage pairs with /v1/sync/pairs`);
  },
};
