import { expect } from 'chai';
import type { Config } from '../../core/folds/config/config-topic.js';
import { configuredProviders } from './provider-topic.js';

/** A Config answering the work_providers entries given. */
function config(entries: Record<string, Record<string, unknown>>): Config {
  return { keyed: () => entries } as unknown as Config;
}

describe('work_providers: the topic over the environment', () => {
  it('the environment alone configures what its variables name', () => {
    const configs = configuredProviders({ ANTHROPIC_API_KEY: 'sk-ant-1', OLLAMA_HOST: '127.0.0.1:11434' }, config({}));
    expect(configs.map((c) => c.provider)).to.deep.equal(['anthropic', 'ollama']);
  });

  it('an entry names the variable holding the key (never the key) and the API root', () => {
    const configs = configuredProviders({ TEAM_OPENAI_KEY: 'sk-team' }, config({ openai: { provider: 'openai', api_key_env: 'TEAM_OPENAI_KEY', base_url: 'http://127.0.0.1:8000/v1' } }));
    expect(configs).to.deep.equal([{ provider: 'openai', apiKey: 'sk-team', baseUrl: 'http://127.0.0.1:8000/v1' }]);
  });

  it('an Anthropic entry whose variable is unset configures nothing; enabled false turns a provider off', () => {
    const env = { OPENAI_API_KEY: 'sk-1' };
    const configs = configuredProviders(env, config({ anthropic: { provider: 'anthropic', api_key_env: 'MISSING_KEY' }, openai: { provider: 'openai', enabled: false } }));
    expect(configs).to.deep.equal([]);
  });

  it('an Ollama entry sets the host; the environment key of an entry without api_key_env stays', () => {
    const configs = configuredProviders({ ANTHROPIC_API_KEY: 'sk-ant-1' }, config({ ollama: { provider: 'ollama', base_url: 'http://10.0.0.5:11434' }, anthropic: { provider: 'anthropic', base_url: 'http://127.0.0.1:9999' } }));
    expect(configs).to.deep.include({ provider: 'ollama', host: 'http://10.0.0.5:11434' });
    expect(configs).to.deep.include({ provider: 'anthropic', apiKey: 'sk-ant-1', baseUrl: 'http://127.0.0.1:9999' });
  });
});
