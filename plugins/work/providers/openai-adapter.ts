/**
 * OpenAI Chat Completions through the `openai` package, also for
 * OpenAI-compatible servers (vLLM, llama.cpp, Ollama's /v1): one streamed
 * `chat.completions.create` per call, added up by OpenAITurn. The client is
 * built per call around the call's guard, with what it would otherwise read
 * from the environment (base URL, key, admin key, organization, project,
 * webhook secret) passed explicitly, its retries and logging off. Without a key no
 * Authorization header is sent at all: the SDK insists on a key, so it gets
 * a placeholder and the header is suppressed.
 */
import OpenAI from 'openai';
import { CallGuard } from './call-guard.js';
import type { ModelRequest } from './model-request.js';
import type { ModelTurn } from './model-turn.js';
import { openaiParams } from './openai-request.js';
import { OpenAITurn } from './openai-turn.js';
import type { CompleteOptions, ProviderAdapter } from './provider-adapter.js';
import { DEFAULT_IDLE_TIMEOUT_MS, type OpenAIConfig } from './provider-config.js';
import { fromStainlessError } from './stainless-error.js';

const SDK = { APIError: OpenAI.APIError, SdkError: OpenAI.OpenAIError };

export class OpenAIAdapter implements ProviderAdapter {
  readonly provider = 'openai' as const;

  constructor(private readonly config: OpenAIConfig) {}

  async complete(request: ModelRequest, options: CompleteOptions): Promise<ModelTurn> {
    const guard = new CallGuard('openai', options.signal, { idleTimeoutMs: this.config.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS });
    let completed = false;
    try {
      const client = new OpenAI({
        apiKey: this.config.apiKey ?? 'no-key',
        baseURL: this.config.baseUrl,
        adminAPIKey: null,
        organization: null,
        project: null,
        webhookSecret: null,
        maxRetries: 0,
        logLevel: 'off',
        fetch: guard.fetch,
        ...(this.config.apiKey === null ? { defaultHeaders: { authorization: null } } : {}),
      });
      const params = openaiParams(request, this.config.maxTokensField);
      const { data: stream, request_id } = await client.chat.completions.create(params, { signal: guard.signal }).withResponse();
      const turn = new OpenAITurn();
      for await (const chunk of stream) turn.add(chunk, options.onDelta);
      const failure = guard.failure();
      if (failure) throw failure;
      const result = turn.finish(request_id ?? null);
      completed = true;
      return result;
    } catch (error) {
      throw guard.failure() ?? fromStainlessError('openai', error, SDK, [this.config.apiKey]);
    } finally {
      guard.release(completed);
    }
  }
}
