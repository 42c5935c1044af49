/**
 * The work one graph query may do, and what it did: nodes expanded (their
 * neighbours listed), edges examined, and which bounds cut the answer. Once
 * `max_expanded` or `max_edges` is hit the query is `exhausted` and stops
 * where it stands; `fanout` and `limit` only cut one node's list or the
 * answer, and are recorded the same way.
 */
import type { GraphBounds } from './config.js';
import type { Truncation } from './graph-answer.js';

export class QueryBudget {
  expanded = 0;
  examined = 0;
  exhausted = false;
  private readonly hits = new Set<Truncation>();

  constructor(readonly bounds: GraphBounds) {}

  /** Claims one node expansion; false (and exhausted) when max_expanded is spent. */
  expand(): boolean {
    if (this.expanded >= this.bounds.maxExpanded) {
      this.cut('max_expanded');
      this.exhausted = true;
      return false;
    }
    this.expanded++;
    return true;
  }

  /** Claims one edge examination; false (and exhausted) when max_edges is spent. */
  examine(): boolean {
    if (this.examined >= this.bounds.maxEdges) {
      this.cut('max_edges');
      this.exhausted = true;
      return false;
    }
    this.examined++;
    return true;
  }

  cut(reason: Truncation): void {
    this.hits.add(reason);
  }

  get truncated(): boolean {
    return this.hits.size > 0;
  }

  /** The bounds hit, in a fixed order. */
  get truncatedBy(): Truncation[] {
    return (['limit', 'fanout', 'max_expanded', 'max_edges', 'max_depth'] as const).filter((t) => this.hits.has(t));
  }
}
