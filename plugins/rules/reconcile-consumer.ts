/**
 * RECONCILE (spec §1, §6.1): a log consumer (core/engine/log-consumer.ts) on
 * the leader of a shared log. It routes each record by the routing rules
 * (priority order, first match wins), fires the event triggers whose pattern
 * it matches, and hands the resulting dispatch jobs to the Dispatcher
 * (bounded queue, at most `concurrency` dispatches in flight: enqueueing
 * waits for room, so a full queue holds the consumer back).
 *
 * Skipped: records on system threads (the kernel's one rule), records with
 * `body.dispatch_handled: true` (dispatches, drift notes), and records by the
 * instance's own components (DIDs under did:sync:system:loom-). Routing also
 * skips records that fulfil or cancel something.
 *
 * Restarts: the kernel keeps the checkpoint, held back by `settledThrough`
 * to the sequence below which every record's dispatches are settled, so a
 * record still queued at a stop or a crash is read again; a record handled
 * again is not dispatched twice for the same rule or trigger (the dispatches
 * fold remembers sources). The first start begins at the head of the log.
 */
import type { ConsumerHandle, LogConsumer } from '../../core/engine/log-consumer.js';
import type { Config } from '../../core/folds/config/config-topic.js';
import type { Logger } from '../../core/plugin/logger.js';
import type { LoomRecord } from '../../core/records/record.js';
import { namespaceOf, type StoredRecord } from '../../storage/contract/stored-record.js';
import { routingActivation } from './cel/cel-environments.js';
import { evaluateCondition, type CompiledExpression, type ExpressionCache } from './cel/expression-cache.js';
import { DEFAULT_BUDGET, INSTANCE_COMPONENT_PREFIX } from './dispatch/dispatch-kinds.js';
import type { Dispatcher, DispatchJob } from './dispatch/dispatcher.js';
import type { EngineTelemetry } from './engine-telemetry.js';
import type { TriggerGovernor } from './triggers/trigger-governor.js';
import type { TriggerLineage } from './triggers/trigger-lineage.js';
import { matchesPattern } from './triggers/match-pattern.js';
import type { CompiledTrigger, RoutingRule } from './topics.js';
import type { ConfigTopic } from '../../core/folds/config/config-topic.js';

export interface ReconcileDependencies {
  readonly config: Config;
  readonly cache: ExpressionCache;
  readonly dispatcher: Dispatcher;
  readonly governor: TriggerGovernor;
  readonly lineage: TriggerLineage;
  readonly telemetry: EngineTelemetry;
  readonly log: Logger;
  readonly routingTopic: ConfigTopic<RoutingRule>;
  readonly triggers: () => readonly CompiledTrigger[];
  readonly now: () => number;
}

/** Whether RECONCILE looks at the record at all (system threads never reach it). */
export function reconcileSkips(record: LoomRecord): boolean {
  return record.body['dispatch_handled'] === true || record.actor.startsWith(INSTANCE_COMPONENT_PREFIX);
}

export class ReconcileConsumer implements LogConsumer {
  readonly name = 'reconcile';
  readonly leaderOnly = true;
  readonly startAt = 'head';
  readonly batchSize = 1000;
  private routing: Array<{ rule: RoutingRule; program: CompiledExpression }> | null = null;
  /** Sequence -> dispatch jobs of that record not yet settled. */
  private readonly pending = new Map<number, number>();
  private consumer: ConsumerHandle | null = null;
  considered = 0;
  routed = 0;

  constructor(private readonly deps: ReconcileDependencies) {}

  /** The kernel's handle, once contributed (scope.consume). */
  attach(handle: ConsumerHandle): void {
    this.consumer = handle;
  }

  invalidateRules(): void {
    this.routing = null;
  }

