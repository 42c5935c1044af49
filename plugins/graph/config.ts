/**
 * Options of the graph plugin: the work bounds every query is held to. The
 * wire ranges of `k` and `limit` are part of the route contract
 * (graph-query-params.ts); these are the server-side caps behind them,
 * reported back in every answer's `bounds`.
 */
import { Type, type Static } from 'typebox';
import Value from 'typebox/value';

export const GraphOptions = Type.Object(
  {
    /** Neighbours listed per node: a thread or actor with more is cut here (one store page). @default 1000 */
    maxFanout: Type.Integer({ minimum: 1, maximum: 1000, default: 1000 }),
    /** Nodes whose neighbours one query lists. @default 10000 */
    maxExpanded: Type.Integer({ minimum: 1, maximum: 100_000, default: 10_000 }),
    /** Edges one query examines (it also bounds the nodes a path search remembers). @default 100000 */
    maxEdges: Type.Integer({ minimum: 1, maximum: 1_000_000, default: 100_000 }),
    /** Hops a path search goes before it gives up. @default 6 */
    maxDepth: Type.Integer({ minimum: 1, maximum: 10, default: 6 }),
  },
  { additionalProperties: false },
);
export type GraphOptions = Static<typeof GraphOptions>;

/** The caps a query runs under (the options, all given). */
export type GraphBounds = Readonly<GraphOptions>;

/** The bounds with every option at its default (as the plugin host fills them in). */
export const DEFAULT_GRAPH_BOUNDS: GraphBounds = Object.freeze(Value.Default(GraphOptions, {}) as GraphOptions);

/** `k` of op=neighborhood: 1..3. Each hop multiplies the nodes reached, so deeper is refused. */
export const MAX_K = 3;
/** Nodes (or ranked entries, or facet rows) an answer holds by default and at most. */
export const DEFAULT_LIMIT = 100;
export const MAX_LIMIT = 1000;
