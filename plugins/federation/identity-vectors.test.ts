/**
 * The instance key, its did:key and Ed25519 signing against externally
 * authored vectors (plugins/federation/vectors): RFC 8032 §7.1 known answers
 * (tweetnacl derives the key, OpenSSL signs: both must give the RFC's bytes),
 * every Wycheproof EdDSA verification case through the verifier the feed and
 * transfers use, and the W3C CCG did:key vectors.
 */
import { expect } from 'chai';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { base58 } from '@scure/base';
import nacl from 'tweetnacl';
import { didKeyFromPublicKey, publicKeyFromDidKey } from './did-key.js';
import { verifyEd25519Fast } from './ed25519.js';
import { InstanceKey } from './instance-key.js';

function vectorsDir(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = join(dir, 'plugins', 'federation', 'vectors');
    if (existsSync(join(dir, 'package.json')) && existsSync(candidate)) return candidate;
    const parent = dirname(dir);
    if (parent === dir) throw new Error('plugins/federation/vectors not found');
    dir = parent;
  }
}
const read = (path: string) => JSON.parse(readFileSync(join(vectorsDir(), path), 'utf8'));
const hex = (text: string) => Uint8Array.from(Buffer.from(text, 'hex'));

describe('federation identity against conformance vectors', () => {
  it('RFC 8032 §7.1: the seed derives the public key, and signing reproduces the signature byte for byte', () => {
    const cases = read('ed25519/rfc8032-section7.1-ed25519.json') as Array<{ name: string; secretKey: string; publicKey: string; message: string; signature: string }>;
    expect(cases).to.have.length(5);
    for (const c of cases) {
      const key = InstanceKey.fromSeed(hex(c.secretKey));
      expect(Buffer.from(key.publicKey).toString('hex'), c.name).to.equal(c.publicKey);
      expect(Buffer.from(key.sign(hex(c.message))).toString('hex'), c.name).to.equal(c.signature);
      expect(Buffer.from(nacl.sign.detached(hex(c.message), nacl.sign.keyPair.fromSeed(hex(c.secretKey)).secretKey)).toString('hex'), c.name).to.equal(c.signature);
      expect(verifyEd25519Fast(key.publicKey, hex(c.message), hex(c.signature)), c.name).to.equal(true);
    }
  });

  it('Wycheproof: every valid case verifies and every invalid case is refused', () => {
    const suite = read('ed25519/ed25519_test.json') as { numberOfTests: number; testGroups: Array<{ publicKey: { pk: string }; tests: Array<{ tcId: number; msg: string; sig: string; result: string }> }> };
    let valid = 0;
    let invalid = 0;
    for (const group of suite.testGroups) {
      for (const test of group.tests) {
        const verdict = verifyEd25519Fast(hex(group.publicKey.pk), hex(test.msg), hex(test.sig));
        expect(verdict, `tcId ${test.tcId} (${test.result})`).to.equal(test.result === 'valid');
        if (test.result === 'valid') valid++;
        else invalid++;
      }
    }
    expect(valid + invalid).to.equal(suite.numberOfTests);
    expect(valid).to.be.above(0);
    expect(invalid).to.be.above(0);
  });

  it('W3C CCG did:key: each seed gives the DID, and the DID gives back the public key', () => {
    const vectors = read('did-key/ed25519-x25519.json') as Record<string, { seed: string; verificationKeyPair: { publicKeyBase58?: string; publicKeyJwk?: { x: string } } }>;
    const dids = Object.keys(vectors);
    expect(dids).to.have.length(5);
    for (const did of dids) {
      const { seed, verificationKeyPair } = vectors[did]!;
      const key = InstanceKey.fromSeed(hex(seed));
      expect(key.did).to.equal(did);
      expect(didKeyFromPublicKey(key.publicKey)).to.equal(did);
      const expected = verificationKeyPair.publicKeyBase58 !== undefined ? base58.decode(verificationKeyPair.publicKeyBase58) : Buffer.from(verificationKeyPair.publicKeyJwk!.x, 'base64url');
      expect(Buffer.from(publicKeyFromDidKey(did)!).equals(Buffer.from(expected))).to.equal(true);
    }
  });

  it('refuses what is not an Ed25519 did:key, and never shows the seed', () => {
    for (const bad of ['did:key:zQ3shokFTS3brHcDQrn82RUDfCZESWL1ZdCEJwekUDPQiYBme', 'did:web:example.com', 'did:key:z6Mk', 'did:key:z0OIl', '']) expect(publicKeyFromDidKey(bad), bad).to.equal(null);
    const seed = 'ab'.repeat(32);
    const key = InstanceKey.fromSeed(hex(seed));
    expect(JSON.stringify(key)).to.not.include(seed);
    expect(String(key)).to.not.include(seed);
    expect(JSON.stringify({ key })).to.equal(JSON.stringify({ key: { did: key.did } }));
  });
});
