/**
 * What each actor spent through the chat proxy today, and how many
 * exchanges it made: the proxy's half of the daily caps (the runs' half is
 * the run index). Kept in memory from the log — a consumer reads every
 * `core.work.proxy_response.v1` and `core.work.proxy_error.v1` from the
 * start at boot, as the run index does — and noted directly by the proxy
 * when it writes one, so the next request sees it at once; each record
 * counts once, by id, whichever comes first. Only the current UTC day is
 * kept.
 */
import type { LogConsumer } from '../../../core/engine/log-consumer.js';
import type { StoredRecord } from '../../../storage/contract/stored-record.js';

export const KIND_PROXY_REQUEST = 'core.work.proxy_request.v1';
export const KIND_PROXY_RESPONSE = 'core.work.proxy_response.v1';
export const KIND_PROXY_ERROR = 'core.work.proxy_error.v1';

const DAY_MS = 86_400_000;

interface Day {
  readonly start: number;
  readonly seen: Set<string>;
  readonly cost: Map<string, number>;
  readonly count: Map<string, number>;
}

export class ProxyUsage {
  private day: Day;

  constructor(private readonly clock: () => number) {
    this.day = this.fresh();
  }

  /** USD the actor's proxied exchanges cost today. */
  costToday(actor: string): number {
    return this.current().cost.get(actor) ?? 0;
  }

  /** Exchanges the actor made today (answered or failed at the provider). */
  countToday(actor: string): number {
    return this.current().count.get(actor) ?? 0;
  }

  /** Counts one outcome record (idempotent by id); records of another day are not kept. */
  note(id: string, actor: string, createdAt: number, costUsd: number): void {
    const day = this.current();
    if (createdAt < day.start || createdAt >= day.start + DAY_MS || day.seen.has(id)) return;
    day.seen.add(id);
    day.cost.set(actor, (day.cost.get(actor) ?? 0) + costUsd);
    day.count.set(actor, (day.count.get(actor) ?? 0) + 1);
  }

  consumer(): LogConsumer {
    return {
      name: 'proxy-usage',
      startAt: 'start',
      keepCheckpoint: false,
      wants: (record) => record.body['kind'] === KIND_PROXY_RESPONSE || record.body['kind'] === KIND_PROXY_ERROR,
      handle: async (records: readonly StoredRecord[]) => {
        for (const stored of records) {
          const kind = stored.record.body['kind'];
          if (kind !== KIND_PROXY_RESPONSE && kind !== KIND_PROXY_ERROR) continue;
          const cost = stored.record.body['cost_usd'];
          this.note(stored.record.id, stored.record.actor, stored.createdAt, typeof cost === 'number' && cost > 0 ? cost : 0);
        }
      },
    };
  }

  private current(): Day {
    const now = this.clock();
    if (now >= this.day.start + DAY_MS || now < this.day.start) this.day = this.fresh();
    return this.day;
  }

  private fresh(): Day {
    const now = this.clock();
    return { start: now - (now % DAY_MS), seen: new Set(), cost: new Map(), count: new Map() };
  }
}
