/**
 * The scheduler: once a second (configurable) it fires the schedule triggers
 * whose next occurrence has come, and runs CRON's hourly and daily
 * maintenance when theirs has. Occurrences are computed with croner from the
 * last check, so a controlled clock drives it exactly. Occurrences missed
 * while the instance was down are not caught up: a schedule fires at its next
 * occurrence after start (docs/decisions.md).
 */
import { Cron } from 'croner';
import type { Logger } from '../../core/plugin/logger.js';
import { TH_ENGINE_CONFIG } from '../../core/records/reserved-threads.js';
import type { Entry } from '../../core/folds/config/config-topic.js';
import type { Dispatcher } from './dispatch/dispatcher.js';
import type { EngineTelemetry } from './engine-telemetry.js';
import type { MaintenanceRegistry } from './maintenance.js';
import type { TriggerGovernor } from './triggers/trigger-governor.js';
import type { CompiledTrigger } from './topics.js';

const HOURLY = new Cron('0 * * * *', { timezone: 'UTC', paused: true, mode: '5-part' });
const DAILY = new Cron('0 3 * * *', { timezone: 'UTC', paused: true, mode: '5-part' });

export interface SchedulerDependencies {
  readonly dispatcher: Dispatcher;
  readonly governor: TriggerGovernor;
  readonly maintenance: MaintenanceRegistry;
  readonly telemetry: EngineTelemetry;
  readonly log: Logger;
  readonly triggers: () => ReadonlyArray<Entry<CompiledTrigger>>;
  readonly now: () => number;
  readonly onError: (context: string, error: unknown) => void;
}

export class Scheduler {
  /** Per schedule trigger (name + schedule): when it was last checked. */
  private readonly checkedAt = new Map<string, number>();
  private cronCheckedAt: number;
  hourlyLastRunAt: string | null = null;
  dailyLastRunAt: string | null = null;

  constructor(private readonly deps: SchedulerDependencies) {
    this.cronCheckedAt = deps.now();
  }

  async step(): Promise<void> {
    const now = this.deps.now();
    await this.fireSchedules(now);
    const from = new Date(this.cronCheckedAt);
    this.cronCheckedAt = now;
    if ((HOURLY.nextRun(from)?.getTime() ?? Infinity) <= now) {
      this.hourlyLastRunAt = new Date(now).toISOString();
      await this.deps.maintenance.runAll('hourly', this.deps.now, this.deps.onError);
    }
    if ((DAILY.nextRun(from)?.getTime() ?? Infinity) <= now) {
      this.dailyLastRunAt = new Date(now).toISOString();
      await this.deps.maintenance.runAll('daily', this.deps.now, this.deps.onError);
    }
  }

  private async fireSchedules(now: number): Promise<void> {
    const seen = new Set<string>();
    for (const trigger of this.deps.triggers()) {
      if (trigger.cron === null || trigger.disabled) continue;
      const key = `${trigger.name}\u0000${trigger.schedule}\u0000${trigger.record_id}`;
      seen.add(key);
      const last = this.checkedAt.get(key);
      this.checkedAt.set(key, now);
      // A trigger seen for the first time starts counting now: it fires at its next occurrence.
      if (last === undefined) continue;
      const next = trigger.cron.nextRun(new Date(last));
      if (!next || next.getTime() > now) continue;
      await this.fire(trigger, next);
    }
    for (const key of this.checkedAt.keys()) if (!seen.has(key)) this.checkedAt.delete(key);
  }

  private async fire(trigger: Entry<CompiledTrigger>, occurrence: Date): Promise<void> {
    const job = {
      target: trigger.target,
      goal: trigger.goal,
      parentThread: TH_ENGINE_CONFIG,
      parentRecord: trigger.record_id,
      namespace: 'default',
      budget: { max_cost_usd: trigger.budget, max_duration_secs: trigger.timeout },
      origin: { type: 'trigger' as const, name: trigger.name },
      once: false,
    };
    if (this.deps.dispatcher.heldBy(job) !== null) {
      this.deps.telemetry.triggerSuppressions.held++;
      return;
    }
    const suppressed = this.deps.governor.admit(trigger);
    if (suppressed) {
      this.deps.telemetry.triggerSuppressions[suppressed]++;
      return;
    }
    this.deps.telemetry.triggerFirings++;
    this.deps.log.log('info', 'schedule trigger fired', { trigger: trigger.name, occurrence: occurrence.toISOString() });
    let released = false;
    await this.deps.dispatcher.enqueue(
      job,
      () => {},
      () => {
        if (released) return;
        released = true;
        this.deps.governor.settle(trigger.name);
      },
    );
  }
}
