/**
 * The federation pairs' steps on the log: writes them (as this instance, on
 * `th_federation_pairs`, through the record writer) and reads the pair table
 * the fold keeps. Changes to pairs run one at a time (`exclusive`), so an
 * approve and a revoke of the same pair, or two polls answered at once,
 * never interleave their steps.
 */
import { SYSTEM } from '../../../core/access/caller.js';
import type { RecordWriter } from '../../../core/engine/record-writer.js';
import { LoomError } from '../../../core/errors/loom-error.js';
import type { JsonObject } from '../../../core/records/json.js';
import { TH_FEDERATION_PAIRS } from '../../../core/records/reserved-threads.js';
import { FEDERATION_PLUGIN } from '../sync-service.js';
import type { FederationPair, FederationPairTable } from './federation-pair-records.js';

export class PairLog {
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly writer: RecordWriter,
    private readonly table: () => FederationPairTable,
    readonly instanceDid: string,
    private readonly now: () => number,
  ) {}

  get nonces(): ReadonlySet<string> {
    return this.table().nonces;
  }

  find(pairId: string): FederationPair | undefined {
    return this.table().pairs.get(pairId);
  }

  get(pairId: string): FederationPair {
    const pair = this.find(pairId);
    if (!pair) throw new LoomError('PAIR_NOT_FOUND', `no federation pair ${JSON.stringify(pairId)} on this instance`);
    return pair;
  }

  all(): FederationPair[] {
    return [...this.table().pairs.values()];
  }

  exclusive<T>(work: () => Promise<T>): Promise<T> {
    const run = this.queue.then(work, work);
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** One step, written by the instance; the fold has it when this resolves. */
  async write(body: JsonObject): Promise<void> {
    await this.writer.appendAs(SYSTEM, {
      via: 'api',
      thread: TH_FEDERATION_PAIRS,
      act: 'LEARN',
      actor: this.instanceDid,
      plugin: FEDERATION_PLUGIN,
      body: { ...body, at: new Date(this.now()).toISOString() },
    });
  }
}
