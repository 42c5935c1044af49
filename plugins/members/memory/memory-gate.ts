/**
 * Memory records are written only through the member doors (the memory
 * routes and import), which check who may: a client cannot plant or cancel
 * a memory of someone's member through POST /v1/records. Replays of the
 * instance's own history pass. A member's memories are its instance's own:
 * federation never serves them (they are declared local records, see
 * register-memory.ts), and one arriving from a peer anyway is refused, so no
 * peer can add to or cancel a memory of a member here (a member DID is the
 * same on two instances when the same owner gave the same label).
 */
import type { IngestGate } from '../../../core/access/ingest-gate.js';
import { LoomError } from '../../../core/errors/loom-error.js';
import { KIND_MEMORY } from './memory.js';

export const memoryGate: IngestGate = {
  name: 'members.memory',
  check({ record, context }) {
    if (record.body['kind'] !== KIND_MEMORY) return;
    if (context.plugin === 'members' || context.via === 'replay') return;
    throw new LoomError('FORBIDDEN', `${KIND_MEMORY} records are written only through /v1/actors/{did}/memories and /v1/actors/{did}/import`);
  },
};
