import { expect } from 'chai';
import { DirectoryError } from './directory-error.js';
import { didFromGenesisHash, operationHash, parseOperation, verifySignature, OPERATION_MAX_BYTES } from './directory-operation.js';
import { newOperationKey, revokeOp, signOperation, syncOp } from './operation-signer.js';

const key = newOperationKey();
const other = newOperationKey();
const genesis = syncOp(key, { rotation_keys: [key.did], verification_methods: { atproto: other.did }, services: { loom: { type: 'LoomInstance', endpoint: 'https://loom.example.com' } }, handle: 'alice.example' }, null);

function codeOf(value: unknown): string | null {
  try {
    parseOperation(value);
    return null;
  } catch (error) {
    expect(error).to.be.instanceOf(DirectoryError);
    return (error as DirectoryError).code;
  }
}

describe('directory operations: parseOperation', () => {
  it('accepts a full genesis and a revoke', () => {
    expect(parseOperation(genesis)).to.equal(genesis);
    expect(parseOperation(revokeOp(key, operationHash(genesis)))).to.have.property('type', 'sync_revoke');
  });

  const invalid: Array<[string, Record<string, unknown>]> = [
    ['an unknown type', { ...genesis, type: 'plc_operation' }],
    ['an extra field', { ...genesis, also: 1 }],
    ['a missing field (handle)', (({ handle: _h, ...rest }) => rest)(genesis)],
    ['a missing field (services)', (({ services: _s, ...rest }) => rest)(genesis)],
    ['no rotation key', { ...genesis, rotation_keys: [] }],
    ['six rotation keys', { ...genesis, rotation_keys: Array.from({ length: 6 }, () => newOperationKey().did) }],
    ['a repeated rotation key', { ...genesis, rotation_keys: [key.did, key.did] }],
    ['a rotation key that is not a did:key', { ...genesis, rotation_keys: ['did:web:example.com'] }],
    ['a did:key with a fragment', { ...genesis, rotation_keys: [`${key.did}#k`] }],
    ['rotation_keys not an array', { ...genesis, rotation_keys: key.did }],
    ['a verification method id with capitals', { ...genesis, verification_methods: { Atproto: other.did } }],
    ['a verification method that is not a key', { ...genesis, verification_methods: { atproto: 'z6Mk' } }],
    ['nine verification methods', { ...genesis, verification_methods: Object.fromEntries(Array.from({ length: 9 }, (_, i) => [`k${i}`, other.did])) }],
    ['verification_methods an array', { ...genesis, verification_methods: [other.did] }],
    ['a service with an extra field', { ...genesis, services: { loom: { type: 'LoomInstance', endpoint: 'https://a.example', priority: 1 } } }],
    ['a service without endpoint', { ...genesis, services: { loom: { type: 'LoomInstance' } } }],
    ['a service endpoint that is not http(s)', { ...genesis, services: { loom: { type: 'LoomInstance', endpoint: 'ftp://a.example' } } }],
    ['a service endpoint with a space', { ...genesis, services: { loom: { type: 'LoomInstance', endpoint: 'https://a.example/x y' } } }],
    ['a service type with a space', { ...genesis, services: { loom: { type: 'Loom Instance', endpoint: 'https://a.example' } } }],
    ['a service and a method sharing an id', { ...genesis, services: { atproto: { type: 'LoomInstance', endpoint: 'https://a.example' } } }],
    ['an upper-case handle', { ...genesis, handle: 'Alice.example' }],
    ['a handle with a leading hyphen', { ...genesis, handle: '-alice.example' }],
    ['a handle with an empty label', { ...genesis, handle: 'alice..example' }],
    ['a handle with a trailing dot', { ...genesis, handle: 'alice.' }],
    ['a handle of 101 characters', { ...genesis, handle: `${'a'.repeat(60)}.${'b'.repeat(40)}` }],
    ['a handle with a non-ASCII letter', { ...genesis, handle: 'alïce' }],
    ['an empty handle', { ...genesis, handle: '' }],
    ['a prev that is not a hash', { ...genesis, prev: 'abc' }],
    ['a prev in upper-case hex', { ...genesis, prev: 'A'.repeat(64) }],
    ['a revoke with prev null', { type: 'sync_revoke', prev: null, sig: genesis.sig }],
    ['a revoke with an extra field', { type: 'sync_revoke', prev: operationHash(genesis), sig: genesis.sig, handle: null }],
    ['not an object', [] as unknown as Record<string, unknown>],
  ];
  for (const [what, value] of invalid) {
    it(`refuses ${what}: DIRECTORY_OPERATION_INVALID`, () => expect(codeOf(value)).to.equal('DIRECTORY_OPERATION_INVALID'));
  }

  it('refuses a signature that is not canonical base64 (same bytes, other text): DIRECTORY_SIGNATURE_INVALID', () => {
    const last = genesis.sig[85]!;
    // The last character before == carries 2 bits of the signature and 4 unused ones; flipping an unused bit decodes to the same bytes.
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
    const twin = alphabet[alphabet.indexOf(last) ^ 1]!;
    const sig = `${genesis.sig.slice(0, 85)}${twin}==`;
    expect(Buffer.from(sig, 'base64').equals(Buffer.from(genesis.sig, 'base64'))).to.equal(true);
    expect(codeOf({ ...genesis, sig })).to.equal('DIRECTORY_SIGNATURE_INVALID');
    expect(codeOf({ ...genesis, sig: genesis.sig.slice(0, 80) })).to.equal('DIRECTORY_SIGNATURE_INVALID');
    expect(codeOf({ ...genesis, sig: 1 })).to.equal('DIRECTORY_SIGNATURE_INVALID');
  });

  it(`refuses an operation over ${OPERATION_MAX_BYTES} bytes: DIRECTORY_OPERATION_TOO_LARGE`, () => {
    const services = Object.fromEntries(Array.from({ length: 8 }, (_, i) => [`s${i}`, { type: 'LoomInstance', endpoint: `https://example.com/${'x'.repeat(480)}` }]));
    expect(codeOf({ ...genesis, services })).to.equal('DIRECTORY_OPERATION_TOO_LARGE');
  });

  it('the identifier is did:sync: + 52 base32 characters of the genesis hash; the hash covers the signature', () => {
    const did = didFromGenesisHash(operationHash(genesis));
    expect(did).to.match(/^did:sync:[a-z2-7]{52}$/);
    const resigned = signOperation(other, (({ sig: _s, ...rest }) => rest)(genesis));
    expect(operationHash(resigned)).to.not.equal(operationHash(genesis));
  });

  it('verifySignature names the signing rotation key and refuses any other', () => {
    expect(verifySignature(genesis, [other.did, key.did])).to.equal(1);
    expect(() => verifySignature(genesis, [other.did])).to.throw(DirectoryError).with.property('code', 'DIRECTORY_SIGNATURE_INVALID');
  });
});
