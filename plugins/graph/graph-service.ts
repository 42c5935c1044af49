/**
 * The graph routes' one service: takes the caller's view of the `graph`
 * fold (the shared live state, or a private recomputation over only the
 * records the caller may read) and its record reads, then runs the query.
 * Parameters are checked before anything is read.
 */
import type { Caller } from '../../core/access/caller.js';
import { token } from '../../core/di/token.js';
import type { RecordReader } from '../../core/engine/record-reader.js';
import type { GraphBounds } from './config.js';
import type { GraphFacets, GraphQueryAnswer } from './graph-answer.js';
import { facets } from './facets.js';
import { GRAPH_FOLD } from './graph-fold.js';
import { limit, parseGraphQuery, type GraphQueryInput } from './graph-query-params.js';
import { callerReads } from './graph-reads.js';
import type { GraphState } from './graph-state.js';
import { GraphView } from './graph-view.js';
import { runGraphQuery } from './run-graph-query.js';

export class GraphService {
  constructor(
    private readonly reader: RecordReader,
    readonly bounds: GraphBounds,
  ) {}

  async query(caller: Caller, input: GraphQueryInput): Promise<GraphQueryAnswer> {
    const query = parseGraphQuery(input);
    const { state, watermark, restricted } = await this.reader.globalFoldState<GraphState>(caller, GRAPH_FOLD);
    const view = new GraphView(state, callerReads(this.reader, caller));
    return runGraphQuery(view, query, this.bounds, { watermark, restricted });
  }

  async facets(caller: Caller, input: { limit?: number }): Promise<GraphFacets> {
    const rows = limit(input);
    const { state, watermark, restricted } = await this.reader.globalFoldState<GraphState>(caller, GRAPH_FOLD);
    return { object: 'graph_facets', watermark, restricted, ...facets(state, rows) };
  }
}

export const GraphServiceToken = token<GraphService>('graph.GraphService');
