/** The vendors Loom has adapters for; the models catalog names a model's provider with these. */
export type ProviderName = 'anthropic' | 'openai' | 'ollama';

export const PROVIDER_NAMES: readonly ProviderName[] = ['anthropic', 'openai', 'ollama'];
