/**
 * Storing records that arrive from another instance, pulled or pushed. Core's
 * ingest recomputes every id from content (a record whose content does not
 * hash to its id is refused), and every ingest gate runs with `via:
 * 'federation'`, as for local writes. A resend of a stored record is a
 * replay, deduplicated by its content hash. A record whose (actor, thread,
 * clock) slot already holds a different local record is a conflict: it
 * cannot enter the log (the slot is unique) and it is never dropped
 * silently or allowed to overwrite the local one: it is quarantined with its
 * origin and the local record's id, counted, and listed in sync health.
 */
import type { IngestContext } from '../../core/access/ingest-gate.js';
import type { IngestResult, Ingestor } from '../../core/engine/ingest.js';
import { LoomError } from '../../core/errors/loom-error.js';
import type { LoomRecord } from '../../core/records/record.js';
import type { OriginStore, RecordOrigin } from './origin-store.js';

export interface ReceiveOutcome {
  readonly accepted: string[];
  readonly deduplicated: string[];
  readonly conflicts: Array<{ id: string; existing_id: string }>;
  readonly refused: Array<{ id: string; code: string; message: string }>;
  /** Records on this instance's own threads (its configuration, pairs, registry): never stored from a peer (local-records.ts). */
  readonly skipped: string[];
  /** Of the refused, the claimed ids whose content does not hash to them (tampered in transit, or forged). */
  readonly tampered: string[];
  /** Index (into the input) of each accepted record, for latency accounting. */
  readonly acceptedIndexes: number[];
  /** With `stopAtRefusal`: the index of the refused record that stopped it (it and every later one not stored), else null. */
  stoppedAt: number | null;
}

/**
 * The id of the record holding a DUPLICATE_CLOCK slot. Core puts it in
 * `details.existing_id` for callers that may read that record (this receiver
 * writes as SYSTEM, so it always may); older cores named it only in the
 * message, hence the fallback.
 */
export interface ReceiveOptions {
  /**
   * Store only the records before the first one core's checks or a gate
   * refuse, and nothing after it (a pull: its cursor must not pass a record
   * that was not stored). Conflicts the store decides (DUPLICATE_CLOCK,
   * quarantined; JUDGED_BY_CONFLICT) do not stop it. @default false
   */
  readonly stopAtRefusal?: boolean;
}

/** Lists a refusal; core's facts (not its message) say whether the content failed its own id. */
function refuse(outcome: ReceiveOutcome, id: string, error: LoomError): void {
  outcome.refused.push({ id, code: error.code, message: error.message });
  if (error.code === 'INVALID_SHAPE' && error.facts['reason'] === 'id_mismatch') outcome.tampered.push(id);
}

export class RecordReceiver {
  constructor(
    private readonly deps: {
      ingestor: Ingestor;
      origins: OriginStore;
      now: () => number;
      /** Records that describe this instance alone: a peer's are skipped, not stored (a peer's configuration is not this one's). */
      instanceLocal?: (record: LoomRecord) => boolean;
    },
  ) {}

  /** `source` null: ordinary writes (unsigned pushes), no origin kept. */
  async receive(records: readonly LoomRecord[], context: IngestContext, source: Omit<RecordOrigin, 'received_at'> | null, options: ReceiveOptions = {}): Promise<ReceiveOutcome> {
    const local = this.deps.instanceLocal;
    const isLocal = (record: LoomRecord) => local !== undefined && record !== null && typeof record === 'object' && local(record);
    if (context.via !== 'federation' || !records.some(isLocal)) return this.store(records, context, source, options);
    // Skipped records leave no gap a pull must wait on: the indexes the outcome names are the input's.
    const kept: LoomRecord[] = [];
    const inputIndex: number[] = [];
    const skipped: string[] = [];
    records.forEach((record, i) => {
      if (isLocal(record)) skipped.push(typeof record.id === 'string' ? record.id : '');
      else {
        kept.push(record);
        inputIndex.push(i);
      }
    });
    const outcome = await this.store(kept, context, source, options);
    return {
      ...outcome,
      skipped,
      acceptedIndexes: outcome.acceptedIndexes.map((i) => inputIndex[i]!),
      stoppedAt: outcome.stoppedAt === null ? null : inputIndex[outcome.stoppedAt]!,
    };
  }

  private async store(records: readonly LoomRecord[], context: IngestContext, source: Omit<RecordOrigin, 'received_at'> | null, options: ReceiveOptions): Promise<ReceiveOutcome> {
    const outcome: ReceiveOutcome = { accepted: [], deduplicated: [], conflicts: [], refused: [], tampered: [], skipped: [], acceptedIndexes: [], stoppedAt: null };
    if (records.length === 0) return outcome;
    if (!options.stopAtRefusal) {
      await this.settle(outcome, records, 0, await this.deps.ingestor.ingestMany(context, records), context, source);
      return outcome;
    }
    for (let offset = 0; offset < records.length; ) {
      const { results, refusal } = await this.deps.ingestor.ingestPrefix(context, records.slice(offset));
      await this.settle(outcome, records, offset, results, context, source);
      if (!refusal) break;
      if (results.length > 0) {
        // A record may depend on one before it in the same page (a namespace declared, then used), and a batch
        // prepares every record before storing any: try the refused one again now that its prefix is stored.
        offset += results.length;
        continue;
      }
      const refusedId = records[offset]?.id;
      refuse(outcome, typeof refusedId === 'string' ? refusedId : '', refusal);
      outcome.stoppedAt = offset;
      break;
    }
    return outcome;
  }

  /** Sorts ingest results (for `records[offset…]`) into the outcome and keeps origins and conflicts. */
  private async settle(outcome: ReceiveOutcome, records: readonly LoomRecord[], offset: number, results: ReadonlyArray<IngestResult | LoomError>, context: IngestContext, source: Omit<RecordOrigin, 'received_at'> | null): Promise<void> {
    const receivedAt = new Date(this.deps.now()).toISOString();
    const origins: Array<readonly [string, RecordOrigin]> = [];
    for (let j = 0; j < results.length; j++) {
      const i = offset + j;
      const result = results[j]!;
      const claimed = typeof records[i]?.id === 'string' ? records[i]!.id : '';
      if (!(result instanceof LoomError)) {
        if (result.created) {
          outcome.accepted.push(result.stored.record.id);
          outcome.acceptedIndexes.push(i);
          if (source) origins.push([result.stored.record.id, { ...source, received_at: receivedAt }]);
        } else outcome.deduplicated.push(result.stored.record.id);
        continue;
      }
      // Core names the record holding the slot as a fact to callers who may read it; federation writes as the system, which may.
      const existing = result.code === 'DUPLICATE_CLOCK' ? result.facts['existing_id'] : undefined;
      if (typeof existing === 'string') {
        outcome.conflicts.push({ id: claimed, existing_id: existing });
        await this.deps.origins.putConflict({ record: records[i]!, existing_id: existing, origin: source?.origin ?? context.caller.principal ?? 'local', pair_id: source?.pair_id ?? null, received_at: receivedAt });
        continue;
      }
      refuse(outcome, claimed, result);
    }
    await this.deps.origins.putOrigins(origins);
  }
}
