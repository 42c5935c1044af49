/**
 * Adapters are how a dispatch reaches its target (spec §4.10 GET /v1/adapters).
 * RECONCILE writes the dispatch record first (the fact), then hands it to the
 * first registered adapter that accepts the target; plugins that run actors
 * (work loops) register theirs through the AdapterRegistry they inject. The
 * built-in `record` adapter accepts every target and is consulted last.
 */
import { token } from '../../../core/di/token.js';
import type { LoomRecord } from '../../../core/records/record.js';
import type { DispatchBudget, DispatchOrigin } from './dispatch-kinds.js';

export interface Dispatch {
  /** The dispatch record's id. */
  readonly id: string;
  readonly thread: string;
  readonly target: string;
  readonly goal: string;
  readonly parent_thread: string;
  readonly source: string | null;
  readonly namespace: string;
  readonly budget: DispatchBudget;
  readonly origin: DispatchOrigin;
  readonly record: LoomRecord;
}

export interface DispatchAdapter {
  /** Unique, kebab-case. */
  readonly name: string;
  readonly description: string;
  /** Whether this adapter delivers to `target`. */
  accepts(target: string): boolean;
  /**
   * Delivers the dispatch. Resolves once the target has it (not once the work
   * is done); throws to report a failed delivery, which closes the dispatch.
   * Runs inside one of RECONCILE's dispatch slots.
   */
  deliver(dispatch: Dispatch): Promise<void>;
}

export interface AdapterInfo {
  readonly name: string;
  readonly description: string;
  readonly owner: string;
  readonly fallback: boolean;
}

export class AdapterRegistry {
  private readonly adapters: Array<{ adapter: DispatchAdapter; owner: string }> = [];
  private fallback: { adapter: DispatchAdapter; owner: string } | null = null;

  register(adapter: DispatchAdapter, owner: string): void {
    if (!/^[a-z][a-z0-9-]*$/.test(adapter.name)) throw new Error(`adapter name ${JSON.stringify(adapter.name)} must be kebab-case`);
    if (this.adapters.some((a) => a.adapter.name === adapter.name) || this.fallback?.adapter.name === adapter.name) {
      throw new Error(`adapter ${adapter.name} of ${owner} is already registered`);
    }
    this.adapters.push({ adapter, owner });
  }

  /** The adapter consulted when no other accepts the target. */
  setFallback(adapter: DispatchAdapter, owner: string): void {
    this.fallback = { adapter, owner };
  }

  select(target: string): DispatchAdapter {
    for (const { adapter } of this.adapters) if (adapter.accepts(target)) return adapter;
    if (!this.fallback) throw new Error('no adapter accepts ' + target);
    return this.fallback.adapter;
  }

  list(): AdapterInfo[] {
    const listed = this.adapters.map(({ adapter, owner }) => ({ name: adapter.name, description: adapter.description, owner, fallback: false }));
    if (this.fallback) listed.push({ name: this.fallback.adapter.name, description: this.fallback.adapter.description, owner: this.fallback.owner, fallback: true });
    return listed;
  }
}

export const AdapterRegistryToken = token<AdapterRegistry>('rules.AdapterRegistry');

/** The built-in adapter: the dispatch record is the delivery; the target finds it by watching its threads or querying body.target. */
export const recordAdapter: DispatchAdapter = {
  name: 'record',
  description: 'Records the dispatch (a DO on the dispatch thread) for the target to pick up: query body.kind = core.dispatch.v1 and body.target = its DID, or watch the thread.',
  accepts: () => true,
  deliver: async () => {},
};