  private orderedRouting(): Array<{ rule: RoutingRule; program: CompiledExpression }> {
    this.routing ??= Object.values(this.deps.config.keyed(this.deps.routingTopic))
      .filter((rule) => rule.enabled)
      .sort((a, b) => b.priority - a.priority || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
      .map((rule) => ({ rule, program: this.deps.cache.compile('routing', rule.expression) }));
    return this.routing;
  }

  start(): void {
    this.deps.dispatcher.start();
  }

  /** Queued work stays undone; the checkpoint holds before it, so it is read again by the next run. */
  async stop(): Promise<void> {
    await this.deps.dispatcher.stop();
  }

  async handle(records: readonly StoredRecord[]): Promise<void> {
    for (const stored of records) {
      this.deps.lineage.observe(stored.record);
      try {
        await this.consider(stored);
      } catch (error) {
        // Not retried: one record RECONCILE cannot handle must not hold the log back.
        this.deps.telemetry.error('reconcile failed on a record', error);
        this.deps.log.log('error', 'reconcile failed on a record', { sequence: stored.sequence, error: error instanceof Error ? error.message : String(error) });
      }
    }
  }

  settledThrough(handled: number): number {
    let lowest = Infinity;
    for (const sequence of this.pending.keys()) lowest = Math.min(lowest, sequence);
    return lowest === Infinity ? handled : Math.min(handled, lowest - 1);
  }

  /** Every record at or below this sequence is fully handled. */
  checkpoint(): number {
    return this.settledThrough(this.consumer?.cursor ?? 0);
  }

  private async consider(stored: StoredRecord): Promise<void> {
    const { record, sequence } = stored;
    if (reconcileSkips(record)) return;
    this.considered++;
    const namespace = namespaceOf(record);
    const jobs: Array<{ job: DispatchJob; trigger: string | null }> = [];
    const routed = this.route(record, namespace);
    if (routed) jobs.push({ job: routed, trigger: null });
    for (const trigger of this.deps.triggers()) {
      if (trigger.disabled || trigger.pattern === null || !matchesPattern(trigger.pattern, record, namespace)) continue;
      const lineage = await this.deps.lineage.ancestorsOf(record);
      if (lineage?.has(trigger.name)) {
        this.deps.telemetry.triggerSuppressions.causal_chain++;
        continue;
      }
      const job: DispatchJob = {
        target: trigger.target,
        goal: trigger.goal,
        parentThread: record.thread,
        parentRecord: record.id,
        namespace,
        budget: { max_cost_usd: trigger.budget, max_duration_secs: trigger.timeout },
        origin: { type: 'trigger', name: trigger.name },
      };
      if (this.deps.dispatcher.alreadyDispatched(record.id, job.origin)) continue;
      if (this.deps.dispatcher.heldBy(job) !== null) {
        this.deps.telemetry.triggerSuppressions.held++;
        continue;
      }
      const suppressed = this.deps.governor.admit(trigger);
      if (suppressed) {
        this.deps.telemetry.triggerSuppressions[suppressed]++;
        continue;
      }
      this.deps.telemetry.triggerFirings++;
      jobs.push({ job, trigger: trigger.name });
    }
    for (const { job, trigger } of jobs) {
      this.pending.set(sequence, (this.pending.get(sequence) ?? 0) + 1);
      let released = false;
      await this.deps.dispatcher.enqueue(
        job,
        () => {
          const left = (this.pending.get(sequence) ?? 1) - 1;
          if (left <= 0) this.pending.delete(sequence);
          else this.pending.set(sequence, left);
        },
        () => {
          // Once the dispatch record is in the fold it counts as an open firing itself; release the reservation exactly once.
          if (trigger === null || released) return;
          released = true;
          this.deps.governor.settle(trigger);
        },
      );
    }
  }

  private route(record: LoomRecord, namespace: string): DispatchJob | null {
    if (record.body['fulfills'] !== undefined || record.body['cancels'] !== undefined) return null;
    const rules = this.orderedRouting();
    if (rules.length === 0) return null;
    const activation = routingActivation(record, namespace, new Date(this.deps.now()));
    for (const { rule, program } of rules) {
      let holds: boolean;
      this.deps.cache.countHit();
      try {
        holds = evaluateCondition(program, activation);
      } catch (error) {
        // Routing is not a gate: a rule that cannot be evaluated on this record is skipped, and said so.
        this.deps.telemetry.routingEvaluationErrors++;
        this.deps.log.log('warn', 'routing rule skipped: evaluation failed', { rule: rule.name, record: record.id, error: error instanceof Error ? error.message.split('\n')[0] : String(error) });
        continue;
      }
      if (!holds) continue;
      const origin = { type: 'rule' as const, name: rule.name };
      if (this.deps.dispatcher.alreadyDispatched(record.id, origin)) return null;
      this.routed++;
      return {
        target: rule.target,
        goal: rule.goal ?? `handle ${record.act} ${record.id} on ${record.thread} (routing rule ${rule.name})`,
        parentThread: record.thread,
        parentRecord: record.id,
        namespace,
        budget: DEFAULT_BUDGET,
        origin,
      };
    }
    return null;
  }
}
