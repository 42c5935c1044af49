/**
 * The adapter for a configuration: one attempt per call, as each vendor's
 * official client makes it. Wrap it in `withRetries` for Loom's policy.
 */
import { AnthropicAdapter } from './anthropic-adapter.js';
import { OllamaAdapter } from './ollama-adapter.js';
import { OpenAIAdapter } from './openai-adapter.js';
import type { ProviderAdapter } from './provider-adapter.js';
import type { ProviderConfig } from './provider-config.js';

export function createProviderAdapter(config: ProviderConfig): ProviderAdapter {
  switch (config.provider) {
    case 'anthropic':
      return new AnthropicAdapter(config);
    case 'openai':
      return new OpenAIAdapter(config);
    case 'ollama':
      return new OllamaAdapter(config);
  }
}
