import { expect } from 'chai';
import type { FilterNode } from '../../storage/contract/query/filter-ast.js';
import { ANONYMOUS, LOCAL } from './caller.js';
import { MATCH_NONE } from './read-policy.js';
import { hiddenThreadsOnly, restrictionFor, threadsOf, threadVisibility } from './restriction.js';

const THREAD = { kind: 'column', column: 'thread' } as const;
const A = 'th_' + 'a'.repeat(64);
const B = 'th_' + 'b'.repeat(64);
const inThreads = (...threads: string[]): FilterNode => ({ op: 'in', field: THREAD, values: threads });
const notThread = (thread: string): FilterNode => ({ op: 'not', node: { op: 'compare', field: THREAD, operator: '$eq', value: thread } });
const inNamespace: FilterNode = { op: 'compare', field: { kind: 'column', column: 'namespace' }, operator: '$eq', value: 'acme' };

describe('read restrictions', () => {
  it('AND-combines the policies that restrict, and is undefined when none does', () => {
    const policies = [
      { name: 'p.none', restrict: () => undefined },
      { name: 'p.a', restrict: () => inThreads(A) },
      { name: 'p.b', restrict: () => notThread(B) },
    ];
    expect(restrictionFor([policies[0]!], LOCAL)).to.equal(undefined);
    expect(restrictionFor(policies, ANONYMOUS)).to.deep.equal({ op: 'and', nodes: [inThreads(A), notThread(B)] });
  });

  it('tells whole-thread visibility from a restriction', () => {
    expect(threadVisibility(undefined, A)).to.equal('all');
    expect(threadVisibility(inThreads(A), A)).to.equal('all');
    expect(threadVisibility(inThreads(A), B)).to.equal('none');
    expect(threadVisibility({ op: 'and', nodes: [inThreads(A, B), notThread(B)] }, B)).to.equal('none');
    expect(threadVisibility({ op: 'and', nodes: [inThreads(A, B), notThread(B)] }, A)).to.equal('all');
    expect(threadVisibility({ op: 'or', nodes: [inThreads(A), inNamespace] }, B)).to.equal('some');
    expect(threadVisibility({ op: 'or', nodes: [inThreads(A), inNamespace] }, A)).to.equal('all');
    expect(threadVisibility(MATCH_NONE, A)).to.equal('none');
    expect(threadVisibility(inNamespace, A)).to.equal('some');
  });

  it('reads back the finite thread set a restriction confines reads to', () => {
    expect(threadsOf(inThreads(A, B))).to.deep.equal(new Set([A, B]));
    expect(threadsOf({ op: 'and', nodes: [inThreads(A, B), notThread(B), inThreads(B)] })).to.deep.equal(new Set([B]));
    expect(threadsOf({ op: 'or', nodes: [inThreads(A), inNamespace] })).to.equal(null);
    expect(threadsOf(inNamespace)).to.equal(null);
    expect(threadsOf(MATCH_NONE)).to.deep.equal(new Set());
  });

  it('tells a restriction that hides whole threads only', () => {
    expect(hiddenThreadsOnly(notThread(A))).to.deep.equal(new Set([A]));
    expect(hiddenThreadsOnly({ op: 'and', nodes: [notThread(A), notThread(B)] })).to.deep.equal(new Set([A, B]));
    expect(hiddenThreadsOnly({ op: 'and', nodes: [notThread(A), inThreads(B)] })).to.equal(null);
    expect(hiddenThreadsOnly(inNamespace)).to.equal(null);
    expect(hiddenThreadsOnly({ op: 'not', node: inNamespace })).to.equal(null);
  });
});
