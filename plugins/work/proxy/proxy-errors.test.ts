import { expect } from 'chai';
import { LoomError } from '../../../core/errors/loom-error.js';
import { ProviderError } from '../providers/index.js';
import { errorBody, fromLoomError, fromProviderError } from './proxy-errors.js';

describe('proxy errors: Anthropic\'s body and Loom\'s envelope in one', () => {
  it('carries both shapes', () => {
    expect(errorBody({ type: 'rate_limit_error', code: 'PROVIDER_RATE_LIMITED', message: 'slow down' })).to.deep.equal({
      type: 'error',
      error: { type: 'rate_limit_error', message: 'slow down' },
      object: 'error',
      code: 'PROVIDER_RATE_LIMITED',
      message: 'slow down',
    });
  });

  it('maps a provider failure by status: 400, 413, 429 and 529 keep theirs (and retry-after); the rest is a 502 api_error', () => {
    const of = (status: number | null, type = 'x', retryAfterMs: number | null = null) => fromProviderError(new ProviderError('anthropic', type, 'm', { status, retryAfterMs }));
    expect(of(400)).to.include({ status: 400, code: 'PROVIDER_INVALID_REQUEST', type: 'invalid_request_error' });
    expect(of(413)).to.include({ status: 413, code: 'PAYLOAD_TOO_LARGE', type: 'request_too_large' });
    expect(of(429, 'rate_limit_error', 7000)).to.deep.include({ status: 429, code: 'PROVIDER_RATE_LIMITED', headers: { 'retry-after': '7' } });
    expect(of(529)).to.include({ status: 529, type: 'overloaded_error' });
    expect(of(503)).to.include({ status: 529, type: 'overloaded_error' });
    // The provider refused Loom's own key: not the client's credential, a gateway failure.
    expect(of(401)).to.include({ status: 502, code: 'PROVIDER_FAILED', type: 'api_error' });
    expect(of(null, 'connection_error')).to.include({ status: 502, code: 'PROVIDER_FAILED' });
    expect(of(null, 'overloaded_error')).to.include({ status: 529 });
  });

  it('Loom refusals keep their code and status; a daily cap tells the SDKs not to retry', () => {
    expect(fromLoomError(new LoomError('NOT_FOUND', 'no model'))).to.include({ status: 404, type: 'not_found_error' });
    expect(fromLoomError(new LoomError('WORK_DAILY_CAP_EXCEEDED', 'cap'))).to.deep.include({ status: 429, type: 'rate_limit_error', headers: { 'x-should-retry': 'false' } });
    expect(fromLoomError(new LoomError('WORK_NO_PROVIDER', 'none'))).to.include({ status: 503, type: 'api_error' });
  });
});
