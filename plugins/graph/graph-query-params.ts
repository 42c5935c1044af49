/**
 * Reading GET /v1/graph/query's parameters into one operation. The route's
 * schema only types them (all optional); the rules are checked here so each
 * refusal names the parameter and what is accepted, which a schema error
 * cannot ("must be equal to one of the allowed values").
 */
import { LoomError } from '../../core/errors/loom-error.js';
import { CENTRALITY_KINDS, type CentralityKind } from './centrality.js';
import { DEFAULT_LIMIT, MAX_K, MAX_LIMIT } from './config.js';
import { GRAPH_OPS, type GraphOp } from './graph-answer.js';
import { NODE_ID_FORMS, requireNodeId, type NodeRef } from './node-id.js';

export interface GraphQueryInput {
  op?: string;
  from?: string;
  to?: string;
  a?: string;
  b?: string;
  node?: string;
  k?: number;
  limit?: number;
  kind?: string;
}

export type GraphQuery =
  | { readonly op: 'path'; readonly from: NodeRef; readonly to: NodeRef }
  | { readonly op: 'shared_context'; readonly a: string; readonly b: string; readonly limit: number }
  | { readonly op: 'neighborhood'; readonly node: NodeRef; readonly k: number; readonly limit: number }
  | { readonly op: 'centrality'; readonly kind: CentralityKind; readonly limit: number };

/** The parameters each operation takes; any other given is refused, so a misspelt call fails loudly. */
const PARAMETERS: Readonly<Record<GraphOp, readonly (keyof GraphQueryInput)[]>> = {
  path: ['from', 'to'],
  shared_context: ['a', 'b', 'limit'],
  neighborhood: ['node', 'k', 'limit'],
  centrality: ['kind', 'limit'],
};

const OPS_TEXT = GRAPH_OPS.join(', ');
const KNOWN: readonly string[] = ['op', 'from', 'to', 'a', 'b', 'node', 'k', 'limit', 'kind'];

export function parseGraphQuery(input: GraphQueryInput): GraphQuery {
  for (const name of Object.keys(input)) {
    if (!KNOWN.includes(name)) throw new LoomError('INVALID_SHAPE', `${clipText(name)} is not a parameter of the graph query (it takes ${KNOWN.join(', ')})`);
  }
  const op = input.op;
  if (op === undefined || op === '') throw new LoomError('INVALID_SHAPE', `op is required: one of ${OPS_TEXT}`);
  if (!(GRAPH_OPS as readonly string[]).includes(op)) throw new LoomError('INVALID_SHAPE', `op: ${JSON.stringify(clipText(op))} is not a graph operation; expected one of ${OPS_TEXT}`);
  const graphOp = op as GraphOp;
  const accepted = PARAMETERS[graphOp];
  for (const [name, value] of Object.entries(input)) {
    if (name === 'op' || value === undefined || accepted.includes(name as keyof GraphQueryInput)) continue;
    throw new LoomError('INVALID_SHAPE', `${name} does not apply to op=${graphOp} (it takes ${accepted.join(', ')})`);
  }
  switch (graphOp) {
    case 'path':
      return { op: graphOp, from: node(input, 'from', graphOp), to: node(input, 'to', graphOp) };
    case 'shared_context':
      return { op: graphOp, a: actor(input, 'a'), b: actor(input, 'b'), limit: limit(input) };
    case 'neighborhood': {
      const k = input.k ?? 1;
      if (!Number.isInteger(k) || k < 1 || k > MAX_K) {
        throw new LoomError('INVALID_SHAPE', `k must be an integer from 1 to ${MAX_K} (got ${k}): every hop multiplies the nodes reached, so deeper neighbourhoods are refused; walk further with another query from a node of this one`);
      }
      return { op: graphOp, node: node(input, 'node', graphOp), k, limit: limit(input) };
    }
    case 'centrality': {
      const kind = input.kind ?? 'actor';
      if (!(CENTRALITY_KINDS as readonly string[]).includes(kind)) throw new LoomError('INVALID_SHAPE', `kind must be ${CENTRALITY_KINDS.join(' or ')} (got ${JSON.stringify(clipText(kind))}); record nodes are not ranked`);
      return { op: graphOp, kind: kind as CentralityKind, limit: limit(input) };
    }
  }
}

/** `limit` of any graph answer: 1..MAX_LIMIT, DEFAULT_LIMIT when absent. */
export function limit(input: { limit?: number }): number {
  const value = input.limit ?? DEFAULT_LIMIT;
  if (!Number.isInteger(value) || value < 1 || value > MAX_LIMIT) throw new LoomError('INVALID_SHAPE', `limit must be an integer from 1 to ${MAX_LIMIT} (got ${value})`);
  return value;
}

function node(input: GraphQueryInput, parameter: 'from' | 'to' | 'node' | 'a' | 'b', op: GraphOp): NodeRef {
  const raw = input[parameter];
  if (raw === undefined || raw === '') throw new LoomError('INVALID_SHAPE', `${parameter} is required for op=${op}: a node id (${NODE_ID_FORMS})`);
  return requireNodeId(parameter, raw);
}

function actor(input: GraphQueryInput, parameter: 'a' | 'b'): string {
  const ref = node(input, parameter, 'shared_context');
  if (ref.kind !== 'actor') throw new LoomError('INVALID_SHAPE', `${parameter} must name an actor (actor:<did> or a bare DID) for op=shared_context; ${JSON.stringify(clipText(input[parameter]!))} names a ${ref.kind}`);
  return ref.key;
}

function clipText(text: string): string {
  return text.length > 80 ? `${text.slice(0, 80)}…` : text;
}
