import { Type } from 'typebox';
import { defineRoute } from '../../../core/plugin/route.js';
import { DEFAULT_LIMIT, MAX_K, MAX_LIMIT } from '../config.js';
import { GraphQueryAnswerSchema } from '../graph-answer.js';
import { GraphServiceToken } from '../graph-service.js';
import { NODE_ID_FORMS } from '../node-id.js';

const NodeParam = (what: string) => Type.Optional(Type.String({ maxLength: 600, description: `${what}: ${NODE_ID_FORMS}.` }));

export const getGraphQuery = defineRoute({
  operationId: 'getGraphQuery',
  method: 'GET',
  path: '/v1/graph/query',
  summary: 'Query the graph of actors, threads and records: a shortest path, the threads two actors share, a k-hop neighbourhood, or the most connected nodes',
  description: [
    'Nodes are actors, threads and records; edges are authored (actor → record), wrote_in (actor → thread, with a count), in_thread (record → thread), parent, fulfills, judged_by (record → record) and assigned_to (INTEND → actor).',
    'op=path&from=&to=: a shortest path (at most max_depth hops) along the stored directions plus their reverses, except parent → child (children are reached through their thread).',
    'op=shared_context&a=&b=: the threads both actors wrote on, most records first.',
    `op=neighborhood&node=&k=: nodes within k hops (1..${MAX_K}, default 1), breadth first, the first \`limit\`.`,
    'op=centrality[&kind=actor|thread]: the most connected actors (default) or threads by degree in the actor–thread layer (distinct threads written on / distinct writers), ties by records then id.',
    `Every answer is bounded (limit ${DEFAULT_LIMIT} by default, at most ${MAX_LIMIT}; neighbours per node, nodes expanded and edges examined are capped) and says so in truncated / truncated_by.`,
    'A credential limited to some threads or namespaces is answered over only what it may read: a node it cannot read is 404, as a missing one.',
  ].join(' '),
  tags: ['graph'],
  auth: { scope: 'records:read' },
  request: {
    query: Type.Object(
      {
        op: Type.Optional(Type.String({ maxLength: 64, description: 'path, shared_context, neighborhood or centrality (required).' })),
        from: NodeParam('op=path: the start node'),
        to: NodeParam('op=path: the end node'),
        a: NodeParam('op=shared_context: the first actor'),
        b: NodeParam('op=shared_context: the second actor'),
        node: NodeParam('op=neighborhood: the centre'),
        k: Type.Optional(Type.Integer({ description: `op=neighborhood: hops, 1..${MAX_K}. @default 1` })),
        limit: Type.Optional(Type.Integer({ description: `Nodes returned at most, 1..${MAX_LIMIT} (not for op=path). @default ${DEFAULT_LIMIT}` })),
        kind: Type.Optional(Type.String({ maxLength: 64, description: 'op=centrality: actor or thread. @default actor' })),
      },
      // Unknown parameters reach the handler, which refuses them by name (a schema error would not name them).
    ),
  },
  responses: { 200: { description: 'The answer, with what bounded it.', schema: GraphQueryAnswerSchema } },
  errors: ['INVALID_SHAPE', 'NOT_FOUND'],
  inject: { graph: GraphServiceToken },
  handler: ({ query, caller }, { graph }) => graph.query(caller, query),
});
