import { expect } from 'chai';
import { providerConfigFromEnv } from './provider-config.js';

describe('providerConfigFromEnv', () => {
  it('nothing set configures nothing (not even a local Ollama nobody runs)', () => {
    expect(providerConfigFromEnv({})).to.deep.equal([]);
  });

  it('reads each vendor the way its users set it, with the vendor default base URLs', () => {
    expect(providerConfigFromEnv({ ANTHROPIC_API_KEY: 'ak', OPENAI_API_KEY: 'ok', OLLAMA_HOST: '0.0.0.0:11434' })).to.deep.equal([
      { provider: 'anthropic', apiKey: 'ak', baseUrl: 'https://api.anthropic.com' },
      { provider: 'openai', apiKey: 'ok', baseUrl: 'https://api.openai.com/v1' },
      { provider: 'ollama', host: '0.0.0.0:11434' },
    ]);
  });

  it('takes the base URLs when set', () => {
    const configs = providerConfigFromEnv({ ANTHROPIC_API_KEY: 'ak', ANTHROPIC_BASE_URL: 'http://gw:8080', OPENAI_API_KEY: 'ok', OPENAI_BASE_URL: 'http://vllm:8000/v1' });
    expect(configs.map((c) => (c.provider === 'ollama' ? c.host : c.baseUrl))).to.deep.equal(['http://gw:8080', 'http://vllm:8000/v1']);
  });

  it('an OpenAI-compatible server needs only its base URL; Anthropic needs its key', () => {
    expect(providerConfigFromEnv({ OPENAI_BASE_URL: 'http://llama:8080/v1', ANTHROPIC_BASE_URL: 'http://gw' })).to.deep.equal([{ provider: 'openai', apiKey: null, baseUrl: 'http://llama:8080/v1' }]);
  });

  it('blank values count as unset', () => {
    expect(providerConfigFromEnv({ ANTHROPIC_API_KEY: '  ', OPENAI_API_KEY: '', OLLAMA_HOST: ' ' })).to.deep.equal([]);
  });
});
