/**
 * Group commit: appends that arrive while a batch is being written wait and
 * go together in the next batch, so 64 concurrent producers cost one
 * transaction per batch instead of 64. Conflicts inside a batch are resolved
 * exactly as if the records had arrived one by one: only the first record of
 * each id and of each (actor, thread, clock) slot reaches the driver; the
 * others take their answer from it.
 */
import { clockSlotKey, type AppendOutcome, type PreparedRecord } from './stored-record.js';

interface Pending {
  readonly prepared: PreparedRecord;
  readonly resolve: (outcome: AppendOutcome) => void;
  readonly reject: (error: unknown) => void;
}

/**
 * Writes the leaders of one batch; `slots[i]` is `clockSlotKey` of leader i,
 * made once here and handed on so the driver and the unapplied tail key their
 * maps by the same string (a fresh key costs its hashing again).
 */
export type WriteBatch = (leaders: PreparedRecord[], slots: readonly string[]) => Promise<AppendOutcome[]>;

export class GroupCommit {
  private queue: Pending[] = [];
  private running: Promise<void> | null = null;

  constructor(
    private readonly write: WriteBatch,
    /** Upper bound on records per storage batch. @default 2000 */
    private readonly maxBatch = 2000,
  ) {}

  submit(prepared: PreparedRecord): Promise<AppendOutcome> {
    return new Promise<AppendOutcome>((resolve, reject) => {
      this.queue.push({ prepared, resolve, reject });
      if (!this.running) this.running = this.drain();
    });
  }

  /** Resolves once everything submitted so far is written. */
  async flush(): Promise<void> {
    while (this.running) await this.running;
  }

  private async drain(): Promise<void> {
    // Yield once so callers arriving in the same tick join the first batch.
    await new Promise<void>((resolve) => setImmediate(resolve));
    try {
      while (this.queue.length > 0) {
        const batch = this.queue.splice(0, this.maxBatch);
        await this.writeBatch(batch);
      }
    } finally {
      this.running = null;
      if (this.queue.length > 0) this.running = this.drain();
    }
  }

  private async writeBatch(batch: Pending[]): Promise<void> {
    const leaders: PreparedRecord[] = [];
    const slots: string[] = [];
    // For each pending entry: index of its leader in `leaders`, and how it follows.
    const plan: Array<{ leader: number; relation: 'self' | 'follower' }> = [];
    const byId = new Map<string, number>();
    const bySlot = new Map<string, number>();
    for (const { prepared } of batch) {
      const id = prepared.record.id;
      const slot = clockSlotKey(prepared.record);
      const sameId = byId.get(id);
      if (sameId !== undefined) {
        plan.push({ leader: sameId, relation: 'follower' });
        continue;
      }
      const sameSlot = bySlot.get(slot);
      if (sameSlot !== undefined) {
        plan.push({ leader: sameSlot, relation: 'follower' });
        continue;
      }
      const index = leaders.push(prepared) - 1;
      slots.push(slot);
      byId.set(id, index);
      bySlot.set(slot, index);
      plan.push({ leader: index, relation: 'self' });
    }

    let outcomes: AppendOutcome[];
    try {
      outcomes = await this.write(leaders, slots);
      if (outcomes.length !== leaders.length) throw new Error(`driver returned ${outcomes.length} outcomes for ${leaders.length} records`);
    } catch (error) {
      for (const pending of batch) pending.reject(error);
      return;
    }

    batch.forEach((pending, i) => {
      const { leader, relation } = plan[i]!;
      const outcome = outcomes[leader]!;
      if (relation === 'self') return pending.resolve(outcome);
      // The record that holds the slot after the leader's write. A follower
      // shares the leader's slot, so it is either that very record (already
      // stored: an idempotent resend) or a rival of it (a clock conflict),
      // however it joined the batch.
      const holder = outcome.status === 'duplicate_clock' ? outcome.existing : outcome.stored;
      if (holder.record.id === pending.prepared.record.id) return pending.resolve({ status: 'exists', stored: holder });
      pending.resolve({ status: 'duplicate_clock', existing: holder });
    });
  }
}
