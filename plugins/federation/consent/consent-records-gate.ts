/**
 * Records on `th_consent` are consent itself: they must be well-formed
 * grants or revocations, and only a caller covering `federation:manage`
 * (or the engine) may write them, so no peer or ordinary writer can grant
 * itself access.
 */
import type { IngestGate } from '../../../core/access/ingest-gate.js';
import { covers } from '../../../core/access/scopes.js';
import { LoomError } from '../../../core/errors/loom-error.js';
import { TH_CONSENT } from '../../../core/records/reserved-threads.js';
import { consentProblem } from './consent-grants.js';

export const consentRecordsGate: IngestGate = {
  name: 'federation.consent-records',
  check({ record, context }) {
    if (record.thread !== TH_CONSENT) return;
    if (context.via !== 'engine' && !covers(context.caller.scopes, 'federation:manage')) {
      throw new LoomError('SCOPE_FORBIDDEN', `writing consent on ${TH_CONSENT} needs the federation:manage scope`);
    }
    const problem = consentProblem(record);
    if (problem) throw new LoomError('INVALID_SHAPE', problem);
  },
};
