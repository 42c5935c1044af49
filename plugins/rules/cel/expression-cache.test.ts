import { expect } from 'chai';
import { SYSTEM, credentialCaller } from '../../../core/access/caller.js';
import { makeRecord } from '../../../core/records/record.js';
import { createEnvironments, permissionActivation, routingActivation } from './cel-environments.js';
import { evaluateCondition, ExpressionCache, ExpressionCompileError } from './expression-cache.js';

const record = makeRecord('c'.repeat(64), {
  parents: [],
  thread: 'th_' + 'd'.repeat(64),
  actor: 'did:sync:agent:alice',
  act: 'DO',
  body: { topic: 'deploy', priority: 5 },
  clock: 7,
  data_type: 'SCALAR',
  judged_by: null,
});

describe('expression cache', () => {
  it('compiles each distinct expression once and counts hits and misses', () => {
    const cache = new ExpressionCache(createEnvironments(), 4);
    const first = cache.compile('routing', 'record.act == "DO"');
    expect(cache.compile('routing', 'record.act == "DO"')).to.equal(first);
    const stats = cache.stats();
    expect(stats).to.include({ hits: 1, misses: 1, compile_errors: 0, size: 1, capacity: 4, hit_rate_pct: 50 });
    expect(stats.avg_compile_micros).to.be.greaterThan(0);
  });

  it('evicts the least recently used entry at capacity', () => {
    const cache = new ExpressionCache(createEnvironments(), 2);
    const a = cache.compile('routing', 'record.clock > 1');
    cache.compile('routing', 'record.clock > 2');
    cache.compile('routing', 'record.clock > 1'); // a is now the most recent
    cache.compile('routing', 'record.clock > 3'); // evicts "> 2"
    expect(cache.stats().size).to.equal(2);
    expect(cache.compile('routing', 'record.clock > 1')).to.equal(a);
    expect(cache.stats().misses).to.equal(3);
    cache.compile('routing', 'record.clock > 2');
    expect(cache.stats().misses).to.equal(4);
  });

  it('refuses at compile time what does not parse, names an unknown variable, or yields no bool', () => {
    const cache = new ExpressionCache(createEnvironments());
    expect(() => cache.compile('routing', 'record.act ==')).to.throw(ExpressionCompileError, /does not parse/);
    expect(() => cache.compile('routing', 'caller.admin')).to.throw(ExpressionCompileError, /caller/);
    expect(() => cache.compile('routing', '1 + 1')).to.throw(ExpressionCompileError, /yields int/);
    expect(cache.compile('permission', 'caller.admin').source).to.equal('caller.admin');
    expect(cache.stats().compile_errors).to.equal(3);
    expect(cache.stats().size).to.equal(1);
  });

  it('evaluates over the record, the namespace, the caller and the time', () => {
    const cache = new ExpressionCache(createEnvironments());
    const routing = routingActivation(record, 'acme/prod', new Date('2026-01-01T00:00:00Z'));
    expect(evaluateCondition(cache.compile('routing', 'record.act == "DO" && record.body.priority > 3 && record.clock == 7'), routing)).to.equal(true);
    expect(evaluateCondition(cache.compile('routing', 'ns.startsWith("acme/") && now > timestamp("2025-01-01T00:00:00Z")'), routing)).to.equal(true);
    expect(evaluateCondition(cache.compile('routing', 'has(record.body.missing)'), routing)).to.equal(false);
    expect(() => evaluateCondition(cache.compile('routing', 'record.body.missing == 1'), routing)).to.throw();
    const caller = credentialCaller({ principal: 'did:sync:user:bob', scopes: ['records:write'] });
    const permission = permissionActivation({ record, namespace: 'default', caller, via: 'api', now: new Date() });
    expect(evaluateCondition(cache.compile('permission', '"records:write" in caller.scopes && !caller.admin && caller.did == "did:sync:user:bob" && via == "api"'), permission)).to.equal(true);
    const system = permissionActivation({ record, namespace: 'default', caller: SYSTEM, via: 'engine', now: new Date() });
    expect(evaluateCondition(cache.compile('permission', 'caller.admin && caller.did == null'), system)).to.equal(true);
  });
});
