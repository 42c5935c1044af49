/**
 * Only the work engine opens a run it drives. A driven run's opening record
 * carries the credential its tools act with (`grant`), and the engine
 * drives exactly the openings that carry one, so a writer who could put a
 * grant of its choosing in an opening could run tools with any scopes. This
 * gate admits an opening with a grant only from the work plugin itself (or
 * a replay of the instance's own export); everyone else's run records
 * (an external runtime recording its runs) carry none and are only read.
 * Such openings never leave the instance either (federation's local
 * records), so no peer drives another instance's runs.
 */
import type { IngestGate } from '../../../core/access/ingest-gate.js';
import { LoomError } from '../../../core/errors/loom-error.js';
import type { LoomRecord } from '../../../core/records/record.js';
import { KIND_RUN } from '../../members/index.js';

export function isDrivenOpening(record: LoomRecord): boolean {
  return record.body['kind'] === KIND_RUN && record.body['grant'] !== undefined;
}

export const runOpeningGate: IngestGate = {
  name: 'work.run-openings',
  check({ record, context }) {
    if (!isDrivenOpening(record)) return;
    if (context.plugin === 'work' || context.via === 'replay') return;
    throw new LoomError('FORBIDDEN', 'a core.work.run.v1 carrying a grant opens a run the work engine drives: only the engine writes one (start a run with POST /v1/actors/{did}/runs or POST /v1/work/loop)');
  },
};
