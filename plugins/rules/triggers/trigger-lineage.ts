/**
 * Causal-chain protection (spec §2.9): which triggers' firings a record
 * descends from, through its parents. A record descended from a firing of
 * trigger T never fires T again, so two triggers cannot ping-pong forever.
 *
 * Lineages are memoised per record (ancestors never change), least recently
 * used out: RECONCILE propagates them as records pass, and a record whose
 * ancestry it has not seen (after a restart) is walked in the store, each
 * ancestor once. A walk visiting more than `walkLimit` unseen ancestors gives
 * up and reports null: the trigger's cooldown and max_concurrent still bound it.
 */
import { LRUCache } from 'lru-cache';
import type { LoomRecord } from '../../../core/records/record.js';
import { KIND_DISPATCH } from '../dispatch/dispatch-kinds.js';

const EMPTY: ReadonlySet<string> = Object.freeze(new Set<string>()) as ReadonlySet<string>;

export type RecordLookup = (id: string) => Promise<LoomRecord | undefined>;

/** The trigger a dispatch record fired for, if it is one. */
function ownFiring(record: LoomRecord): string | null {
  if (record.body['kind'] !== KIND_DISPATCH) return null;
  const origin = record.body['origin'];
  if (typeof origin !== 'object' || origin === null || Array.isArray(origin)) return null;
  const o = origin as Record<string, unknown>;
  return o['type'] === 'trigger' && typeof o['name'] === 'string' ? o['name'] : null;
}

export class TriggerLineage {
  /**
   * Not a Map evicting its first key: once full, V8 skips every deleted
   * entry at the front of the table on each `keys().next()`, so each record
   * cost tens of microseconds (RECONCILE was a fifth of a batch server's
   * CPU past 100,000 records).
   */
  private readonly memo: LRUCache<string, ReadonlySet<string>>;
  walks = 0;
  truncated = 0;

  constructor(
    private readonly lookup: RecordLookup,
    capacity = 100_000,
    private readonly walkLimit = 5000,
  ) {
    this.memo = new LRUCache({ max: capacity });
  }

  private remember(id: string, lineage: ReadonlySet<string>): void {
    this.memo.set(id, lineage);
  }

  private combine(record: LoomRecord, parents: Iterable<ReadonlySet<string>>): ReadonlySet<string> {
    const own = ownFiring(record);
    let result: Set<string> | null = own === null ? null : new Set([own]);
    for (const lineage of parents) {
      if (lineage.size === 0) continue;
      result ??= new Set();
      for (const name of lineage) result.add(name);
    }
    return result ?? EMPTY;
  }

  /** Records a passing record's lineage when all its parents are known (cheap: map lookups only). */
  observe(record: LoomRecord): void {
    const parents: ReadonlySet<string>[] = [];
    for (const parent of record.parents) {
      const known = this.memo.get(parent);
      if (known === undefined) return;
      parents.push(known);
    }
    this.remember(record.id, this.combine(record, parents));
  }

  /** The triggers `record` descends from (excluding itself), or null when the walk gave up. */
  async ancestorsOf(record: LoomRecord): Promise<ReadonlySet<string> | null> {
    const result = new Set<string>();
    for (const parent of record.parents) {
      const lineage = await this.lineageOf(parent);
      if (lineage === null) return null;
      for (const name of lineage) result.add(name);
    }
    return result;
  }

  /** A record's own lineage (itself included), walking unseen ancestors post-order. */
  private async lineageOf(id: string): Promise<ReadonlySet<string> | null> {
    const known = this.memo.get(id);
    if (known !== undefined) return known;
    this.walks++;
    let visited = 0;
    const stack: Array<{ id: string; record?: LoomRecord }> = [{ id }];
    while (stack.length > 0) {
      const top = stack[stack.length - 1]!;
      if (this.memo.has(top.id)) {
        stack.pop();
        continue;
      }
      if (!top.record) {
        const record = await this.lookup(top.id);
        if (!record) {
          // An ancestor this store does not hold (federated history): it carries no firing we know of.
          this.remember(top.id, EMPTY);
          stack.pop();
          continue;
        }
        top.record = record;
        if (++visited > this.walkLimit) {
          this.truncated++;
          return null;
        }
        for (const parent of record.parents) if (!this.memo.has(parent)) stack.push({ id: parent });
        continue;
      }
      stack.pop();
      this.remember(top.id, this.combine(top.record, top.record.parents.map((parent) => this.memo.get(parent) ?? EMPTY)));
    }
    return this.memo.get(id) ?? EMPTY;
  }
}
