/**
 * The `work_providers` configuration topic: per instance, which providers
 * run members and where, keyed by provider. An entry names the API root and
 * the environment variable that holds the key (never the key: a record is
 * forever and replicated, a key is not). Entries override what the
 * environment alone configures (providers/provider-config.ts); an entry
 * with `enabled: false` turns a provider off.
 */
import { Type } from 'typebox';
import { defineConfigTopic, type Config } from '../../core/folds/config/config-topic.js';
import { DEFAULT_BASE_URLS, providerConfigFromEnv, type ProviderConfig } from './providers/index.js';

export const workProvidersTopic = defineConfigTopic({
  topic: 'work_providers',
  description:
    'Model providers of the work loop, keyed by provider (anthropic, openai, ollama): base_url (ollama: the host), api_key_env (the environment variable holding the key; never the key), enabled (false turns it off). Overrides the ANTHROPIC_*, OPENAI_* and OLLAMA_HOST variables.',
  schema: Type.Object(
    {
      provider: Type.Union([Type.Literal('anthropic'), Type.Literal('openai'), Type.Literal('ollama')]),
      base_url: Type.Optional(Type.String({ minLength: 1, maxLength: 500 })),
      api_key_env: Type.Optional(Type.String({ minLength: 1, maxLength: 100, pattern: '^[A-Za-z_][A-Za-z0-9_]*$' })),
      enabled: Type.Optional(Type.Boolean()),
    },
    { additionalProperties: false },
  ),
  keyedBy: 'provider',
});

/** The providers the environment and the topic configure together. */
export function configuredProviders(env: Readonly<Record<string, string | undefined>>, config: Config): ProviderConfig[] {
  const byName = new Map(providerConfigFromEnv(env).map((entry) => [entry.provider, entry] as const));
  for (const [name, entry] of Object.entries(config.keyed(workProvidersTopic))) {
    if (entry.enabled === false) {
      byName.delete(entry.provider);
      continue;
    }
    const key = entry.api_key_env ? env[entry.api_key_env]?.trim() || null : null;
    const previous = byName.get(entry.provider);
    if (entry.provider === 'anthropic') {
      const apiKey = key ?? (previous?.provider === 'anthropic' ? previous.apiKey : null);
      if (!apiKey) continue;
      byName.set('anthropic', { provider: 'anthropic', apiKey, baseUrl: entry.base_url ?? (previous?.provider === 'anthropic' ? previous.baseUrl : DEFAULT_BASE_URLS.anthropic) });
    } else if (entry.provider === 'openai') {
      byName.set('openai', { provider: 'openai', apiKey: key ?? (previous?.provider === 'openai' ? previous.apiKey : null), baseUrl: entry.base_url ?? (previous?.provider === 'openai' ? previous.baseUrl : DEFAULT_BASE_URLS.openai) });
    } else {
      byName.set('ollama', { provider: 'ollama', host: entry.base_url ?? (previous?.provider === 'ollama' ? previous.host : DEFAULT_BASE_URLS.ollama) });
    }
    void name;
  }
  return [...byName.values()];
}
