/**
 * A critical section over the log's state, for check-then-write work (the
 * data plane's compare-and-swap on a namespace tree): with a log of its own,
 * a keyed lock in this process; with a shared log, also the store's lock for
 * the key (PostgreSQL: an advisory lock) so no other server runs the same
 * section meanwhile, and, once it is held, this server's bus caught up with
 * everything committed, so the check reads what the last holder wrote.
 */
import { token } from '../di/token.js';
import type { RecordStore } from '../../storage/contract/record-store.js';
import type { RecordBus } from './broadcast.js';
import { KeyedLock } from './keyed-lock.js';

export class LogCriticalSection {
  private readonly local = new KeyedLock();

  constructor(
    private readonly store: RecordStore,
    private readonly bus: RecordBus,
  ) {}

  run<T>(key: string, work: () => Promise<T>): Promise<T> {
    // The local queue first: one database connection per key, not one per waiting request.
    return this.local.run(key, () => {
      if (!this.store.capabilities.sharedLog || !this.store.withLock) return work();
      return this.store.withLock(key, async () => {
        await this.bus.caughtUp();
        return work();
      });
    });
  }
}

export const LogCriticalSectionToken = token<LogCriticalSection>('core.LogCriticalSection');
