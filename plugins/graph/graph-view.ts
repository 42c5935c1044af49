/**
 * The graph as one query sees it: actors and threads from the `graph` fold
 * state (the caller's own view of it), record nodes read lazily through the
 * caller's reads, each at most once per query.
 *
 * A node exists when: an actor or thread is in the state; a record can be
 * read by the caller and is not on a system thread. An edge to a node that
 * does not exist (a parent the caller cannot read, a dangling `fulfills`) is
 * no edge.
 *
 * Neighbours are listed in this fixed order, which every query (and the
 * brute-force reference in test/helpers/reference-graph.ts) follows:
 * - actor: the threads it wrote on (wrote_in, in order of its first record
 *   on each); the INTENDs assigned to it (assigned_to, by sequence); the
 *   records it wrote (authored, by sequence).
 * - thread: its writers (wrote_in, in order of first record); its records
 *   (in_thread, by sequence).
 * - record: its thread (in_thread); its author (authored); its parents
 *   (parent, in listed order); the record its body.fulfills names; the
 *   record its judged_by names; its assignee (assigned_to, INTENDs); the
 *   records that fulfil it; the records judged by it (both by sequence).
 * The one direction not followed is parent → child: no index holds it (it
 * would cost an entry per record); children are reached through their
 * thread. So paths follow these directions and need not be symmetric.
 */
import { didSyntaxError } from '../../core/records/did-syntax.js';
import { isRecordId } from '../../core/records/record-id.js';
import { recordPages } from '../../core/engine/record-pages.js';
import { PAGE_MAX_LIMIT, type PageRequest, type RecordPage } from '../../storage/contract/record-store.js';
import type { StoredRecord } from '../../storage/contract/stored-record.js';
import type { GraphEdge, GraphNode } from './graph-answer.js';
import type { GraphReads } from './graph-reads.js';
import { referencesTo, type GraphState } from './graph-state.js';
import { nodeId, type NodeRef } from './node-id.js';
import type { QueryBudget } from './query-budget.js';
import { recordLabel } from './record-label.js';

export interface Neighbor {
  readonly node: NodeRef;
  readonly edge: GraphEdge;
}

export class GraphView {
  /** Records read by this query: the record, or null when the caller cannot see it. */
  private readonly records = new Map<string, StoredRecord | null>();
  private readonly bySequence = new Map<number, StoredRecord | null>();

  constructor(
    readonly state: GraphState,
    private readonly reads: GraphReads,
  ) {}

  async exists(ref: NodeRef): Promise<boolean> {
    switch (ref.kind) {
      case 'actor':
        return this.state.actors.has(ref.key);
      case 'thread':
        return this.state.threads.has(ref.key);
      case 'record':
        return (await this.record(ref.key)) !== undefined;
    }
  }

  /** A record node, or undefined when the caller cannot see it or it lies on a system thread. */
  async record(id: string): Promise<StoredRecord | undefined> {
    const cached = this.records.get(id);
    if (cached !== undefined) return cached ?? undefined;
    const stored = await this.reads.get(id);
    const node = stored && !this.reads.isSystemThread(stored.record.thread) ? stored : null;
    this.records.set(id, node);
    return node ?? undefined;
  }

  /** A record node by the sequence the fold holds it as. */
  private async recordAt(sequence: number): Promise<StoredRecord | undefined> {
    const cached = this.bySequence.get(sequence);
    if (cached !== undefined) return cached ?? undefined;
    const stored = await this.reads.atSequence(sequence);
    const node = stored && !this.reads.isSystemThread(stored.record.thread) ? stored : null;
    this.bySequence.set(sequence, node);
    if (node) this.records.set(node.record.id, node);
    return node ?? undefined;
  }

  /** The wire node of an existing node; a record's label needs it read (it was, when it was found). */
  async node(ref: NodeRef): Promise<GraphNode> {
    const id = nodeId(ref.kind, ref.key);
    switch (ref.kind) {
      case 'actor':
        return { id, kind: 'actor', label: ref.key };
      case 'thread':
        return { id, kind: 'thread', label: this.state.threads.get(ref.key)?.label ?? ref.key };
      case 'record': {
        const stored = await this.record(ref.key);
        return { id, kind: 'record', label: stored ? recordLabel(stored.record) : ref.key };
      }
    }
  }

  /**
   * A node's neighbours in the fixed order, read lazily: `hint` is how many
   * the consumer may still take, so a large thread is read a page at a time.
   */
  neighbors(ref: NodeRef, hint: number): AsyncGenerator<Neighbor> {
    switch (ref.kind) {
      case 'actor':
        return this.actorNeighbors(ref.key, hint);
      case 'thread':
        return this.threadNeighbors(ref.key, hint);
      case 'record':
        return this.recordNeighbors(ref.key);
    }
  }

