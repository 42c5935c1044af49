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
import type { Ingestor } from '../../core/engine/ingest.js';
import { LoomError } from '../../core/errors/loom-error.js';
import type { LoomRecord } from '../../core/records/record.js';
import type { OriginStore, RecordOrigin } from './origin-store.js';

export interface ReceiveOutcome {
  readonly accepted: string[];
  readonly deduplicated: string[];
  readonly conflicts: Array<{ id: string; existing_id: string }>;
  readonly refused: Array<{ id: string; code: string; message: string }>;
  /** Index (into the input) of each accepted record, for latency accounting. */
  readonly acceptedIndexes: number[];
}

/**
 * The id of the record holding a DUPLICATE_CLOCK slot. Core puts it in
 * `details.existing_id` for callers that may read that record (this receiver
 * writes as SYSTEM, so it always may); older cores named it only in the
 * message, hence the fallback.
 */
function slotHolder(error: LoomError): string | null {
  const detail = error.details?.['existing_id'];
  if (typeof detail === 'string' && /^[0-9a-f]{64}$/.test(detail)) return detail;
  return /taken by record ([0-9a-f]{64})/.exec(error.message)?.[1] ?? null;
}

export class RecordReceiver {
  constructor(private readonly deps: { ingestor: Ingestor; origins: OriginStore; now: () => number }) {}

  /** `source` null: ordinary writes (unsigned pushes), no origin kept. */
  async receive(records: readonly LoomRecord[], context: IngestContext, source: Omit<RecordOrigin, 'received_at'> | null): Promise<ReceiveOutcome> {
    const outcome: ReceiveOutcome = { accepted: [], deduplicated: [], conflicts: [], refused: [], acceptedIndexes: [] };
    if (records.length === 0) return outcome;
    const results = await this.deps.ingestor.ingestMany(context, records);
    const receivedAt = new Date(this.deps.now()).toISOString();
    const origins: Array<readonly [string, RecordOrigin]> = [];
    for (let i = 0; i < results.length; i++) {
      const result = results[i]!;
      const claimed = typeof records[i]?.id === 'string' ? records[i]!.id : '';
      if (!(result instanceof LoomError)) {
        if (result.created) {
          outcome.accepted.push(result.stored.record.id);
          outcome.acceptedIndexes.push(i);
          if (source) origins.push([result.stored.record.id, { ...source, received_at: receivedAt }]);
        } else outcome.deduplicated.push(result.stored.record.id);
        continue;
      }
      const existing = result.code === 'DUPLICATE_CLOCK' ? slotHolder(result) : null;
      if (existing) {
        outcome.conflicts.push({ id: claimed, existing_id: existing });
        await this.deps.origins.putConflict({ record: records[i]!, existing_id: existing, origin: source?.origin ?? context.caller.principal ?? 'local', pair_id: source?.pair_id ?? null, received_at: receivedAt });
        continue;
      }
      outcome.refused.push({ id: claimed, code: result.code, message: result.message });
    }
    await this.deps.origins.putOrigins(origins);
    return outcome;
  }
}
