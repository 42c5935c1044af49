/**
 * The offline verifier (`loom directory verify`, and the mirror test): given
 * an identity's operations as GET /directory/{hash}/operations answers them,
 * recomputes everything from the operations alone (each hash, the identifier
 * from the genesis, every signature against the keys in force, every `prev`
 * link, the revoke as the last word) and renders the DID document the chain
 * gives. No network and no directory is trusted: the answer's own `did`,
 * `state` and `hash` fields are checked against what the operations give.
 * Handle uniqueness spans a whole directory and is not checkable from one
 * identity's log; a handle's syntax is.
 */
import { DirectoryError, type DirectoryErrorCode } from './directory-error.js';
import { admit, applyAdmitted, emptyDirectory } from './directory-state.js';
import { renderDidDocument } from './render-did-document.js';
import { operationHash, parseOperation } from './directory-operation.js';

function hashIfParsed(value: unknown): string | null {
  try {
    return operationHash(parseOperation(value));
  } catch {
    return null;
  }
}

export interface VerifyFailure {
  /** Index of the failing operation in the list (null: the export itself is malformed). */
  readonly index: number | null;
  readonly hash: string | null;
  readonly code: DirectoryErrorCode;
  readonly message: string;
}

export interface VerifyResult {
  readonly object: 'directory_verification';
  readonly ok: boolean;
  readonly did: string | null;
  readonly state: 'active' | 'revoked' | null;
  readonly operations: number;
  /** The DID document the chain gives (canonical JSON), null when revoked or on failure. */
  readonly document: string | null;
  readonly failure: VerifyFailure | null;
}

/** The entries of an export: `{operations: [{hash, operation}]}`, or a bare array of operations or of entries. */
function entriesOf(exported: unknown): { entries: Array<{ hash?: unknown; operation: unknown }>; did?: unknown; state?: unknown } {
  const list = Array.isArray(exported) ? exported : typeof exported === 'object' && exported !== null ? (exported as Record<string, unknown>)['operations'] : undefined;
  if (!Array.isArray(list)) throw new DirectoryError('DIRECTORY_OPERATION_INVALID', 'an operations export: {"did", "operations": [{"hash", "operation"}]} or an array of operations');
  const entries = list.map((item) => (typeof item === 'object' && item !== null && 'operation' in item ? (item as { hash?: unknown; operation: unknown }) : { operation: item }));
  const meta = Array.isArray(exported) ? {} : (exported as Record<string, unknown>);
  return { entries, did: meta['did'], state: meta['state'] };
}

export function verifyOperations(exported: unknown): VerifyResult {
  const state = emptyDirectory();
  let did: string | null = null;
  let index: number | null = null;
  let hash: string | null = null;
  const fail = (code: DirectoryErrorCode, message: string): VerifyResult => ({ object: 'directory_verification', ok: false, did, state: null, operations: index ?? 0, document: null, failure: { index, hash, code, message } });
  try {
    const { entries, did: claimedDid, state: claimedState } = entriesOf(exported);
    if (entries.length === 0) throw new DirectoryError('DIRECTORY_OPERATION_INVALID', 'no operations: a log starts with its genesis');
    for (index = 0; index < entries.length; index++) {
      const entry = entries[index]!;
      // Named in a failure: the operation's own hash, when it parses at all.
      hash = hashIfParsed(entry.operation);
      const admitted = admit(state, did, entry.operation);
      hash = admitted.hash;
      if (entry.hash !== undefined && entry.hash !== admitted.hash) throw new DirectoryError('DIRECTORY_OPERATION_INVALID', `hash: the operation hashes to ${admitted.hash}, the export says ${String(entry.hash)}`, 'hash');
      applyAdmitted(state, admitted);
      did = admitted.did;
    }
    index = null;
    hash = null;
    const identity = state.identities.get(did!)!;
    if (claimedDid !== undefined && claimedDid !== did) throw new DirectoryError('DIRECTORY_OPERATION_INVALID', `did: the genesis gives ${did}, the export says ${String(claimedDid)}`, 'did');
    const finalState = identity.revoked ? 'revoked' : 'active';
    if (claimedState !== undefined && claimedState !== finalState) throw new DirectoryError('DIRECTORY_OPERATION_INVALID', `state: the operations end ${finalState}, the export says ${String(claimedState)}`, 'state');
    return { object: 'directory_verification', ok: true, did, state: finalState, operations: entries.length, document: identity.revoked ? null : renderDidDocument(did!, identity.current), failure: null };
  } catch (error) {
    if (error instanceof DirectoryError) return fail(error.code, error.message);
    throw error;
  }
}