  private async *actorNeighbors(did: string, hint: number): AsyncGenerator<Neighbor> {
    const actor = this.state.actors.get(did);
    if (!actor) return;
    const from = nodeId('actor', did);
    for (const [thread, count] of actor.threads) {
      yield { node: { kind: 'thread', key: thread }, edge: { from, to: nodeId('thread', thread), kind: 'wrote_in', count } };
    }
    // An index loop: the live state may grow while this generator waits on reads.
    for (let i = 0; i < actor.assigned.length; i++) {
      const intend = await this.recordAt(actor.assigned[i]!);
      if (intend) yield { node: { kind: 'record', key: intend.record.id }, edge: { from: nodeId('record', intend.record.id), to: from, kind: 'assigned_to' } };
    }
    for await (const stored of this.pages((page) => this.reads.listByActor(did, page), hint)) {
      yield { node: { kind: 'record', key: stored.record.id }, edge: { from, to: nodeId('record', stored.record.id), kind: 'authored' } };
    }
  }

  private async *threadNeighbors(thread: string, hint: number): AsyncGenerator<Neighbor> {
    const entry = this.state.threads.get(thread);
    if (!entry) return;
    const to = nodeId('thread', thread);
    for (const [did, count] of entry.actors) yield { node: { kind: 'actor', key: did }, edge: { from: nodeId('actor', did), to, kind: 'wrote_in', count } };
    for await (const stored of this.pages((page) => this.reads.listByThread(thread, page), hint)) {
      yield { node: { kind: 'record', key: stored.record.id }, edge: { from: nodeId('record', stored.record.id), to, kind: 'in_thread' } };
    }
  }

  private async *recordNeighbors(id: string): AsyncGenerator<Neighbor> {
    const stored = await this.record(id);
    if (!stored) return;
    const { record } = stored;
    const self = nodeId('record', id);
    if (this.state.threads.has(record.thread)) yield { node: { kind: 'thread', key: record.thread }, edge: { from: self, to: nodeId('thread', record.thread), kind: 'in_thread' } };
    if (this.state.actors.has(record.actor)) yield { node: { kind: 'actor', key: record.actor }, edge: { from: nodeId('actor', record.actor), to: self, kind: 'authored' } };
    const forward = (target: string, kind: GraphEdge['kind']): Neighbor => ({ node: { kind: 'record', key: target }, edge: { from: self, to: nodeId('record', target), kind } });
    for (const parent of record.parents) if (await this.record(parent)) yield forward(parent, 'parent');
    const fulfills = record.body['fulfills'];
    if (isRecordId(fulfills) && fulfills !== id && (await this.record(fulfills))) yield forward(fulfills, 'fulfills');
    if (isRecordId(record.judged_by) && record.judged_by !== id && (await this.record(record.judged_by))) yield forward(record.judged_by, 'judged_by');
    const assignee = record.body['assigned_to'];
    if (record.act === 'INTEND' && typeof assignee === 'string' && didSyntaxError(assignee) === null && this.state.actors.has(assignee)) {
      yield { node: { kind: 'actor', key: assignee }, edge: { from: self, to: nodeId('actor', assignee), kind: 'assigned_to' } };
    }
    for (const [index, kind] of [[this.state.fulfilledBy, 'fulfills'], [this.state.judgedBy, 'judged_by']] as const) {
      for (const sequence of referencesTo(index, id)) {
        const source = await this.recordAt(sequence);
        // The index is keyed by an id prefix: keep only sources that really name this record.
        const target = source && (kind === 'fulfills' ? source.record.body['fulfills'] : source.record.judged_by);
        if (source && target === id && source.record.id !== id) yield { node: { kind: 'record', key: source.record.id }, edge: { from: nodeId('record', source.record.id), to: self, kind } };
      }
    }
  }

  /** Records of a thread or actor page by page, remembered for this query; system threads are skipped. */
  private async *pages(read: (page: PageRequest) => Promise<RecordPage>, hint: number): AsyncGenerator<StoredRecord> {
    // The first page fits what the consumer may take (+1 to see whether more exist); later ones are full.
    for await (const page of recordPages(read, { firstLimit: Math.min(PAGE_MAX_LIMIT, Math.max(16, hint + 1)) })) {
      for (const stored of page.items) {
        if (this.reads.isSystemThread(stored.record.thread)) continue;
        this.records.set(stored.record.id, stored);
        yield stored;
      }
    }
  }
}

/**
 * A node's neighbours under the budget: at most `max_fanout` (then
 * truncated_by fanout), and no more edges than the query may examine (then
 * the budget is exhausted and the caller stops).
 */
export async function* boundedNeighbors(view: GraphView, budget: QueryBudget, ref: NodeRef, hint: number): AsyncGenerator<Neighbor> {
  let taken = 0;
  for await (const neighbor of view.neighbors(ref, Math.min(hint, budget.bounds.maxFanout))) {
    if (taken === budget.bounds.maxFanout) {
      budget.cut('fanout');
      return;
    }
    if (!budget.examine()) return;
    taken++;
    yield neighbor;
  }
}
