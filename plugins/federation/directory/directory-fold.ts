/**
 * The directory as a global fold over its thread: the identities with their
 * heads, current operations and handles (directory-state.ts), and for each
 * identity the ids of the records that carry its operations, so the
 * operations route reads them back through the record reader. The fold
 * re-checks every record with the same rules as the ingest gate and skips
 * one they refuse (counted in `skipped`): a log written without the gate
 * (an offline import, an older build) can never make the directory serve an
 * operation that does not verify.
 */
import type { Fold } from '../../../core/folds/fold.js';
import { DirectoryError } from './directory-error.js';
import { admit, applyAdmitted, emptyDirectory, type DirectoryState } from './directory-state.js';
import { DIRECTORY_RECORD_KIND, DIRECTORY_THREAD } from './directory-thread.js';

export interface DirectoryFoldState {
  readonly directory: DirectoryState;
  /** DID → ids of the records of its operations, in chain order. */
  readonly records: Map<string, string[]>;
  /** Records on the thread whose operation the rules refuse. */
  skipped: number;
}

export interface DirectorySummary {
  readonly identities: number;
  readonly revoked: number;
  readonly handles: number;
  readonly skipped: number;
}

export function summarize(state: DirectoryFoldState): DirectorySummary {
  let revoked = 0;
  for (const identity of state.directory.identities.values()) if (identity.revoked) revoked++;
  return { identities: state.directory.identities.size, revoked, handles: state.directory.handles.size, skipped: state.skipped };
}

/** The DID a directory record names, or null when the record is not one. */
export function recordDid(body: unknown): string | null {
  if (typeof body !== 'object' || body === null) return null;
  const b = body as Record<string, unknown>;
  return b['kind'] === DIRECTORY_RECORD_KIND && typeof b['did'] === 'string' ? b['did'] : null;
}

export const directoryFold: Fold<DirectoryFoldState, DirectorySummary> = {
  name: 'did_sync_directory',
  scope: 'global',
  description: 'The did:sync directory: identities, their chain heads and handles, counted (operations at GET /directory/{hash}/operations).',
  threads: [DIRECTORY_THREAD],
  initial: () => ({ directory: emptyDirectory(), records: new Map(), skipped: 0 }),
  apply(state, { record }) {
    const did = recordDid(record.body);
    if (did === null || record.act !== 'LEARN') {
      state.skipped++;
      return state;
    }
    try {
      const admitted = applyAdmitted(state.directory, admit(state.directory, did, (record.body as Record<string, unknown>)['operation']));
      const ids = state.records.get(admitted.did);
      if (ids) ids.push(record.id);
      else state.records.set(admitted.did, [record.id]);
    } catch (error) {
      if (!(error instanceof DirectoryError)) throw error;
      state.skipped++;
    }
    return state;
  },
  value: summarize,
};
