/**
 * How each adapter is configured: one plain object per provider, passed in
 * explicitly. The adapters read no environment; `providerConfigFromEnv`
 * reads the variables each vendor's own users already set
 * (`ANTHROPIC_API_KEY` / `ANTHROPIC_BASE_URL`, `OPENAI_API_KEY` /
 * `OPENAI_BASE_URL`, `OLLAMA_HOST`) from the environment it is given.
 */
import type { ProviderName } from './provider-name.js';

/** No byte from the provider for this long fails the call as `stream_stalled` (and it is retried). */
export const DEFAULT_IDLE_TIMEOUT_MS = 300_000;

interface CommonConfig {
  /** Idle timeout of a call (ms): no byte for this long, before or after the headers, fails it. @default 300000 */
  readonly idleTimeoutMs?: number;
}

export interface AnthropicConfig extends CommonConfig {
  readonly provider: 'anthropic';
  /** Sent as `x-api-key`. */
  readonly apiKey: string;
  /** The API root, without `/v1`. @default "https://api.anthropic.com" */
  readonly baseUrl: string;
}

export interface OpenAIConfig extends CommonConfig {
  readonly provider: 'openai';
  /** Sent as `Authorization: Bearer`; null for an OpenAI-compatible server that takes none (no header is sent). */
  readonly apiKey: string | null;
  /** The API root, with `/v1`. @default "https://api.openai.com/v1" */
  readonly baseUrl: string;
  /**
   * The output ceiling's field: OpenAI's current `max_completion_tokens`, or
   * the legacy `max_tokens` that some OpenAI-compatible servers still want.
   * @default "max_completion_tokens"
   */
  readonly maxTokensField?: 'max_completion_tokens' | 'max_tokens';
}

export interface OllamaConfig extends CommonConfig {
  readonly provider: 'ollama';
  /** As `OLLAMA_HOST` is written: `host:port`, a URL, or `:port`. @default "http://127.0.0.1:11434" */
  readonly host: string;
}

export type ProviderConfig = AnthropicConfig | OpenAIConfig | OllamaConfig;

export const DEFAULT_BASE_URLS: Readonly<Record<ProviderName, string>> = {
  anthropic: 'https://api.anthropic.com',
  openai: 'https://api.openai.com/v1',
  ollama: 'http://127.0.0.1:11434',
};

/**
 * The providers the environment configures, in a fixed order. Anthropic
 * needs its key; OpenAI its key or a base URL (an OpenAI-compatible server
 * such as vLLM or llama.cpp may take no key); Ollama is configured only by
 * `OLLAMA_HOST`, so an instance with nothing set has no provider at all
 * (WORK_NO_PROVIDER) rather than one that fails on a daemon nobody runs.
 */
export function providerConfigFromEnv(env: Readonly<Record<string, string | undefined>>): ProviderConfig[] {
  const read = (name: string): string | null => {
    const value = env[name]?.trim();
    return value ? value : null;
  };
  const configs: ProviderConfig[] = [];
  const anthropicKey = read('ANTHROPIC_API_KEY');
  if (anthropicKey) configs.push({ provider: 'anthropic', apiKey: anthropicKey, baseUrl: read('ANTHROPIC_BASE_URL') ?? DEFAULT_BASE_URLS.anthropic });
  const openaiKey = read('OPENAI_API_KEY');
  const openaiBase = read('OPENAI_BASE_URL');
  if (openaiKey || openaiBase) configs.push({ provider: 'openai', apiKey: openaiKey, baseUrl: openaiBase ?? DEFAULT_BASE_URLS.openai });
  const ollamaHost = read('OLLAMA_HOST');
  if (ollamaHost) configs.push({ provider: 'ollama', host: ollamaHost });
  return configs;
}
