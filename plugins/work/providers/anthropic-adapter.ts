/**
 * The Anthropic Messages API through `@anthropic-ai/sdk`: one streamed
 * `messages.create` per call, added up by AnthropicTurn. The client is built
 * per call (about 12 µs) around the call's guard, with everything it would
 * otherwise read from the environment passed explicitly, its own retries off
 * and its logging off. The key goes as `x-api-key`, the header the API
 * reference and every Anthropic-compatible gateway document; SDK 1.14 on its
 * own would send it as a Bearer token, so that header is suppressed.
 */
import Anthropic from '@anthropic-ai/sdk';
import { anthropicParams } from './anthropic-request.js';
import { AnthropicTurn } from './anthropic-turn.js';
import { CallGuard } from './call-guard.js';
import type { ModelRequest } from './model-request.js';
import type { ModelTurn } from './model-turn.js';
import type { CompleteOptions, ProviderAdapter } from './provider-adapter.js';
import { DEFAULT_IDLE_TIMEOUT_MS, type AnthropicConfig } from './provider-config.js';
import { fromStainlessError } from './stainless-error.js';

const SDK = { APIError: Anthropic.APIError, SdkError: Anthropic.AnthropicError };

export class AnthropicAdapter implements ProviderAdapter {
  readonly provider = 'anthropic' as const;

  constructor(private readonly config: AnthropicConfig) {}

  async complete(request: ModelRequest, options: CompleteOptions): Promise<ModelTurn> {
    const guard = new CallGuard('anthropic', options.signal, { idleTimeoutMs: this.config.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS });
    let completed = false;
    try {
      const client = new Anthropic({
        apiKey: this.config.apiKey,
        baseURL: this.config.baseUrl,
        webhookKey: null,
        maxRetries: 0,
        logLevel: 'off',
        fetch: guard.fetch,
        defaultHeaders: { 'x-api-key': this.config.apiKey, authorization: null },
      });
      const { data: stream, request_id } = await client.messages.create(anthropicParams(request), { signal: guard.signal }).withResponse();
      const turn = new AnthropicTurn();
      for await (const event of stream) turn.add(event, options.onDelta);
      // The SDK ends an aborted stream quietly, so the guard is asked before the turn is trusted.
      const failure = guard.failure();
      if (failure) throw failure;
      const result = turn.finish(request_id ?? null);
      completed = true;
      return result;
    } catch (error) {
      throw guard.failure() ?? fromStainlessError('anthropic', error, SDK, [this.config.apiKey]);
    } finally {
      guard.release(completed);
    }
  }
}
