import { expect } from 'chai';
import { ProviderError } from './provider-error.js';
import { DEFAULT_RETRY_POLICY, isRetryable, retryDelayMs, type RetryPolicy } from './retry-policy.js';

const error = (type: string, details: ConstructorParameters<typeof ProviderError>[3] = {}) => new ProviderError('anthropic', type, 'x', details);
const policy: RetryPolicy = { maxAttempts: 4, baseDelayMs: 100, maxDelayMs: 300, maxRetryAfterMs: 5_000 };
const noJitter = () => 0;

describe('retry policy', () => {
  const RETRIED: Array<[string, ProviderError]> = [
    ['429 rate limited', error('rate_limit_error', { status: 429 })],
    ['529 overloaded', error('overloaded_error', { status: 529 })],
    ['500', error('api_error', { status: 500 })],
    ['503 from OpenAI', error('server_error', { status: 503 })],
    ['408', error('http_error', { status: 408 })],
    ['an overload event inside a 200 stream', error('overloaded_error')],
    ["OpenAI's server_error chunk", error('server_error')],
    ["Ollama's error line", error('stream_error')],
    ['a connection reset', error('connection_error')],
    ['a stalled stream', error('stream_stalled')],
  ];
  const NOT_RETRIED: Array<[string, ProviderError]> = [
    ['an abort', error('aborted')],
    ['400', error('invalid_request_error', { status: 400 })],
    ['401', error('authentication_error', { status: 401 })],
    ['404', error('not_found_error', { status: 404 })],
    ['an exhausted quota answered as 429', error('insufficient_quota', { status: 429, code: 'insufficient_quota' })],
    ['a malformed answer', error('malformed_response')],
    ['a client bug', error('client_error')],
    ['an unknown in-stream type', error('invalid_request_error')],
  ];
  for (const [name, e] of RETRIED) it(`retries ${name}`, () => expect(isRetryable(e)).to.equal(true));
  for (const [name, e] of NOT_RETRIED) it(`does not retry ${name}`, () => expect(isRetryable(e)).to.equal(false));

  it('backs off exponentially up to the ceiling, losing at most a quarter to jitter', () => {
    const e = error('connection_error');
    expect([1, 2, 3].map((attempt) => retryDelayMs(e, attempt, { ...policy, maxAttempts: 9 }, noJitter))).to.deep.equal([100, 200, 300]);
    expect(retryDelayMs(e, 1, policy, () => 0.999)).to.equal(75);
  });

  it('takes a retry-after as given, and gives up on one longer than it waits out', () => {
    expect(retryDelayMs(error('rate_limit_error', { status: 429, retryAfterMs: 1_234 }), 1, policy, noJitter)).to.equal(1_234);
    expect(retryDelayMs(error('rate_limit_error', { status: 429, retryAfterMs: 0 }), 1, policy, noJitter)).to.equal(0);
    expect(retryDelayMs(error('rate_limit_error', { status: 429, retryAfterMs: 5_001 }), 1, policy, noJitter)).to.equal(null);
  });

  it('stops after maxAttempts, and never retries what is not retryable', () => {
    expect(retryDelayMs(error('connection_error'), 3, policy)).to.be.a('number');
    expect(retryDelayMs(error('connection_error'), 4, policy)).to.equal(null);
    expect(retryDelayMs(error('aborted'), 1, policy)).to.equal(null);
  });

  it('defaults: four attempts, 0.5 s doubling to 8 s, retry-after up to a minute', () => {
    expect(DEFAULT_RETRY_POLICY).to.deep.equal({ maxAttempts: 4, baseDelayMs: 500, maxDelayMs: 8_000, maxRetryAfterMs: 60_000 });
  });
});
