import { expect } from 'chai';
import { canonicalJson } from '../../../core/records/canonical-json.js';
import { nobleSha256Hex } from '../../../core/records/sha256.js';
import { InstanceKey, verifyCanonical } from '../../federation/index.js';
import type { Blueprint } from './blueprint-format.js';
import { checkSignature, signBlueprint, signedContent, sourceHash } from './blueprint-signature.js';

const key = InstanceKey.fromSeed(new Uint8Array(32).fill(7));
const other = InstanceKey.fromSeed(new Uint8Array(32).fill(9));
const blueprint: Blueprint = {
  blueprint_version: 1,
  name: 'team',
  prompts: { p: 'words' },
  actors: [{ label: 'A', prompt: 'p', work_loop: { model: 'gpt-5', tools: ['t'] } }],
};

describe('blueprint signatures', () => {
  it('signs the canonical blueprint without its signature, verifiable with federation’s verifyCanonical', () => {
    const signed = signBlueprint(key, blueprint);
    expect(signed.signature).to.include({ alg: 'Ed25519', signer: key.did });
    expect(signed.signature!.value).to.match(/^[A-Za-z0-9+/]{86}==$/);
    expect(verifyCanonical(key.did, blueprint, signed.signature!.value)).to.equal(true);
    expect(checkSignature(signed)).to.deep.equal({ state: 'valid', signer: key.did });
    // Ed25519 is deterministic: the same content signs to the same bytes; re-signing replaces the old signature.
    expect(signBlueprint(key, signed)).to.deep.equal(signed);
  });

  it('verifies whatever the member order (canonical JSON), and the source hash ignores the signature', () => {
    const signed = signBlueprint(key, blueprint);
    const reordered = JSON.parse(JSON.stringify({ signature: signed.signature, actors: signed.actors, prompts: signed.prompts, name: signed.name, blueprint_version: 1 })) as Blueprint;
    expect(checkSignature(reordered).state).to.equal('valid');
    expect(sourceHash(signed)).to.equal(sourceHash(blueprint));
    expect(sourceHash(blueprint)).to.equal(nobleSha256Hex(canonicalJson(blueprint)));
    expect(signedContent(signed)).to.deep.equal(blueprint);
  });

  it('finds tampering, another key’s signature and malformed signatures invalid, never throwing', () => {
    const signed = signBlueprint(key, blueprint);
    expect(checkSignature(blueprint)).to.deep.equal({ state: 'unsigned' });
    expect(checkSignature({ ...signed, name: 'team2' })).to.deep.equal({ state: 'invalid', signer: key.did });
    expect(checkSignature({ ...signed, actors: [{ ...signed.actors[0]!, work_loop: { model: 'gpt-5', tools: ['t', 'u'] } }] }).state).to.equal('invalid');
    expect(checkSignature({ ...signed, signature: { ...signed.signature!, signer: other.did } }).state).to.equal('invalid');
    expect(checkSignature({ ...signed, signature: { ...signed.signature!, signer: 'did:web:example.com' } }).state).to.equal('invalid');
    expect(checkSignature({ ...signed, signature: { ...signed.signature!, value: 'not base64' } }).state).to.equal('invalid');
    expect(checkSignature({ ...signed, signature: { ...signed.signature!, alg: 'RS256' as 'Ed25519' } }).state).to.equal('invalid');
  });
});
