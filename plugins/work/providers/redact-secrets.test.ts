import { expect } from 'chai';
import { redactSecrets } from './redact-secrets.js';

describe('redactSecrets', () => {
  const key = 'sk-proj-abcdefghijklmnop1234';
  it('removes the key wherever it appears', () => {
    expect(redactSecrets(`bad key ${key}, really ${key}`, [key])).to.equal('bad key [redacted], really [redacted]');
  });
  it("removes a masked echo (OpenAI's first three and last four)", () => {
    const text = redactSecrets('Incorrect API key provided: sk-p*******************1234. You can find your API key at https://platform.openai.com.', [key]);
    expect(text).to.equal('Incorrect API key provided: [redacted] You can find your API key at https://platform.openai.com.');
  });
  it('leaves ordinary text, and short or absent values, alone', () => {
    expect(redactSecrets('no key here', [null, undefined, 'no-key', ''])).to.equal('no key here');
  });
});
