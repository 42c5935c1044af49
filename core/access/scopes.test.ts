import { expect } from 'chai';
import { covers, grainsFor, isScopeOrGrain, parseGrain } from './scopes.js';

const TH = 'th_' + 'a'.repeat(64);

describe('scopes and grains', () => {
  it('covers: the exact scope, admin, or a grain of the route class', () => {
    expect(covers(['records:read'], 'records:read')).to.equal(true);
    expect(covers(['admin'], 'config:write')).to.equal(true);
    expect(covers(['records:write'], 'records:read')).to.equal(false);
    expect(covers([`thread:${TH}:read`], 'records:read')).to.equal(true);
    expect(covers([`thread:${TH}:read`], 'records:write')).to.equal(false);
    expect(covers(['namespace:acme:write'], 'records:write')).to.equal(true);
    expect(covers(['namespace:acme:write'], 'threads:write')).to.equal(false);
    expect(covers([], 'records:read')).to.equal(false);
    expect(covers(['config:read'], 'config:write')).to.equal(false);
  });

  it('parses grains and refuses lookalikes', () => {
    expect(parseGrain(`thread:${TH}:read`)).to.deep.equal({ kind: 'thread', resource: TH, access: 'read' });
    expect(parseGrain('namespace:acme/web:write')).to.deep.equal({ kind: 'namespace', resource: 'acme/web', access: 'write' });
    for (const bad of ['thread::read', 'thread:x:delete', 'actor:x:read', 'namespace:a b:read', 'records:read']) expect(parseGrain(bad), bad).to.equal(null);
    expect(isScopeOrGrain('records:read')).to.equal(true);
    expect(isScopeOrGrain('records:delete')).to.equal(false);
  });

  it('grainsFor: null when a coarse scope makes the caller unrestricted', () => {
    expect(grainsFor(['records:read', `thread:${TH}:read`], 'read')).to.equal(null);
    expect(grainsFor(['admin'], 'write')).to.equal(null);
    expect(grainsFor([`thread:${TH}:read`, 'namespace:acme:write'], 'read')).to.deep.equal([{ kind: 'thread', resource: TH, access: 'read' }]);
    expect(grainsFor(['config:read'], 'read')).to.deep.equal([]);
  });
});
