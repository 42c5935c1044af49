/**
 * The providers an instance can run members on, by name, each with Loom's
 * retry policy: what the work loop injects (ModelProviders). A member whose
 * model's provider is not here cannot run (WORK_NO_PROVIDER); nothing here
 * decides that, it only answers what is configured.
 */
import { token } from '../../../core/di/token.js';
import { createProviderAdapter } from './create-provider-adapter.js';
import type { ProviderAdapter } from './provider-adapter.js';
import type { ProviderName } from './provider-name.js';
import type { ProviderConfig } from './provider-config.js';
import { withRetries } from './retrying-adapter.js';
import { DEFAULT_RETRY_POLICY, type RetryPolicy } from './retry-policy.js';

export interface ModelProviders {
  /** The retrying adapter for a provider, or undefined when it is not configured. */
  get(provider: ProviderName): ProviderAdapter | undefined;
  /**
   * The same provider without Loom's retries: one attempt per call, for a
   * caller that retries on its own (the chat proxy's clients do, by the
   * status and retry-after the proxy relays).
   */
  single(provider: ProviderName): ProviderAdapter | undefined;
  /** The configured providers, in configuration order. */
  names(): ProviderName[];
}

export const ModelProviders = token<ModelProviders>('work.ModelProviders');

/** One adapter per provider; a second configuration of the same provider is refused, since a model names only its provider. */
export function createModelProviders(configs: readonly ProviderConfig[], policy: RetryPolicy = DEFAULT_RETRY_POLICY): ModelProviders {
  const adapters = new Map<ProviderName, ProviderAdapter>();
  const singles = new Map<ProviderName, ProviderAdapter>();
  for (const config of configs) {
    if (adapters.has(config.provider)) throw new Error(`provider ${config.provider} is configured twice`);
    const adapter = createProviderAdapter(config);
    singles.set(config.provider, adapter);
    adapters.set(config.provider, withRetries(adapter, policy));
  }
  return { get: (provider) => adapters.get(provider), single: (provider) => singles.get(provider), names: () => [...adapters.keys()] };
}
