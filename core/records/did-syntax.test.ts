import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { DID_MAX_LENGTH, DID_SYNC_KINDS, didSyntaxError, isValidDid, SUPPORTED_DID_METHODS, syncDid } from './did-syntax.js';
import { vectorsPath } from './fixtures/vectors-path.js';

interface DidDocument {
  id: string;
  verificationMethod: Array<{ id: string; controller: string; publicKeyMultibase?: string }>;
}

const CCG: Record<string, { didDocument: DidDocument }> = JSON.parse(
  readFileSync(vectorsPath('03-did-key', 'w3c-ccg-did-method-key', 'ed25519-x25519.json'), 'utf8'),
);
const SPEC_EXAMPLES_DIR = vectorsPath('03-did-key', 'spec-examples');
const SPEC_EXAMPLES: DidDocument[] = readdirSync(SPEC_EXAMPLES_DIR)
  .filter((name) => name.endsWith('.json'))
  .sort()
  .map((name) => JSON.parse(readFileSync(join(SPEC_EXAMPLES_DIR, name), 'utf8')));

const VECTOR_DIDS = [...new Set([...Object.keys(CCG), ...SPEC_EXAMPLES.map((doc) => doc.id)])];

describe('DID syntax', () => {
  describe('did:key vectors (vectors/03-did-key)', () => {
    it('has the 5 CCG DIDs and the spec example', () => {
      expect(Object.keys(CCG)).to.have.length(5);
      expect(SPEC_EXAMPLES).to.have.length(2);
      expect(VECTOR_DIDS).to.have.length(6);
    });

    for (const did of VECTOR_DIDS) {
      it(`accepts ${did}`, () => {
        expect(didSyntaxError(did)).to.equal(null);
        expect(isValidDid(did)).to.equal(true);
      });
    }

    it('accepts every verification method controller and every key as a did:key', () => {
      const docs = [...Object.values(CCG).map((entry) => entry.didDocument), ...SPEC_EXAMPLES];
      for (const doc of docs) {
        for (const method of doc.verificationMethod) {
          expect(isValidDid(method.controller), method.controller).to.equal(true);
          const fragment = method.id.split('#')[1]!;
          expect(isValidDid(`did:key:${fragment}`), fragment).to.equal(true);
        }
      }
    });

    it('refuses a DID URL (with a #fragment) as a DID', () => {
      for (const doc of SPEC_EXAMPLES) {
        for (const method of doc.verificationMethod) expect(isValidDid(method.id), method.id).to.equal(false);
      }
    });
  });

  describe('did:key', () => {
    const bad = [
      'did:key:6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK', // no multibase prefix
      'did:key:u7QGaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK', // base64url multibase, not base58btc
      'did:key:z0OIl0OIl0OIl', // characters outside the base58 alphabet
      'did:key:z6Mk', // too short
      'did:key:',
    ];
    for (const did of bad) it(`refuses ${did}`, () => expect(didSyntaxError(did)).to.be.a('string'));
  });

  describe('did:web', () => {
    const good = [
      'did:web:example.com',
      'did:web:w3c-ccg.github.io',
      'did:web:w3c-ccg.github.io:user:alice',
      'did:web:localhost%3A8443',
      'did:web:example.com%3a3000:user:alice',
      'did:web:example.com:path%20with%20space',
    ];
    for (const did of good) it(`accepts ${did}`, () => expect(didSyntaxError(did)).to.equal(null));
    const bad = [
      'did:web:',
      'did:web:-example.com',
      'did:web:example-.com',
      'did:web:exa_mple.com',
      'did:web:example.com:',
      'did:web:example.com%3Ahttp', // a %3A-encoded port must be digits
    ];
    for (const did of bad) it(`refuses ${JSON.stringify(did)}`, () => expect(didSyntaxError(did)).to.be.a('string'));
  });

  describe('did:sync', () => {
    for (const kind of DID_SYNC_KINDS) {
      it(`accepts did:sync:${kind}:<name>`, () => {
        expect(didSyntaxError(`did:sync:${kind}:alice`)).to.equal(null);
        expect(didSyntaxError(`did:sync:${kind}:code-reviewer.v2_1`)).to.equal(null);
      });
    }
    it('accepts the directory form did:sync:<hash>', () => {
      expect(didSyntaxError('did:sync:' + 'ab'.repeat(32))).to.equal(null);
    });
    const bad = [
      'did:sync:',
      'did:sync:robot:alice',
      'did:sync:User:alice',
      'did:sync:user:',
      'did:sync:user:a:b',
      'did:sync:user:al ice',
      'did:sync:user:alice/x',
    ];
    for (const did of bad) it(`refuses ${JSON.stringify(did)}`, () => expect(didSyntaxError(did)).to.be.a('string'));
  });

  describe('generic rules', () => {
    it('supports exactly key, web and sync', () => {
      expect([...SUPPORTED_DID_METHODS]).to.deep.equal(['key', 'web', 'sync']);
    });
    const bad: Array<[string, unknown]> = [
      ['an unsupported method', 'did:example:123456789abcdefghi'],
      ['did:plc', 'did:plc:ewvi7nxzyoun6zhxrhs64oiz'],
      ['an uppercase method', 'did:WEB:example.com'],
      ['an uppercase scheme', 'DID:web:example.com'],
      ['the empty string', ''],
      ['a leading space', ' did:web:example.com'],
      ['a trailing space', 'did:web:example.com '],
      ['an inner space', 'did:web:exa mple.com'],
      ['a trailing newline', 'did:web:example.com\n'],
      ['a query', 'did:web:example.com?service=x'],
      ['a bad percent escape', 'did:sync:user:al%2'],
      ['a non-string', 42],
      ['null', null],
      [`more than ${DID_MAX_LENGTH} characters`, 'did:sync:' + 'a'.repeat(DID_MAX_LENGTH)],
    ];
    for (const [what, value] of bad) {
      it(`refuses ${what}`, () => {
        expect(didSyntaxError(value)).to.be.a('string');
        expect(isValidDid(value)).to.equal(false);
      });
    }
    it(`accepts exactly ${DID_MAX_LENGTH} characters`, () => {
      const did = 'did:sync:' + 'a'.repeat(DID_MAX_LENGTH - 'did:sync:'.length);
      expect(did).to.have.length(DID_MAX_LENGTH);
      expect(didSyntaxError(did)).to.equal(null);
    });
  });

  describe('syncDid', () => {
    it('builds did:sync:<kind>:<name>', () => {
      expect(syncDid('user', 'alice')).to.equal('did:sync:user:alice');
      expect(syncDid('agent', 'builder')).to.equal('did:sync:agent:builder');
      expect(syncDid('system', 'reconcile')).to.equal('did:sync:system:reconcile');
    });
    it('refuses a name that would not be one valid segment', () => {
      for (const name of ['', 'a b', 'a:b', 'ünï']) expect(() => syncDid('user', name), name).to.throw(TypeError);
    });
  });
});
