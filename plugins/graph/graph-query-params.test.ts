/** GET /v1/graph/query's parameters: each operation's operands, defaults and bounds; every refusal a 400 naming the parameter. */
import { expect } from 'chai';
import { LoomError } from '../../core/errors/loom-error.js';
import { parseGraphQuery, type GraphQueryInput } from './graph-query-params.js';

const DID = 'did:sync:user:alice';
const THREAD = `th_${'a'.repeat(64)}`;
const RECORD = 'b'.repeat(64);

function refusal(input: GraphQueryInput): string {
  try {
    parseGraphQuery(input);
  } catch (error) {
    expect(error).to.be.instanceOf(LoomError);
    expect((error as LoomError).code).to.equal('INVALID_SHAPE');
    return (error as LoomError).message;
  }
  throw new Error(`accepted ${JSON.stringify(input)}`);
}

describe('graph query parameters', () => {
  it('reads each operation with its defaults', () => {
    expect(parseGraphQuery({ op: 'path', from: `actor:${DID}`, to: RECORD })).to.deep.equal({ op: 'path', from: { kind: 'actor', key: DID }, to: { kind: 'record', key: RECORD } });
    expect(parseGraphQuery({ op: 'neighborhood', node: THREAD })).to.deep.equal({ op: 'neighborhood', node: { kind: 'thread', key: THREAD }, k: 1, limit: 100 });
    expect(parseGraphQuery({ op: 'neighborhood', node: `record:${RECORD}`, k: 3, limit: 1000 })).to.include({ k: 3, limit: 1000 });
    expect(parseGraphQuery({ op: 'shared_context', a: DID, b: `actor:${DID}`, limit: 5 })).to.deep.equal({ op: 'shared_context', a: DID, b: DID, limit: 5 });
    expect(parseGraphQuery({ op: 'centrality' })).to.deep.equal({ op: 'centrality', kind: 'actor', limit: 100 });
    expect(parseGraphQuery({ op: 'centrality', kind: 'thread', limit: 1 })).to.deep.equal({ op: 'centrality', kind: 'thread', limit: 1 });
  });

  const refused: [string, GraphQueryInput, RegExp][] = [
    ['a missing op', {}, /^op is required: one of path, shared_context, neighborhood, centrality/],
    ['an empty op', { op: '' }, /^op is required/],
    ['an unknown op', { op: 'pagerank' }, /^op: "pagerank" is not a graph operation; expected one of path, shared_context, neighborhood, centrality/],
    ['k beyond 3', { op: 'neighborhood', node: DID, k: 4 }, /^k must be an integer from 1 to 3 \(got 4\)/],
    ['k below 1', { op: 'neighborhood', node: DID, k: 0 }, /^k must be an integer from 1 to 3/],
    ['a limit beyond 1000', { op: 'neighborhood', node: DID, limit: 1001 }, /^limit must be an integer from 1 to 1000/],
    ['a limit of 0', { op: 'centrality', limit: 0 }, /^limit must be an integer from 1 to 1000/],
    ['a path without to', { op: 'path', from: DID }, /^to is required for op=path: a node id/],
    ['a path with an empty from', { op: 'path', from: '', to: DID }, /^from is required for op=path/],
    ['a neighbourhood without node', { op: 'neighborhood' }, /^node is required for op=neighborhood/],
    ['shared_context without b', { op: 'shared_context', a: DID }, /^b is required for op=shared_context/],
    ['shared_context with a thread', { op: 'shared_context', a: DID, b: THREAD }, /^b must name an actor .* names a thread/],
    ['a malformed node id', { op: 'neighborhood', node: 'alice' }, /^node: "alice" is not a graph node id; expected actor:<did>, thread:<th_…>, record:<64 hex>/],
    ['a prefix that disagrees with the id', { op: 'neighborhood', node: `thread:${RECORD}` }, /^node: .* is not a graph node id/],
    ['an uppercase record id', { op: 'neighborhood', node: RECORD.toUpperCase() }, /^node: .* is not a graph node id/],
    ['a DID of an unknown method', { op: 'path', from: 'did:nope:x', to: DID }, /^from: "did:nope:x" is not a graph node id/],
    ['an operand of another op', { op: 'path', from: DID, to: DID, k: 2 }, /^k does not apply to op=path \(it takes from, to\)/],
    ['limit on a path', { op: 'path', from: DID, to: DID, limit: 2 }, /^limit does not apply to op=path/],
    ['an unknown parameter', { op: 'centrality', depth: 2 } as GraphQueryInput, /^depth is not a parameter of the graph query \(it takes op, from, to, a, b, node, k, limit, kind\)/],
    ['an unknown centrality kind', { op: 'centrality', kind: 'record' }, /^kind must be actor or thread \(got "record"\); record nodes are not ranked/],
  ];
  for (const [what, input, message] of refused) {
    it(`refuses ${what} with a 400 that names it`, () => expect(refusal(input)).to.match(message));
  }
});
