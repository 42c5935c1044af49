/**
 * Records that never leave this instance: the federation control threads,
 * the member registry, and whatever other plugins declare theirs (a
 * member's memories are its own instance's). The changes feed withholds
 * them and fetch-by-id answers them missing; the declaring plugin's gate
 * refuses such records arriving from a peer, so one instance never speaks
 * for another's members. A plugin declares through LocalRecordsToken (an
 * optional dependency on federation).
 */
import { token } from '../../core/di/token.js';
import type { LoomRecord } from '../../core/records/record.js';

export class LocalRecords {
  private readonly threads: Set<string>;
  private readonly rules: Array<{ readonly name: string; readonly test: (record: LoomRecord) => boolean }> = [];

  constructor(threads: Iterable<string>) {
    this.threads = new Set(threads);
  }

  /** Records for which `test` holds stay here (`name`: the declaring plugin and what, for logs). */
  keep(name: string, test: (record: LoomRecord) => boolean): void {
    this.rules.push({ name, test });
  }

  has(record: LoomRecord): boolean {
    if (this.threads.has(record.thread)) return true;
    for (const rule of this.rules) if (rule.test(record)) return true;
    return false;
  }
}

export const LocalRecordsToken = token<LocalRecords>('federation.LocalRecords');
