/**
 * Imported trust is written only through a plugin's door (the members
 * plugin's `POST /v1/actors/{did}/import`, which checks the bundle and who
 * imports): a client cannot hand a member trust through POST /v1/records.
 * Replays of the instance's own history pass (records this gate admitted
 * once), and so do records from a federation peer, which its own door
 * admitted: they count as the peer's verdicts do (judged by the peer's
 * instance), and refusing one would stall the pair, which stops at the
 * first refused record.
 */
import type { IngestGate } from '../../core/access/ingest-gate.js';
import { LoomError } from '../../core/errors/loom-error.js';
import { KIND_TRUST_IMPORT } from './trust-import.js';

export const trustImportGate: IngestGate = {
  name: 'trust.import',
  check({ record, context }) {
    if (record.body['kind'] !== KIND_TRUST_IMPORT) return;
    if (context.plugin !== undefined || context.via === 'replay' || context.via === 'federation') return;
    throw new LoomError('FORBIDDEN', `${KIND_TRUST_IMPORT} records are written only by an import door (POST /v1/actors/{did}/import)`);
  },
};
