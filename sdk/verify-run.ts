/**
 * Verifiable runs: a run row (GET /v1/runs/{thread}, spec §2.6) is a fold
 * over the run thread's records, so a client need not trust the server's
 * tallies. `verifyRun` fetches the row, fetches the run thread's records up
 * to the row's `watermark`, recomputes the row with the same code the server
 * runs (the member_runs fold and runRowOf, both pure) and reports any
 * difference: turns, spend, tokens, tool calls ok and failed, outcome,
 * state, and every field copied from the opening and outcome records.
 *
 * Three fields do not come from the records and are taken from the server
 * as given (`not_recomputed`): `actor_name` (the member registry's display
 * name) and `started_at` / `ended_at` (receipt times, which the store
 * stamps and record pages do not carry).
 */
import type { FoldInput } from '../core/folds/fold.js';
import { memberRunsFold } from '../plugins/members/evals/run-index-fold.js';
import { runRowOf } from '../plugins/members/runs/run-row.js';
import type * as operations from './gen/sdk.gen.js';
import type { RunRow } from './gen/types.gen.js';
import { asJson, differences, FoldVerificationError, served, threadRecords, type FoldDifference } from './verify-fold.js';

/** The generated operations the run verifier calls (a LoomClient has them all). */
export type RunVerifierClient = Pick<typeof operations, 'getRun' | 'listRecords'>;

/** Row fields read from outside the run's records: compared as the server gives them. */
export const RUN_FIELDS_NOT_RECOMPUTED = ['actor_name', 'started_at', 'ended_at'] as const;

export interface VerifyRunOptions {
  /** Records per page. @default 1000 */
  readonly pageSize?: number;
  /** Differences reported at most. @default 50 */
  readonly maxDifferences?: number;
}

export interface RunVerification {
  /** True when the server's row equals the one recomputed from the records. */
  ok: boolean;
  thread: string;
  /** The row's watermark: the records read are the thread's up to it. */
  watermark: number;
  /** Records of the run thread the recomputation folded. */
  records: number;
  server_row: unknown;
  /** The recomputed row; null when the records hold no run on this thread. */
  local_row: unknown;
  /** Where the rows differ (JSON pointers, at most `maxDifferences`). */
  differences: FoldDifference[];
  /** Fields taken from the server's row as given. */
  not_recomputed: string[];
}

/**
 * Recomputes the run row of `thread` from its records and compares it with
 * the server's. Throws FoldVerificationError when it cannot compare (a
 * refusal, a row without a watermark, pages without sequences).
 */
export async function verifyRun(client: RunVerifierClient, thread: string, options: VerifyRunOptions = {}): Promise<RunVerification> {
  const pageSize = Math.min(Math.max(options.pageSize ?? 1000, 1), 1000);
  const row = served(`run ${thread}`, await client.getRun({ path: { thread } })) as RunRow;
  const watermark = (row as { watermark?: unknown }).watermark;
  if (typeof watermark !== 'number' || !Number.isSafeInteger(watermark)) {
    throw new FoldVerificationError(`run ${thread}: the row carries no watermark (the sequence it covers); this server's run rows cannot be verified`);
  }
  const inputs: FoldInput[] = await threadRecords(client, thread, watermark, pageSize);
  let state = memberRunsFold.initial(thread);
  for (const input of inputs) {
    // The server's global folds skip a record their code throws on; do the same.
    try {
      state = memberRunsFold.apply(state, input);
    } catch {
      continue;
    }
  }
  const entry = state.runs.get(thread);
  let local: unknown = null;
  if (entry) {
    const recomputed = runRowOf(entry, row.actor_name, watermark) as Record<string, unknown>;
    for (const field of RUN_FIELDS_NOT_RECOMPUTED) recomputed[field] = (row as Record<string, unknown>)[field];
    local = asJson(recomputed);
  }
  const server = asJson(row);
  const found: FoldDifference[] = [];
  differences(server, local, '', found, options.maxDifferences ?? 50);
  return { ok: found.length === 0, thread, watermark, records: inputs.length, server_row: server, local_row: local, differences: found, not_recomputed: [...RUN_FIELDS_NOT_RECOMPUTED] };
}
