/**
 * Every record on the directory thread passes this gate, whatever its door:
 * only the directory's own routes write there from the API, and every record
 * (a route's, a replayed import's, a peer's) must carry an operation that
 * follows the chain as the directory holds it now, checked by the same rules
 * as the fold and the offline verifier. An import into a mirror is checked
 * operation by operation (the importer ingests system-thread records one at
 * a time), so a mirror trusts nothing the exporting instance says.
 */
import type { IngestGate } from '../../../core/access/ingest-gate.js';
import { LoomError } from '../../../core/errors/loom-error.js';
import { FEDERATION_PLUGIN } from '../sync-service.js';
import { directoryCall } from './directory-loom-error.js';
import type { DirectoryFoldState } from './directory-fold.js';
import { admit } from './directory-state.js';
import { DIRECTORY_RECORD_KIND, DIRECTORY_THREAD } from './directory-thread.js';

const BODY_FIELDS = ['did', 'kind', 'operation'];

export function directoryGate(state: () => DirectoryFoldState): IngestGate {
  return {
    name: 'federation.directory-operations',
    check({ record, context }) {
      if (record.thread !== DIRECTORY_THREAD) return;
      if ((context.via === 'api' || context.via === 'engine') && context.plugin !== FEDERATION_PLUGIN) {
        throw new LoomError('FORBIDDEN', `${DIRECTORY_THREAD} holds did:sync directory operations; submit them to POST /directory/genesis, /directory/update/{hash} or /directory/revoke/{hash}`);
      }
      const body = record.body as Record<string, unknown>;
      const keys = Object.keys(body).sort();
      if (record.act !== 'LEARN' || body['kind'] !== DIRECTORY_RECORD_KIND || keys.length !== BODY_FIELDS.length || keys.some((key, i) => key !== BODY_FIELDS[i]) || typeof body['did'] !== 'string') {
        throw new LoomError('DIRECTORY_OPERATION_INVALID', `a directory record is a LEARN with body exactly {kind: "${DIRECTORY_RECORD_KIND}", did, operation}`);
      }
      directoryCall(() => admit(state().directory, body['did'] as string, body['operation']));
    },
  };
}
