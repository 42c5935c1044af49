/**
 * Only the work plugin writes decision records. A request is the run's own
 * (the driver writes it as the member) and an answer is what the decide
 * door checked (who may answer, the choice rules, a blueprint installed
 * first), so a record of either kind from anyone else could make a run
 * wait on nothing, or resume it on an answer no one was allowed to give.
 * A replay of the instance's own export passes, as for run openings.
 */
import type { IngestGate } from '../../../core/access/ingest-gate.js';
import { LoomError } from '../../../core/errors/loom-error.js';
import { KIND_DECISION_ANSWER, KIND_DECISION_REQUEST } from '../../members/index.js';

export const decisionGate: IngestGate = {
  name: 'work.decisions',
  check({ record, context }) {
    const kind = record.body['kind'];
    if (kind !== KIND_DECISION_REQUEST && kind !== KIND_DECISION_ANSWER) return;
    if (context.plugin === 'work' || context.via === 'replay') return;
    throw new LoomError('FORBIDDEN', `${kind} records are written by the work engine: a run raises a decision, and POST /v1/decisions/{id}/decide answers it`);
  },
};
