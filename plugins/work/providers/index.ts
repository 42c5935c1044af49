/**
 * The model providers of the work loop: one normalized contract
 * (ModelRequest in, a streamed ModelTurn out, ProviderError on failure),
 * adapters for the Anthropic Messages API, OpenAI Chat Completions (and
 * OpenAI-compatible servers) and Ollama's /api/chat built on each vendor's
 * official client, Loom's retry policy, and the configuration read from the
 * variables each vendor's users already set.
 */
export type { ModelRequest, RequestOptions, ToolChoice, ChatMessage, UserMessage, AssistantMessage, ToolResultsMessage, ToolSpec, ToolCall, ToolResult } from './model-request.js';
export type { ModelTurn, ModelDelta, StopReason, TokenUsage } from './model-turn.js';
export type { ProviderAdapter, CompleteOptions, RetryNotice } from './provider-adapter.js';
export { PROVIDER_NAMES, type ProviderName } from './provider-name.js';
export { ProviderError, type LoomProviderErrorType, type ProviderErrorDetails } from './provider-error.js';
export { DEFAULT_RETRY_POLICY, isRetryable, retryDelayMs, type RetryPolicy } from './retry-policy.js';
export { withRetries } from './retrying-adapter.js';
export { DEFAULT_BASE_URLS, DEFAULT_IDLE_TIMEOUT_MS, providerConfigFromEnv, type ProviderConfig, type AnthropicConfig, type OpenAIConfig, type OllamaConfig } from './provider-config.js';
export { createProviderAdapter } from './create-provider-adapter.js';
export { ModelProviders, createModelProviders } from './model-providers.js';
export { redactSecrets } from './redact-secrets.js';
