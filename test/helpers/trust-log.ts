/**
 * Test helper: a hand-built log of real (hashed, frozen) records as the fold
 * engine would pass them, with sequences and receipt times the test controls.
 */
import type { FoldInput } from '../../core/folds/fold.js';
import type { Act } from '../../core/records/acts.js';
import type { JsonObject } from '../../core/records/json.js';
import { computeRecordId } from '../../core/records/record-id.js';
import { makeRecord, type LoomRecord } from '../../core/records/record.js';

export const DAY_MS = 86_400_000;
export const T0 = Date.UTC(2025, 0, 1);
export const TASK_THREAD = 'th_' + 'c'.repeat(64);

export const did = (name: string): string => `did:sync:agent:${name}`;

export interface StoredInput extends FoldInput {
  readonly createdAt: number;
}

export class TrustLog {
  readonly inputs: StoredInput[] = [];
  /** Receipt time of the next record (ms). */
  time = T0;
  private readonly clocks = new Map<string, number>();

  add(actor: string, act: Act, body: JsonObject, options: { judged_by?: string | null; thread?: string; at?: number } = {}): LoomRecord {
    const thread = options.thread ?? TASK_THREAD;
    const slot = `${actor} ${thread}`;
    const clock = (this.clocks.get(slot) ?? -1) + 1;
    this.clocks.set(slot, clock);
    const fields = { parents: [], thread, actor, act, body, clock, data_type: 'SCALAR' as const, judged_by: options.judged_by ?? null };
    const record = makeRecord(computeRecordId(fields), fields);
    this.inputs.push({ sequence: this.inputs.length + 1, createdAt: options.at ?? this.time, record });
    return record;
  }

  intend(actor: string, body: JsonObject = {}): LoomRecord {
    return this.add(actor, 'INTEND', { task: true, goal: 'do the thing', ...body });
  }

  claim(actor: string, fulfills: string, body: JsonObject = {}): LoomRecord {
    return this.add(actor, 'KNOW', { fulfills, summary: 'done', ...body });
  }

  /** A verdict on `judged` (`judged_by` points at it; `fulfills` too unless given). */
  verdict(actor: string, judged: string, word: string, body: JsonObject = {}, options: { judged_by?: string | null; at?: number } = {}): LoomRecord {
    return this.add(actor, 'KNOW', { fulfills: judged, verdict: word, ...body }, { judged_by: options.judged_by === undefined ? judged : options.judged_by, at: options.at });
  }

  correction(actor: string, verdict: string, word: string, at?: number): LoomRecord {
    return this.add(actor, 'KNOW', { topic: 'correction', supersedes: verdict, verdict: word, reason: 'changed my mind' }, { at });
  }

  cancel(actor: string, verdict: string, at?: number): LoomRecord {
    return this.add(actor, 'DO', { cancels: verdict, reason: 'withdrawn' }, { at });
  }
}
