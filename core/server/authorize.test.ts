import { expect } from 'chai';
import { ANONYMOUS, credentialCaller, LOCAL, type Caller } from '../access/caller.js';
import type { Authenticator } from '../access/authenticator.js';
import { LoomError } from '../errors/loom-error.js';
import { authorize } from './authorize.js';

const request = (authorization?: string) => ({ method: 'GET', path: '/v1/x', headers: authorization ? { authorization } : {}, remoteAddress: '127.0.0.1' });
const reader = credentialCaller({ principal: 'did:sync:system:sa_r', scopes: ['records:read'] });

function authenticator(required: boolean): Authenticator {
  return {
    errors: [],
    required: () => required,
    authenticate(r): Caller | null {
      if (!r.headers['authorization']) return null;
      if (r.headers['authorization'] === 'good') return reader;
      throw new LoomError('AUTH_REQUIRED', 'bad');
    },
  };
}

const code = (p: Promise<unknown>) => p.then(() => 'ok', (e: LoomError) => e.code);

describe('authorize', () => {
  it('exempt routes are anonymous, whatever is sent', async () => {
    expect(await authorize('none', request('bad'), { authenticator: authenticator(true), enforcementDisabled: false })).to.equal(ANONYMOUS);
  });

  it('optional routes take a valid credential and ignore a bad one', async () => {
    const opts = { authenticator: authenticator(true), enforcementDisabled: false };
    expect(await authorize('optional', request('good'), opts)).to.equal(reader);
    expect(await authorize('optional', request('bad'), opts)).to.equal(ANONYMOUS);
  });

  it('scoped routes: 401 without a credential when required, LOCAL when not or with no authenticator', async () => {
    const route = { scope: 'records:read' } as const;
    expect(await code(authorize(route, request(), { authenticator: authenticator(true), enforcementDisabled: false }))).to.equal('AUTH_REQUIRED');
    expect(await authorize(route, request(), { authenticator: authenticator(false), enforcementDisabled: false })).to.equal(LOCAL);
    expect(await authorize(route, request(), { authenticator: authenticator(true), enforcementDisabled: true })).to.equal(LOCAL);
    expect(await authorize(route, request(), { authenticator: null, enforcementDisabled: false })).to.equal(LOCAL);
    expect(await code(authorize(route, request('bad'), { authenticator: authenticator(false), enforcementDisabled: false }))).to.equal('AUTH_REQUIRED');
  });

  it('checks the scope (403) and lets any live credential through scope null', async () => {
    const opts = { authenticator: authenticator(true), enforcementDisabled: false };
    expect(await code(authorize({ scope: 'records:write' }, request('good'), opts))).to.equal('SCOPE_FORBIDDEN');
    expect(await authorize({ scope: null }, request('good'), opts)).to.equal(reader);
  });

  it('"always" routes need a credential even while enforcement is off', async () => {
    expect(await code(authorize({ scope: 'admin', always: true }, request(), { authenticator: authenticator(false), enforcementDisabled: true }))).to.equal('AUTH_REQUIRED');
    expect(await code(authorize({ scope: 'admin', always: true }, request(), { authenticator: null, enforcementDisabled: false }))).to.equal('AUTH_REQUIRED');
  });
});
