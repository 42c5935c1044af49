import { expect } from 'chai';
import { canonicalJson } from '../../../core/records/canonical-json.js';
import { operationHash, type DirectoryOperation } from './directory-operation.js';
import { newOperationKey, revokeOp, syncOp } from './operation-signer.js';
import { didDocumentOf } from './render-did-document.js';
import { verifyOperations } from './verify-operations.js';

describe('verifyOperations: the offline verifier', () => {
  const key = newOperationKey();
  const next = newOperationKey();
  const signing = newOperationKey();
  const genesis = syncOp(key, { rotation_keys: [key.did], verification_methods: { signing: signing.did }, services: { loom: { type: 'LoomInstance', endpoint: 'https://a.example' } }, handle: 'carol.example' }, null);
  const update = syncOp(key, { rotation_keys: [next.did], verification_methods: { signing: signing.did }, services: { zeta: { type: 'X', endpoint: 'https://z.example' }, alpha: { type: 'Y', endpoint: 'http://b.example/p' } }, handle: null }, operationHash(genesis));
  const entries = (ops: DirectoryOperation[]) => ops.map((operation) => ({ hash: operationHash(operation), operation }));

  it('recomputes the identifier and renders the document byte-stably (fragments sorted, canonical JSON)', () => {
    const result = verifyOperations({ object: 'directory_operations', operations: entries([genesis, update]) });
    expect(result.ok, JSON.stringify(result.failure)).to.equal(true);
    expect(result.state).to.equal('active');
    expect(result.did).to.match(/^did:sync:[a-z2-7]{52}$/);
    const doc = JSON.parse(result.document!);
    expect(doc.service.map((s: { id: string }) => s.id)).to.deep.equal([`${result.did}#alpha`, `${result.did}#zeta`]);
    expect(doc.verificationMethod[0].publicKeyMultibase).to.equal(signing.did.slice('did:key:'.length));
    expect(doc.alsoKnownAs).to.deep.equal([]);
    expect(result.document).to.equal(canonicalJson(didDocumentOf(result.did!, update)));
    // A bare array of operations verifies the same.
    expect(verifyOperations([genesis, update]).document).to.equal(result.document);
  });

  it('a revoked log verifies with no document', () => {
    const result = verifyOperations(entries([genesis, update, revokeOp(next, operationHash(update))]));
    expect(result).to.include({ ok: true, state: 'revoked', document: null, operations: 3 });
  });

  const failures: Array<[string, () => unknown, number | null, string]> = [
    ['a reordered log', () => entries([update, genesis]), 0, 'DIRECTORY_OPERATION_INVALID'],
    ['a dropped middle operation', () => entries([genesis, revokeOp(next, operationHash(update))]), 1, 'DIRECTORY_PREV_MISMATCH'],
    ['an operation after the revoke', () => entries([genesis, revokeOp(key, operationHash(genesis)), update]), 2, 'DIRECTORY_REVOKED'],
    ['a wrong hash in the export', () => [{ hash: 'f'.repeat(64), operation: genesis }], 0, 'DIRECTORY_OPERATION_INVALID'],
    ['an update signed by a rotated-out key', () => entries([genesis, update, syncOp(key, { rotation_keys: [key.did] }, operationHash(update))]), 2, 'DIRECTORY_SIGNATURE_INVALID'],
    ['an altered field', () => entries([genesis, { ...update, handle: 'mallory' }]), 1, 'DIRECTORY_SIGNATURE_INVALID'],
    ['a claimed DID that is not the genesis', () => ({ did: 'did:sync:' + 'a'.repeat(52), operations: entries([genesis]) }), null, 'DIRECTORY_OPERATION_INVALID'],
    ['a claimed state that is not the last word', () => ({ state: 'revoked', operations: entries([genesis]) }), null, 'DIRECTORY_OPERATION_INVALID'],
    ['an empty log', () => [], null, 'DIRECTORY_OPERATION_INVALID'],
    ['not an export', () => ({ hello: 1 }), null, 'DIRECTORY_OPERATION_INVALID'],
  ];
  for (const [what, exported, index, code] of failures) {
    it(`names the failing operation: ${what}`, () => {
      const result = verifyOperations(exported());
      expect(result.ok).to.equal(false);
      expect(result.failure).to.include({ index, code });
      expect(result.document).to.equal(null);
    });
  }
});
