import { expect } from 'chai';
import { DirectoryError } from './directory-error.js';
import { operationHash } from './directory-operation.js';
import { admit, applyAdmitted, emptyDirectory, type DirectoryState } from './directory-state.js';
import { newOperationKey, revokeOp, syncOp } from './operation-signer.js';

function refusal(state: DirectoryState, did: string | null, value: unknown): string {
  try {
    admit(state, did, value);
  } catch (error) {
    expect(error).to.be.instanceOf(DirectoryError);
    return (error as DirectoryError).code;
  }
  throw new Error('admitted');
}

const accept = (state: DirectoryState, did: string | null, value: unknown) => applyAdmitted(state, admit(state, did, value));

describe('directory state: the chain rules', () => {
  const key = newOperationKey();
  const next = newOperationKey();
  const stranger = newOperationKey();

  it('a genesis signed by its own rotation key starts an identity; one by another key is refused', () => {
    const state = emptyDirectory();
    const forged = syncOp(stranger, { rotation_keys: [key.did] }, null);
    expect(refusal(state, null, forged)).to.equal('DIRECTORY_SIGNATURE_INVALID');
    const identity = accept(state, null, syncOp(key, { rotation_keys: [key.did], handle: 'alice' }, null));
    expect(identity.hashes).to.have.length(1);
    expect(state.handles.get('alice')).to.equal(identity.did);
  });

  it('the same genesis twice: DIRECTORY_DID_EXISTS; a genesis naming another DID: invalid', () => {
    const state = emptyDirectory();
    const genesis = syncOp(key, { rotation_keys: [key.did] }, null);
    accept(state, null, genesis);
    expect(refusal(state, null, genesis)).to.equal('DIRECTORY_DID_EXISTS');
    expect(refusal(emptyDirectory(), 'did:sync:' + 'a'.repeat(52), genesis)).to.equal('DIRECTORY_OPERATION_INVALID');
  });

  it('updates follow the head, signed by a rotation key in force; a rotation moves the authority', () => {
    const state = emptyDirectory();
    const genesis = syncOp(key, { rotation_keys: [key.did] }, null);
    const { did } = accept(state, null, genesis);
    const g = operationHash(genesis);
    // Unknown DID, stale or forked prev, wrong key.
    expect(refusal(state, 'did:sync:' + 'b'.repeat(52), syncOp(key, { rotation_keys: [key.did] }, g))).to.equal('DIRECTORY_DID_NOT_FOUND');
    expect(refusal(state, did, syncOp(key, { rotation_keys: [key.did] }, 'f'.repeat(64)))).to.equal('DIRECTORY_PREV_MISMATCH');
    expect(refusal(state, did, syncOp(stranger, { rotation_keys: [stranger.did] }, g))).to.equal('DIRECTORY_SIGNATURE_INVALID');
    // Rotate to `next`: signed by the old key, which then loses its say.
    const rotate = syncOp(key, { rotation_keys: [next.did] }, g);
    accept(state, did, rotate);
    const r = operationHash(rotate);
    expect(refusal(state, did, syncOp(key, { rotation_keys: [key.did] }, r))).to.equal('DIRECTORY_SIGNATURE_INVALID');
    // The old head is no longer the head: a fork from the genesis is refused even with the key then in force.
    expect(refusal(state, did, syncOp(key, { rotation_keys: [key.did], handle: 'fork' }, g))).to.equal('DIRECTORY_PREV_MISMATCH');
    accept(state, did, syncOp(next, { rotation_keys: [next.did], handle: 'bob' }, r));
    expect(state.identities.get(did)!.hashes).to.have.length(3);
    expect(state.identities.get(did)!.current.handle).to.equal('bob');
  });

  it('handles are unique among live identities; a change or a revoke frees them', () => {
    const state = emptyDirectory();
    const a = syncOp(key, { rotation_keys: [key.did], handle: 'shared' }, null);
    const { did } = accept(state, null, a);
    expect(refusal(state, null, syncOp(next, { rotation_keys: [next.did], handle: 'shared' }, null))).to.equal('DIRECTORY_HANDLE_TAKEN');
    const rename = syncOp(key, { rotation_keys: [key.did], handle: 'renamed' }, operationHash(a));
    accept(state, did, rename);
    expect(state.handles.has('shared')).to.equal(false);
    const b = syncOp(next, { rotation_keys: [next.did], handle: 'shared' }, null);
    accept(state, null, b);
    accept(state, did, revokeOp(key, operationHash(rename)));
    expect(state.handles.has('renamed')).to.equal(false);
    accept(state, null, syncOp(stranger, { rotation_keys: [stranger.did], handle: 'renamed' }, null));
  });

  it('a revoke is terminal: every later operation is refused with DIRECTORY_REVOKED', () => {
    const state = emptyDirectory();
    const genesis = syncOp(key, { rotation_keys: [key.did, next.did] }, null);
    const { did } = accept(state, null, genesis);
    const revoke = revokeOp(next, operationHash(genesis));
    accept(state, did, revoke);
    expect(state.identities.get(did)!.revoked).to.equal(true);
    const h = operationHash(revoke);
    expect(refusal(state, did, syncOp(key, { rotation_keys: [key.did] }, h))).to.equal('DIRECTORY_REVOKED');
    expect(refusal(state, did, revokeOp(key, h))).to.equal('DIRECTORY_REVOKED');
    expect(refusal(state, null, genesis)).to.equal('DIRECTORY_DID_EXISTS');
  });

  it('a genesis is only a genesis: an update without a DID is refused', () => {
    expect(refusal(emptyDirectory(), null, syncOp(key, { rotation_keys: [key.did] }, 'a'.repeat(64)))).to.equal('DIRECTORY_OPERATION_INVALID');
    expect(refusal(emptyDirectory(), null, revokeOp(key, 'a'.repeat(64)))).to.equal('DIRECTORY_OPERATION_INVALID');
  });
});
