/**
 * The graph routes' answer bodies (the spec shows none), declared once as
 * TypeBox schemas: the routes serve them, OpenAPI names them, and the query
 * code builds the types derived here.
 *
 * Every node is `{id, kind, label}`; every edge `{from, to, kind}` in the
 * direction it is stored (a record points at its thread, author, parents,
 * fulfilled and judged records and assignee; an actor at the threads it
 * wrote on). `truncated` says a bound cut the answer short and
 * `truncated_by` which ones; `bounds` and `work` say what the query was
 * allowed and what it spent.
 */
import { Type, type Static } from 'typebox';

export const NODE_KINDS = ['actor', 'thread', 'record'] as const;
export const EDGE_KINDS = ['authored', 'wrote_in', 'in_thread', 'parent', 'fulfills', 'judged_by', 'assigned_to'] as const;
export const GRAPH_OPS = ['path', 'shared_context', 'neighborhood', 'centrality'] as const;
export const TRUNCATIONS = ['limit', 'fanout', 'max_expanded', 'max_edges', 'max_depth'] as const;

export type EdgeKind = (typeof EDGE_KINDS)[number];
export type GraphOp = (typeof GRAPH_OPS)[number];
export type Truncation = (typeof TRUNCATIONS)[number];

export const GraphNodeSchema = Type.Object(
  {
    id: Type.String({ description: '`actor:<did>`, `thread:<thread id>` or `record:<record id>`.' }),
    kind: Type.Enum(NODE_KINDS, { description: 'actor, thread or record.' }),
    label: Type.String({ description: 'Actor: its DID. Thread: the goal (else title) of its first INTEND, else its id. Record: act, body kind and the first of goal, title, summary, verdict, topic, observation (clipped).' }),
    depth: Type.Optional(Type.Integer({ minimum: 0, description: 'op=neighborhood: hops from the start node.' })),
  },
  { $id: 'GraphNode' },
);
export type GraphNode = Static<typeof GraphNodeSchema>;

export const GraphEdgeSchema = Type.Object(
  {
    from: Type.String(),
    to: Type.String(),
    kind: Type.Enum(EDGE_KINDS, {
      description:
        'authored: actor → record it wrote. wrote_in: actor → thread it wrote on (with count). in_thread: record → its thread. parent: record → a record in its parents. fulfills: record → the record its body.fulfills names. judged_by: record → the record its judged_by field names. assigned_to: INTEND → the actor its body.assigned_to names.',
    }),
    count: Type.Optional(Type.Integer({ minimum: 1, description: 'wrote_in: the records the actor wrote on the thread.' })),
  },
  { $id: 'GraphEdge' },
);
export type GraphEdge = Static<typeof GraphEdgeSchema>;

const Bounds = Type.Object(
  {
    limit: Type.Optional(Type.Integer({ description: 'Nodes (centrality: ranked entries; shared_context: shared threads) returned at most; absent for op=path (a path holds at most max_depth + 1 nodes).' })),
    k: Type.Optional(Type.Integer({ description: 'op=neighborhood: hops expanded.' })),
    max_depth: Type.Integer({ description: 'op=path: hops searched at most.' }),
    max_fanout: Type.Integer({ description: 'Neighbours listed per node; a busier node is cut (truncated_by: fanout).' }),
    max_expanded: Type.Integer({ description: 'Nodes whose neighbours one query lists.' }),
    max_edges: Type.Integer({ description: 'Edges one query examines.' }),
  },
  { $id: 'GraphBounds' },
);

const Truncated = Type.Boolean({ description: 'A bound cut the answer short: more nodes, edges or a shorter path may exist beyond it.' });
const TruncatedBy = Type.Array(Type.Enum(TRUNCATIONS, { description: 'The bound that was hit.' }), { description: 'Which bounds were hit, empty when none.' });
const Watermark = Type.Integer({ minimum: 0, description: 'The highest record sequence the graph fold covered when the query ran; record nodes are read live.' });
const Restricted = Type.Boolean({ description: 'The answer was computed over only the records this credential may read.' });

export const GraphQueryAnswerSchema = Type.Object(
  {
    object: Type.Literal('graph_query'),
    op: Type.Enum(GRAPH_OPS, { description: 'The operation answered.' }),
    watermark: Watermark,
    restricted: Restricted,
    nodes: Type.Array(GraphNodeSchema, { description: 'path: the path in order (empty when none was found). neighborhood: breadth-first order. shared_context: the two actors, then the shared threads. centrality: in rank order.' }),
    edges: Type.Array(GraphEdgeSchema, { description: 'path: the edges along it. neighborhood: the edges seen between returned nodes. shared_context: each actor’s wrote_in edge to each shared thread. centrality: none.' }),
    path: Type.Optional(Type.Union([Type.Array(Type.String()), Type.Null()], { description: 'op=path: node ids from `from` to `to`, or null when none was found within the bounds.' })),
    ranking: Type.Optional(
      Type.Array(
        Type.Object({
          id: Type.String(),
          degree: Type.Integer({ description: 'Distinct neighbours in the actor–thread layer: an actor’s threads written on, a thread’s writers.' }),
          records: Type.Integer({ description: 'Records written (actor) or held (thread); the first tie-break.' }),
        }),
        { description: 'op=centrality: the ranking, in the order of `nodes`.' },
      ),
    ),
    truncated: Truncated,
    truncated_by: TruncatedBy,
    bounds: Bounds,
    work: Type.Object({ expanded: Type.Integer({ description: 'Nodes whose neighbours were listed.' }), edges_examined: Type.Integer() }),
  },
  { $id: 'GraphQueryAnswer' },
);
export type GraphQueryAnswer = Static<typeof GraphQueryAnswerSchema>;
export type GraphBoundsView = Static<typeof Bounds>;

export const GraphFacetsSchema = Type.Object(
  {
    object: Type.Literal('graph_facets'),
    watermark: Watermark,
    restricted: Restricted,
    limit: Type.Integer({ description: 'Rows returned at most in each list.' }),
    kinds: Type.Array(Type.Object({ kind: Type.String(), records: Type.Integer() }), { description: 'Body kinds, most records first.' }),
    actors: Type.Array(
      Type.Object({ id: Type.String(), did: Type.String(), records: Type.Integer({ description: 'Records written.' }), threads: Type.Integer({ description: 'Threads written on.' }), assigned: Type.Integer({ description: 'INTENDs assigned to it.' }) }),
      { description: 'The people (and agents): most records first.' },
    ),
    threads: Type.Array(Type.Object({ id: Type.String(), thread: Type.String(), label: Type.String(), records: Type.Integer(), actors: Type.Integer({ description: 'Distinct writers.' }) }), { description: 'Most records first.' }),
    totals: Type.Object({ records: Type.Integer(), kinds: Type.Integer(), actors: Type.Integer(), threads: Type.Integer() }, { description: 'Counts before the limit.' }),
    truncated: Type.Boolean({ description: 'Some list held more than `limit` rows.' }),
  },
  { $id: 'GraphFacets' },
);
export type GraphFacets = Static<typeof GraphFacetsSchema>;
