/**
 * th_actor_registry holds what the members plugin writes (definitions and
 * the prompts its patches write): a client cannot forge a version of
 * someone's member through POST /v1/records. Replays of the instance's own
 * history (import) pass; they are records this gate admitted once.
 */
import type { IngestGate } from '../../core/access/ingest-gate.js';
import { LoomError } from '../../core/errors/loom-error.js';
import { TH_ACTOR_REGISTRY } from '../../core/records/reserved-threads.js';

export const registryGate: IngestGate = {
  name: 'members.registry',
  check({ record, context }) {
    if (record.thread !== TH_ACTOR_REGISTRY) return;
    if (context.plugin === 'members' || context.via === 'replay') return;
    throw new LoomError('FORBIDDEN', `${TH_ACTOR_REGISTRY} is written only through the member doors (POST /v1/actors/define and the /v1/actors/{did}/definition routes)`);
  },
};

/** Writes as a retired member are refused: retirement revokes its permission (spec §3). */
export function retiredMemberGate(isRetired: (did: string) => boolean): IngestGate {
  return {
    name: 'members.retired',
    check({ record, context }) {
      if (context.via === 'replay' || context.via === 'federation') return;
      if (isRetired(record.actor)) throw new LoomError('FORBIDDEN', `${record.actor} is a retired member: it writes nothing more (define it again to bring it back)`);
    },
  };
}
