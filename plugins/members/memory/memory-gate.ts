/**
 * Memory records are written only through the member doors (the memory
 * routes and import), which check who may: a client cannot plant or cancel
 * a memory of someone's member through POST /v1/records. Replays of the
 * instance's own history pass, and so do records from a federation peer,
 * whose own doors admitted them (as the data plane's node records): refusing
 * one would stall the pair, which stops at the first refused record.
 */
import type { IngestGate } from '../../../core/access/ingest-gate.js';
import { LoomError } from '../../../core/errors/loom-error.js';
import { KIND_MEMORY } from './memory.js';

export const memoryGate: IngestGate = {
  name: 'members.memory',
  check({ record, context }) {
    if (record.body['kind'] !== KIND_MEMORY) return;
    if (context.plugin === 'members' || context.via === 'replay' || context.via === 'federation') return;
    throw new LoomError('FORBIDDEN', `${KIND_MEMORY} records are written only through /v1/actors/{did}/memories and /v1/actors/{did}/import`);
  },
};
