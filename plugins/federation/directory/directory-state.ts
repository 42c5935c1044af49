/**
 * The directory as a pure state machine over operations, the one rule set the
 * ingest gate, the fold and the offline verifier share: `admit` decides
 * whether an operation may follow (or start) an identity's chain, naming the
 * refusal with a typed DirectoryError, and `applyAdmitted` records it. An
 * identity's chain never forks: an operation must follow the current head,
 * and after a revoke nothing follows. Handles are unique among live
 * identities, first come first served in log order; a revoke or a change of
 * handle frees the old one.
 */
import { DirectoryError } from './directory-error.js';
import { didFromGenesisHash, operationHash, parseOperation, verifySignature, OP_TYPE, type DirectoryOperation, type SyncOp } from './directory-operation.js';

export interface Identity {
  readonly did: string;
  /** Every accepted operation's hash, in chain order. */
  readonly hashes: string[];
  /** The hash of the last operation: what the next one must name as `prev`. */
  head: string;
  /** The last `sync_op`: the identity's keys, services and handle. */
  current: SyncOp;
  revoked: boolean;
}

export interface DirectoryState {
  readonly identities: Map<string, Identity>;
  /** handle → DID of the live identity that holds it. */
  readonly handles: Map<string, string>;
}

export interface Admitted {
  readonly did: string;
  readonly hash: string;
  readonly operation: DirectoryOperation;
  readonly step: 'genesis' | 'update' | 'revoke';
}

export function emptyDirectory(): DirectoryState {
  return { identities: new Map(), handles: new Map() };
}

/**
 * Whether `value` may be the next operation: of the identity `did`, or a
 * genesis when `did` is null or the identifier the genesis derives (a
 * record names it). Reads the state, never changes it.
 */
export function admit(state: DirectoryState, did: string | null, value: unknown): Admitted {
  const operation = parseOperation(value);
  const hash = operationHash(operation);
  if (operation.type === OP_TYPE && operation.prev === null) {
    const derived = didFromGenesisHash(hash);
    if (did !== null && did !== derived) throw new DirectoryError('DIRECTORY_OPERATION_INVALID', `did: a genesis operation creates ${derived}, not ${did}`, 'did');
    if (state.identities.has(derived)) throw new DirectoryError('DIRECTORY_DID_EXISTS', `${derived} exists: its genesis was accepted before`);
    verifySignature(operation, operation.rotation_keys);
    checkHandle(state, operation.handle, derived);
    return { did: derived, hash, operation, step: 'genesis' };
  }
  if (did === null) throw new DirectoryError('DIRECTORY_OPERATION_INVALID', 'prev: a genesis operation has prev null', 'prev');
  const identity = state.identities.get(did);
  if (!identity) throw new DirectoryError('DIRECTORY_DID_NOT_FOUND', `no identity ${did} in this directory`);
  if (identity.revoked) throw new DirectoryError('DIRECTORY_REVOKED', `${did} is revoked: a revoke is final`);
  if (operation.prev !== identity.head) throw new DirectoryError('DIRECTORY_PREV_MISMATCH', `prev: ${did}'s head is ${identity.head}, not ${String(operation.prev)}`, 'prev');
  verifySignature(operation, identity.current.rotation_keys);
  if (operation.type === OP_TYPE) {
    checkHandle(state, operation.handle, did);
    return { did, hash, operation, step: 'update' };
  }
  return { did, hash, operation, step: 'revoke' };
}

function checkHandle(state: DirectoryState, handle: string | null, did: string): void {
  if (handle === null) return;
  const holder = state.handles.get(handle);
  if (holder !== undefined && holder !== did) throw new DirectoryError('DIRECTORY_HANDLE_TAKEN', `handle: ${handle} belongs to ${holder}`, 'handle');
}

/** Records an operation `admit` accepted against this same state. */
export function applyAdmitted(state: DirectoryState, admitted: Admitted): Identity {
  const { did, hash, operation } = admitted;
  if (admitted.step === 'genesis') {
    const op = operation as SyncOp;
    const identity: Identity = { did, hashes: [hash], head: hash, current: op, revoked: false };
    state.identities.set(did, identity);
    if (op.handle !== null) state.handles.set(op.handle, did);
    return identity;
  }
  const identity = state.identities.get(did)!;
  identity.hashes.push(hash);
  identity.head = hash;
  const old = identity.current.handle;
  if (old !== null && state.handles.get(old) === did) state.handles.delete(old);
  if (operation.type === OP_TYPE) {
    identity.current = operation;
    if (operation.handle !== null) state.handles.set(operation.handle, did);
  } else identity.revoked = true;
  return identity;
}
