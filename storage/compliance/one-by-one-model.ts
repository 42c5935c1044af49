/**
 * The meaning of "resolved exactly as if they arrived one by one": a
 * sequential model of the append rules that the append suite holds every
 * concurrent outcome against.
 */
import { expect } from 'chai';
import { clockSlotKey, type AppendOutcome, type PreparedRecord, type StoredRecord } from '../contract/stored-record.js';

export interface ExpectedOutcome {
  readonly status: AppendOutcome['status'];
  /** The record the outcome must carry: itself when inserted, else the one holding its id or slot. */
  readonly holderId: string;
}

export class OneByOneModel {
  private readonly byId = new Set<string>();
  private readonly bySlot = new Map<string, string>();
  /** Ids in the order they were inserted: the order of their sequences. */
  readonly inserted: string[] = [];

  apply(prepared: PreparedRecord): ExpectedOutcome {
    const id = prepared.record.id;
    if (this.byId.has(id)) return { status: 'exists', holderId: id };
    const slot = clockSlotKey(prepared.record);
    const holder = this.bySlot.get(slot);
    if (holder !== undefined) return { status: 'duplicate_clock', holderId: holder };
    this.byId.add(id);
    this.bySlot.set(slot, id);
    this.inserted.push(id);
    return { status: 'inserted', holderId: id };
  }
}

/** The stored record an outcome points at. */
export function holderOf(outcome: AppendOutcome): StoredRecord {
  return outcome.status === 'duplicate_clock' ? outcome.existing : outcome.stored;
}

/**
 * Checks outcomes against the model's expectations. `known` maps ids stored
 * earlier to their stored form and is extended with new inserts, so every
 * exists/duplicate_clock answer must name the holder's original sequence.
 */
export function expectOutcomes(
  outcomes: readonly AppendOutcome[],
  expected: readonly ExpectedOutcome[],
  known: Map<string, StoredRecord>,
  describeEntry: (index: number) => string,
): void {
  expect(outcomes.length).to.equal(expected.length);
  outcomes.forEach((outcome, i) => {
    const want = expected[i]!;
    const where = describeEntry(i);
    expect(outcome.status, `${where}: status`).to.equal(want.status);
    const holder = holderOf(outcome);
    expect(holder.record.id, `${where}: record carried by the outcome`).to.equal(want.holderId);
    if (want.status === 'inserted') {
      known.set(holder.record.id, holder);
      return;
    }
    const original = known.get(want.holderId);
    expect(original, `${where}: holder was stored before`).to.not.equal(undefined);
    expect(holder.sequence, `${where}: holder keeps its sequence`).to.equal(original!.sequence);
    expect(holder.createdAt, `${where}: holder keeps its receipt time`).to.equal(original!.createdAt);
  });
}
