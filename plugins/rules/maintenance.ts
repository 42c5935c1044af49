/**
 * CRON's maintenance jobs (spec §1): hourly ones at minute 0, daily ones at
 * 03:00 UTC. Plugins add jobs through the MaintenanceRegistry they inject
 * (expiries, sweeps); the rules plugin contributes storage optimisation when
 * the driver offers it. A failing job is logged and reported in engine
 * health; the others still run.
 */
import { token } from '../../core/di/token.js';

export type Cadence = 'hourly' | 'daily';

export interface MaintenanceJob {
  /** `<plugin>.<job>`. */
  readonly name: string;
  readonly cadence: Cadence;
  readonly description: string;
  /** Resolves with a short summary for the log and health. */
  run(): Promise<string | void>;
}

export interface MaintenanceRun {
  readonly name: string;
  readonly cadence: Cadence;
  readonly last_run_at: string | null;
  readonly last_duration_ms: number | null;
  readonly last_result: string | null;
  readonly last_error: string | null;
  readonly runs: number;
}

export class MaintenanceRegistry {
  private readonly jobs = new Map<string, { job: MaintenanceJob; owner: string; run: MaintenanceRun }>();

  register(job: MaintenanceJob, owner: string): void {
    if (this.jobs.has(job.name)) throw new Error(`maintenance job ${job.name} of ${owner} is already registered`);
    this.jobs.set(job.name, { job, owner, run: { name: job.name, cadence: job.cadence, last_run_at: null, last_duration_ms: null, last_result: null, last_error: null, runs: 0 } });
  }

  /** Runs every job of the cadence in turn; never throws. */
  async runAll(cadence: Cadence, now: () => number, onError: (context: string, error: unknown) => void): Promise<void> {
    for (const slot of this.jobs.values()) {
      if (slot.job.cadence !== cadence) continue;
      const started = Date.now();
      let result: string | null = null;
      let failure: string | null = null;
      try {
        result = (await slot.job.run()) ?? null;
      } catch (error) {
        failure = error instanceof Error ? error.message : String(error);
        onError(`maintenance job ${slot.job.name} failed`, error);
      }
      slot.run = { ...slot.run, last_run_at: new Date(now()).toISOString(), last_duration_ms: Date.now() - started, last_result: result, last_error: failure, runs: slot.run.runs + 1 };
    }
  }

  list(): MaintenanceRun[] {
    return [...this.jobs.values()].map(({ run }) => ({ ...run }));
  }
}

export const MaintenanceRegistryToken = token<MaintenanceRegistry>('rules.MaintenanceRegistry');
