/**
 * Imported trust is written only through a plugin's door (the members
 * plugin's `POST /v1/actors/{did}/import`, which checks the bundle and who
 * imports): a client cannot hand a member trust through POST /v1/records,
 * and a federation peer cannot either. Replays of the instance's own
 * history (import of an export) pass: records this gate admitted once.
 */
import type { IngestGate } from '../../core/access/ingest-gate.js';
import { LoomError } from '../../core/errors/loom-error.js';
import { KIND_TRUST_IMPORT } from './trust-import.js';

export const trustImportGate: IngestGate = {
  name: 'trust.import',
  check({ record, context }) {
    if (record.body['kind'] !== KIND_TRUST_IMPORT) return;
    if (context.plugin !== undefined || context.via === 'replay') return;
    throw new LoomError('FORBIDDEN', `${KIND_TRUST_IMPORT} records are written only by an import door (POST /v1/actors/{did}/import)`);
  },
};
