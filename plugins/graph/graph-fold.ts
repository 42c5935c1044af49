/**
 * The `graph` global fold: the actor/thread layer of the graph (see
 * graph-state.ts for what it keeps and what that costs). It skips system
 * threads, so configuration and credentials never become graph nodes, and
 * it checkpoints (graph-checkpoint.ts), so a start does not replay the log.
 * Its value, served at GET /v1/folds/graph, is counts only: the graph itself
 * is read through GET /v1/graph/query and /v1/graph/facets.
 */
import type { Fold } from '../../core/folds/fold.js';
import { didSyntaxError } from '../../core/records/did-syntax.js';
import { isRecordId } from '../../core/records/record-id.js';
import { isReservedThread } from '../../core/records/reserved-threads.js';
import { graphCheckpoint } from './graph-checkpoint.js';
import { actorEntry, addReference, clip, emptyGraphState, threadEntry, type GraphState } from './graph-state.js';

export const GRAPH_FOLD = 'graph';
/** Thread labels are clipped to this many characters. */
export const LABEL_MAX = 80;
/** Longer body kinds are not counted (the grammar `scope.category.entity[.version]` is short; this bounds memory). */
export const KIND_MAX = 200;

export interface GraphSummary {
  records: number;
  actors: number;
  threads: number;
  kinds: number;
  /** Actor–thread authorship pairs. */
  authorship_pairs: number;
  assignments: number;
  /** Records named by some body.fulfills / judged_by (distinct 52-bit id prefixes: exact but for a shared prefix). */
  fulfilled_records: number;
  judged_records: number;
}

export const graphFold: Fold<GraphState, GraphSummary> = {
  name: GRAPH_FOLD,
  scope: 'global',
  description: 'The actor/thread layer of the graph: authorship per thread, INTEND assignments, body kinds and who fulfils or judges which record. Value: counts; query it at /v1/graph/query.',
  ignoresSystemThreads: true,
  checkpoint: graphCheckpoint,
  initial: emptyGraphState,
  apply(state, { sequence, record }) {
    // The engine already skips system threads for this fold; reserved ones are checked here too so the fold is right on its own.
    if (isReservedThread(record.thread)) return state;
    const actor = actorEntry(state, record.actor);
    const thread = threadEntry(state, record.thread);
    state.records++;
    actor.records++;
    thread.records++;
    // Keys are the entries' own strings, so each id is held once however many maps name it.
    actor.threads.set(thread.id, (actor.threads.get(thread.id) ?? 0) + 1);
    thread.actors.set(actor.did, (thread.actors.get(actor.did) ?? 0) + 1);
    const body = record.body;
    if (record.act === 'INTEND') {
      if (thread.label === null) {
        const label = nonEmptyString(body['goal']) ?? nonEmptyString(body['title']);
        if (label !== null) thread.label = clip(label, LABEL_MAX);
      }
      const assignee = body['assigned_to'];
      if (typeof assignee === 'string' && didSyntaxError(assignee) === null) actorEntry(state, assignee).assigned.push(sequence);
    }
    const kind = body['kind'];
    if (typeof kind === 'string' && kind.length > 0 && kind.length <= KIND_MAX) state.kinds.set(kind, (state.kinds.get(kind) ?? 0) + 1);
    // judged_by is not hashed, so a record may name itself: a self-loop is no edge.
    const fulfills = body['fulfills'];
    if (isRecordId(fulfills) && fulfills !== record.id) addReference(state.fulfilledBy, fulfills, sequence);
    if (isRecordId(record.judged_by) && record.judged_by !== record.id) addReference(state.judgedBy, record.judged_by, sequence);
    return state;
  },
  value(state) {
    let pairs = 0;
    let assignments = 0;
    for (const actor of state.actors.values()) {
      pairs += actor.threads.size;
      assignments += actor.assigned.length;
    }
    return {
      records: state.records,
      actors: state.actors.size,
      threads: state.threads.size,
      kinds: state.kinds.size,
      authorship_pairs: pairs,
      assignments,
      fulfilled_records: state.fulfilledBy.size,
      judged_records: state.judgedBy.size,
    };
  },
};

function nonEmptyString(value: unknown): string | null {
  return typeof value === 'string' && value.trim().length > 0 ? value : null;
}
