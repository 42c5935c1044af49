import { expect } from 'chai';
import type { ModelRequest } from './model-request.js';
import type { ModelTurn } from './model-turn.js';
import type { CompleteOptions, ProviderAdapter, RetryNotice } from './provider-adapter.js';
import { ProviderError } from './provider-error.js';
import { withRetries } from './retrying-adapter.js';

const REQUEST: ModelRequest = { model: 'm', system: null, messages: [{ role: 'user', text: 'hi' }], tools: [], maxTokens: 10 };
const TURN: ModelTurn = { text: 'ok', toolCalls: [], stopReason: 'end_turn', rawStopReason: 'end_turn', usage: null, model: 'm', requestId: null };
const policy = { maxAttempts: 3, baseDelayMs: 1, maxDelayMs: 2, maxRetryAfterMs: 1_000 };

/** An adapter that fails with the given errors, in order, then answers. */
function scripted(errors: ProviderError[]): ProviderAdapter & { calls: number } {
  const adapter = {
    provider: 'openai' as const,
    calls: 0,
    async complete(_request: ModelRequest, _options: CompleteOptions) {
      const error = errors[adapter.calls++];
      if (error) throw error;
      return TURN;
    },
  };
  return adapter;
}

describe('withRetries', () => {
  it('retries retryable failures, telling onRetry each time, then answers', async () => {
    const inner = scripted([new ProviderError('openai', 'server_error', 'x', { status: 500 }), new ProviderError('openai', 'connection_error', 'y')]);
    const notices: RetryNotice[] = [];
    const turn = await withRetries(inner, policy).complete(REQUEST, { signal: new AbortController().signal, onRetry: (n) => notices.push(n) });
    expect(turn).to.equal(TURN);
    expect(inner.calls).to.equal(3);
    expect(notices.map((n) => [n.attempt, n.error.type])).to.deep.equal([[1, 'server_error'], [2, 'connection_error']]);
  });

  it('gives up after maxAttempts with the last error', async () => {
    const inner = scripted([1, 2, 3].map((n) => new ProviderError('openai', 'server_error', `failure ${n}`, { status: 500 })));
    const error = await withRetries(inner, policy).complete(REQUEST, { signal: new AbortController().signal }).then(() => null, (e: unknown) => e);
    expect(error).to.include({ message: 'failure 3' });
    expect(inner.calls).to.equal(3);
  });

  it('does not retry a refusal', async () => {
    const inner = scripted([new ProviderError('openai', 'invalid_request_error', 'bad', { status: 400 })]);
    const error = await withRetries(inner, policy).complete(REQUEST, { signal: new AbortController().signal }).then(() => null, (e: unknown) => e);
    expect(error).to.include({ status: 400 });
    expect(inner.calls).to.equal(1);
  });

  it('an abort while waiting out a retry-after ends the call at once as aborted', async () => {
    const inner = scripted([new ProviderError('openai', 'rate_limit_error', 'wait', { status: 429, retryAfterMs: 900 })]);
    const controller = new AbortController();
    const started = Date.now();
    const pending = withRetries(inner, policy).complete(REQUEST, { signal: controller.signal, onRetry: () => setTimeout(() => controller.abort(), 10) });
    const error = await pending.then(() => null, (e: unknown) => e);
    expect(error).to.be.instanceOf(ProviderError);
    expect(error).to.include({ type: 'aborted' });
    expect(Date.now() - started).to.be.below(400);
    expect(inner.calls).to.equal(1);
  });

  it('after an abort nothing is retried, even a retryable error', async () => {
    const controller = new AbortController();
    const inner = {
      provider: 'anthropic' as const,
      calls: 0,
      async complete() {
        inner.calls++;
        controller.abort();
        throw new ProviderError('anthropic', 'connection_error', 'reset as we aborted');
      },
    };
    const error = await withRetries(inner, policy).complete(REQUEST, { signal: controller.signal }).then(() => null, (e: unknown) => e);
    expect(error).to.include({ type: 'aborted' });
    expect(inner.calls).to.equal(1);
  });
});
