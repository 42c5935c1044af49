import { expect } from 'chai';
import { createModelProviders } from './model-providers.js';

describe('createModelProviders', () => {
  it('answers the configured providers by name, each wrapped in the retry policy', () => {
    const providers = createModelProviders([{ provider: 'ollama', host: '127.0.0.1:11434' }, { provider: 'openai', apiKey: null, baseUrl: 'http://x/v1' }]);
    expect(providers.names()).to.deep.equal(['ollama', 'openai']);
    expect(providers.get('openai')?.provider).to.equal('openai');
    expect(providers.get('anthropic')).to.equal(undefined);
  });

  it('refuses a provider configured twice', () => {
    expect(() => createModelProviders([{ provider: 'ollama', host: 'a' }, { provider: 'ollama', host: 'b' }])).to.throw(/configured twice/);
  });
});
