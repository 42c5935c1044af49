/**
 * Records that never leave this instance: the instance's own reserved
 * threads (its configuration, fleet control and heartbeats, instance chrome,
 * the federation control threads, the member registry), and whatever other
 * plugins declare theirs (a member's memories are its own instance's). The
 * changes feed withholds them and fetch-by-id answers them missing.
 *
 * Arriving from a peer, a record on one of those threads is skipped by the
 * receiver (never stored, never folded), so a peer's configuration cannot
 * become this instance's: before this was kept, a peer's `federation.relay`
 * record, pulled with its log, replaced the receiver's own. Records a plugin
 * declares with `keep` are refused by that plugin's gate instead, so one
 * instance never speaks for another's members. A plugin declares through
 * LocalRecordsToken (an optional dependency on federation).
 */
import { token } from '../../core/di/token.js';
import type { LoomRecord } from '../../core/records/record.js';
import { TH_ACTOR_REGISTRY, TH_CONSENT, TH_ENGINE_CONFIG, TH_FEDERATION_PAIRS, TH_FLEET_CONTROL, TH_INSTANCE_REGISTRY } from '../../core/records/reserved-threads.js';

/**
 * The reserved threads that describe this instance alone. The namespace
 * registry is not one: a namespace declared on the peer travels with the
 * records that use it.
 */
export const INSTANCE_LOCAL_THREADS: readonly string[] = [TH_ENGINE_CONFIG, TH_FLEET_CONTROL, TH_INSTANCE_REGISTRY, TH_CONSENT, TH_FEDERATION_PAIRS, TH_ACTOR_REGISTRY];

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

  /** True for a thread that stays here whole (a peer's records on it are skipped on arrival). */
  hasThread(thread: string): boolean {
    return this.threads.has(thread);
  }

  has(record: LoomRecord): boolean {
    if (this.threads.has(record.thread)) return true;
    for (const rule of this.rules) if (rule.test(record)) return true;
    return false;
  }
}

export const LocalRecordsToken = token<LocalRecords>('federation.LocalRecords');
