import { expect } from 'chai';
import { InstanceKey } from './instance-key.js';
import { PairSecretBox } from './pair-secret-box.js';

describe('PairSecretBox', () => {
  const key = InstanceKey.fromSeed(new Uint8Array(32).fill(7));
  const box = new PairSecretBox(key.deriveKey('federation.pair-secret'));

  it('seals a token that only the same instance key opens, for the same pair, and never shows it', () => {
    const sealed = box.seal('sp_1', 'peer-bearer-secret');
    expect(sealed).to.not.include('peer-bearer-secret');
    expect(box.seal('sp_1', 'peer-bearer-secret')).to.not.equal(sealed);
    expect(new PairSecretBox(InstanceKey.fromSeed(new Uint8Array(32).fill(7)).deriveKey('federation.pair-secret')).open('sp_1', sealed)).to.equal('peer-bearer-secret');
    expect(box.open('sp_2', sealed), 'another pair').to.equal(null);
    expect(new PairSecretBox(InstanceKey.fromSeed(new Uint8Array(32).fill(8)).deriveKey('federation.pair-secret')).open('sp_1', sealed), 'another instance key').to.equal(null);
    expect(new PairSecretBox(key.deriveKey('another purpose')).open('sp_1', sealed), 'another purpose').to.equal(null);
    const parts = sealed.split('.');
    parts[2] = Buffer.from('x').toString('base64url') + parts[2]!.slice(2);
    expect(box.open('sp_1', parts.join('.')), 'tampered').to.equal(null);
    expect(box.open('sp_1', 'not sealed')).to.equal(null);
  });
});
