/**
 * The read side of runs (spec §4.7, §4.15): run rows out of the member_runs
 * index (evals/run-index-fold.ts), answered through the caller's read view.
 * A run whose thread the caller may not read whole does not exist for it,
 * so its row never leaks a tally of records the caller could not see. Any
 * writer of the run-record vocabulary produces runs these doors read: the
 * work loop later, an external agent runtime or a test today.
 */
import { threadVisibility } from '../../../core/access/restriction.js';
import type { Caller } from '../../../core/access/caller.js';
import { token } from '../../../core/di/token.js';
import type { Clock } from '../../../core/engine/clock.js';
import type { RecordReader } from '../../../core/engine/record-reader.js';
import { LoomError } from '../../../core/errors/loom-error.js';
import type { OwnFold } from '../../../core/plugin/own-fold.js';
import type { LoomRecord } from '../../../core/records/record.js';
import type { MemberService } from '../member-service.js';
import type { RunEntry, RunIndexState } from '../evals/run-index-fold.js';
import { runRowOf, stateOf, type RunRow, type RunState } from './run-row.js';

/** Runs read per list answer (spec §8: run list scan 2000). */
export const RUN_SCAN_CEILING = 2000;
/** Another scan ceiling, read per answer: bound by tests (test/members/runs.http.test.ts) so they need not write 2,000 runs. */
export const RunScanCeilingToken = token<() => number>('members.RunScanCeiling');

export const LIST_LIMIT_DEFAULT = 50;
export const LIST_LIMIT_MAX = 500;

export interface RunServiceDeps {
  readonly reader: Pick<RecordReader, 'restriction' | 'get'>;
  readonly members: Pick<MemberService, 'entry' | 'ownedBy'>;
  readonly runs: Pick<OwnFold<RunIndexState>, 'snapshot'>;
  readonly clock: Clock;
  readonly scanCeiling: () => number;
}

export interface RunQuery {
  readonly state?: RunState;
  readonly actor?: string;
  /** ISO time: runs started at or after it. */
  readonly since?: string;
  readonly limit?: number;
}

export interface RunPage {
  object: 'list';
  data: RunRow[];
  scan_ceiling: number;
  capped: boolean;
}

export interface ActorRunList {
  object: 'run_list';
  actor: string;
  count: number;
  truncated: boolean;
  data: RunRow[];
}

export interface RunProvenance {
  object: 'run_provenance';
  thread: string;
  definition: LoomRecord | null;
  prompt: LoomRecord | null;
  frame: LoomRecord | null;
}

export interface ActorUsage {
  object: 'actor_usage';
  actor: string;
  window_kind: 'daily';
  /** The UTC day counted (YYYY-MM-DD). */
  day: string;
  loop_count: number;
  input_tokens: number;
  output_tokens: number;
  cost_usd: number;
}

const DAY_MS = 86_400_000;

export class RunService {
  constructor(private readonly deps: RunServiceDeps) {}

  row(caller: Caller, thread: string): RunRow {
    const { state, watermark } = this.deps.runs.snapshot();
    const entry = state.runs.get(thread);
    if (!entry || !this.visible(caller, entry)) throw new LoomError('NOT_FOUND', `no run ${thread} that you may read is on record`);
    return this.rowOf(entry, watermark);
  }

  /** Newest first; reads at most the scan ceiling of runs, `capped` when it stopped there with older runs unread and the page not full. */
  list(caller: Caller, query: RunQuery): RunPage {
    const limit = query.limit ?? LIST_LIMIT_DEFAULT;
    const since = query.since === undefined ? null : Date.parse(query.since);
    if (since !== null && Number.isNaN(since)) throw new LoomError('INVALID_QUERY', `since must be an ISO 8601 time, got ${query.since}`);
    const { state, watermark } = this.deps.runs.snapshot();
    const order = state.order;
    const ceiling = this.deps.scanCeiling();
    const data: RunRow[] = [];
    let scanned = 0;
    let i = order.length - 1;
    for (; i >= 0 && data.length < limit && scanned < ceiling; i--, scanned++) {
      const entry = order[i]!;
      if (query.actor !== undefined && entry.actor !== query.actor) continue;
      if (query.state !== undefined && stateOf(entry) !== query.state) continue;
      if (since !== null && (entry.startedAt === null || entry.startedAt < since)) continue;
      if (!this.visible(caller, entry)) continue;
      data.push(this.rowOf(entry, watermark));
    }
    return { object: 'list', data, scan_ceiling: ceiling, capped: data.length < limit && i >= 0 };
  }

  /** The runs `did` executed, and those of the members it owns, newest first; the newest scan-ceiling of them, `truncated` past that. */
  actorRuns(caller: Caller, did: string): ActorRunList {
    const { state, watermark } = this.deps.runs.snapshot();
    const index = state.byActor;
    const lists = [index.get(did) ?? []];
    for (const member of this.deps.members.ownedBy(did)) if (member.did !== did) lists.push(index.get(member.did) ?? []);
    const all = lists.flat().sort((a, b) => b.sequence - a.sequence);
    const ceiling = this.deps.scanCeiling();
    const data = all.slice(0, ceiling).filter((entry) => this.visible(caller, entry)).map((entry) => this.rowOf(entry, watermark));
    return { object: 'run_list', actor: did, count: data.length, truncated: all.length > ceiling, data };
  }

  /** The records the run row names, each through the caller's view: one it may not read is null. */
  async provenance(caller: Caller, thread: string): Promise<RunProvenance> {
    const row = this.row(caller, thread);
    const read = async (id: string | null) => (id === null ? null : ((await this.deps.reader.get(caller, id))?.record ?? null));
    const [definition, prompt, frame] = await Promise.all([read(row.definition), read(row.prompt), read(row.frame)]);
    return { object: 'run_provenance', thread, definition, prompt, frame };
  }

  /** Runs `did` started today (UTC, by the injected clock) that the caller may read; zeros when none. */
  usage(caller: Caller, did: string): ActorUsage {
    const now = this.deps.clock();
    const dayStart = now - (now % DAY_MS);
    const usage: ActorUsage = { object: 'actor_usage', actor: did, window_kind: 'daily', day: new Date(dayStart).toISOString().slice(0, 10), loop_count: 0, input_tokens: 0, output_tokens: 0, cost_usd: 0 };
    const { state, watermark } = this.deps.runs.snapshot();
    const runs = state.byActor.get(did) ?? [];
    // Newest last: walk back until a run started before today (receipt times rise with the log).
    for (let i = runs.length - 1; i >= 0; i--) {
      const entry = runs[i]!;
      if (entry.startedAt === null || entry.startedAt < dayStart) break;
      if (entry.startedAt >= dayStart + DAY_MS || !this.visible(caller, entry)) continue;
      const row = this.rowOf(entry, watermark);
      usage.loop_count++;
      usage.input_tokens += entry.inputTokens;
      usage.output_tokens += entry.outputTokens;
      usage.cost_usd += row.spent_usd;
    }
    return usage;
  }

  private visible(caller: Caller, entry: RunEntry): boolean {
    return threadVisibility(this.deps.reader.restriction(caller), entry.thread) === 'all';
  }

  private rowOf(entry: RunEntry, watermark: number): RunRow {
    return runRowOf(entry, this.deps.members.entry(entry.actor)?.current.display_name ?? null, watermark);
  }
}

export const RunServiceToken = token<RunService>('members.RunService');
