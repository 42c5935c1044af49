/**
 * The federation plugin's service: the sync pair registry (the fold of the
 * lifecycle records on `th_federation_pairs`, pair-registry-fold.ts), the
 * pairs' runners (on one server of a log, pair-runners.ts), the changes
 * feed, the receiver of pushed records, and the health and stats views.
 * Routes call it. Every change to a pair is a lifecycle record, so it
 * reaches the server running the pair whichever server answered the route.
 */
import type { LocalRecords } from './local-records.js';
import { randomBytes } from 'node:crypto';
import { actingDid, SYSTEM, type Caller } from '../../core/access/caller.js';
import type { RecordWriter } from '../../core/engine/record-writer.js';
import type { RecordReader } from '../../core/engine/record-reader.js';
import { LoomError } from '../../core/errors/loom-error.js';
import type { Logger } from '../../core/plugin/logger.js';
import { TH_FEDERATION_PAIRS } from '../../core/records/reserved-threads.js';
import type { JsonObject } from '../../core/records/json.js';
import type { ChangesFeed } from './changes-feed.js';
import type { ConsentIndex } from './consent/consent-index.js';
import type { PageSigner } from './sync-page.js';
import type { FederationOptions } from './config.js';
import type { OriginStore } from './origin-store.js';
import { PAIR_KIND, type PairEntry, type PairMode, type PairSettings } from './pair-records.js';
import type { PairKeeping } from './pair-keeping.js';
import type { PairRegistry } from './pair-registry-fold.js';
import { PairRunner, type PairState } from './pair-runner.js';
import type { PairRunners } from './pair-runners.js';
import type { RecordReceiver } from './record-receiver.js';
import { LATENCY_BUCKETS_MS, roundMs, SyncCounters } from './sync-metrics.js';

export const FEDERATION_PLUGIN = 'federation';

export interface SyncServiceDeps {
  readonly writer: RecordWriter;
  readonly reader: RecordReader;
  readonly files: PairKeeping;
  /** The registry fold's live state. */
  readonly registry: () => PairRegistry;
  readonly runners: PairRunners;
  /** Several servers serve this log: a pair may run on another one. */
  readonly sharedLog: boolean;
  readonly receiver: RecordReceiver;
  readonly origins: OriginStore;
  readonly feed: ChangesFeed;
  readonly options: FederationOptions;
  readonly log: Logger;
  readonly instanceDid: string;
  readonly consent: ConsentIndex;
  readonly signer: PageSigner;
  /** Records that never leave this instance. */
  readonly localThreads: LocalRecords;
  readonly now: () => number;
}

export interface CreatePairInput {
  readonly peer_did: string;
  readonly peer_url: string;
  readonly thread_id?: string | null;
  readonly target_namespace?: string;
  readonly mode?: PairMode;
  readonly poll_interval_ms?: number;
  readonly peer_token: string;
  /** A federation pair's own sync pair id (handshake/handshake-bodies.ts syncPairIdOf); random otherwise. */
  readonly pair_id?: string;
}

export class SyncService {
  /** Pair creations under way (counted against maxPairs). */
  private creating = 0;
  readonly counters = new SyncCounters();

  constructor(private readonly deps: SyncServiceDeps) {}

  get feed(): ChangesFeed {
    return this.deps.feed;
  }

  get reader(): RecordReader {
    return this.deps.reader;
  }

  get consent(): ConsentIndex {
    return this.deps.consent;
  }

  get signer(): PageSigner {
    return this.deps.signer;
  }

  get localThreads(): LocalRecords {
    return this.deps.localThreads;
  }

  get receiver(): RecordReceiver {
    return this.deps.receiver;
  }

  get origins(): OriginStore {
    return this.deps.origins;
  }

  /** Loads the pairs' secrets and cursors (the runners start with the engine's loops). */
  async start(): Promise<void> {
    await this.deps.files.load();
  }

  async stop(): Promise<void> {
    await this.deps.files.close();
  }

  /**
   * The pair's runner on this server, or (the pair runs on another server of
   * a shared log, or not yet) a runner that never starts: its settings and
   * saved cursor, no live counters.
   */
  private async runnerView(entry: PairEntry): Promise<PairRunner> {
    const running = this.deps.runners.runner(entry.pair_id);
    if (running) return running;
    await this.deps.files.refresh(entry.pair_id);
    return this.idleRunner(entry);
  }

  private idleRunner(entry: PairEntry): PairRunner {
    return new PairRunner(entry, { files: this.deps.files, receiver: this.deps.receiver, options: this.deps.options, log: this.deps.log, now: this.deps.now });
  }

  private entry(id: string): PairEntry {
    const entry = this.deps.registry().get(id);
    if (!entry) throw new LoomError('PAIR_NOT_FOUND', `no sync pair ${JSON.stringify(id)} on this instance`);
    return entry;
  }

  /** Every pair's runner as health and stats read it (an idle one where the pair runs elsewhere). */
  private allRunners(): PairRunner[] {
    return [...this.deps.registry().values()].map((entry) => this.deps.runners.runner(entry.pair_id) ?? this.idleRunner(entry));
  }

  private async writeLifecycle(caller: Caller, body: JsonObject): Promise<void> {
    // Written by the instance (the caller may hold only federation:manage), naming who acted.
    await this.deps.writer.appendAs(SYSTEM, {
      via: 'api',
      thread: TH_FEDERATION_PAIRS,
      act: 'LEARN',
      actor: this.deps.instanceDid,
      plugin: FEDERATION_PLUGIN,
      body: { kind: PAIR_KIND, ...body, by: actingDid(caller) },
    });
  }

  /** A warning when the pair would sync this instance with itself (spec §4.13). */
  private loopbackWarning(input: CreatePairInput): string | undefined {
    if (input.peer_did === this.deps.instanceDid) return `peer_did is this instance's own DID: the pair would pull this instance's records back into itself`;
    const base = this.deps.options.baseUrl;
    if (base && input.peer_url.replace(/\/+$/, '') === base.replace(/\/+$/, '')) return `peer_url is this instance's own base URL`;
    return undefined;
  }

  /** PAIR_LIMIT_REACHED when one more pair would pass maxPairs (the handshake asks before it mints tokens). */
  ensureRoom(): void {
    const { maxPairs } = this.deps.options;
    if (this.deps.registry().size + this.creating >= maxPairs) {
      throw new LoomError('PAIR_LIMIT_REACHED', `this instance already holds ${maxPairs} sync pairs, its limit (federation option maxPairs); delete one before creating another`);
    }
  }

  async create(caller: Caller, input: CreatePairInput): Promise<{ pair: ReturnType<SyncService['view']>; warning?: string }> {
    // Creations still writing their lifecycle record hold a place, so concurrent requests cannot overshoot the cap together.
    this.ensureRoom();
    this.creating++;
    try {
      return await this.createPair(caller, input);
    } finally {
      this.creating--;
    }
  }

  private async createPair(caller: Caller, input: CreatePairInput): Promise<{ pair: ReturnType<SyncService['view']>; warning?: string }> {
    const settings: PairSettings = {
      pair_id: input.pair_id ?? `sp_${randomBytes(12).toString('hex')}`,
      peer_did: input.peer_did,
      peer_url: input.peer_url.replace(/\/+$/, ''),
      thread_id: input.thread_id ?? null,
      target_namespace: input.target_namespace ?? 'default',
      mode: input.mode ?? 'continuous',
      poll_interval_ms: input.poll_interval_ms ?? this.deps.options.pollIntervalMs,
      created_at: new Date(this.deps.now()).toISOString(),
    };
    await this.deps.files.setSecret(settings.pair_id, input.peer_token);
    try {
      await this.writeLifecycle(caller, { event: 'created', pair_id: settings.pair_id, pair: settings as unknown as JsonObject });
    } catch (error) {
      await this.deps.files.setSecret(settings.pair_id, null);
      throw error;
    }
    // The registry fold has the pair now; its runner starts on whichever server runs the pairs.
    const runner = await this.runnerView(this.entry(settings.pair_id));
    const warning = this.loopbackWarning(input);
    return warning ? { pair: this.view(runner), warning } : { pair: this.view(runner) };
  }

  async list(): Promise<Array<ReturnType<SyncService['view']>>> {
    const runners = await Promise.all([...this.deps.registry().values()].map((entry) => this.runnerView(entry)));
    return runners.map((runner) => this.view(runner));
  }

  async get(id: string): Promise<ReturnType<SyncService['view']>> {
    return this.view(await this.runnerView(this.entry(id)));
  }

  async pause(caller: Caller, id: string): Promise<ReturnType<SyncService['view']>> {
    // The record pauses the runner (pair-runners.ts), on this server or the one running the pair.
    if (!this.entry(id).paused) await this.writeLifecycle(caller, { event: 'paused', pair_id: id });
    await this.deps.files.flush();
    return this.get(id);
  }

  async resume(caller: Caller, id: string): Promise<ReturnType<SyncService['view']>> {
    if (this.entry(id).paused) await this.writeLifecycle(caller, { event: 'resumed', pair_id: id });
    return this.get(id);
  }

  /** A new mode or poll interval; the runner takes it at once (pair-runners.ts). */
  async update(caller: Caller, id: string, change: { readonly mode?: PairMode; readonly poll_interval_ms?: number }): Promise<ReturnType<SyncService['view']>> {
    const entry = this.entry(id);
    const mode = change.mode ?? entry.mode;
    const interval = change.poll_interval_ms ?? entry.poll_interval_ms;
    if (mode !== entry.mode || interval !== entry.poll_interval_ms) await this.writeLifecycle(caller, { event: 'updated', pair_id: id, mode, poll_interval_ms: interval });
    return this.get(id);
  }

  /** The live view of a pair when it exists (a federation pair's status), null otherwise. */
  async find(id: string): Promise<ReturnType<SyncService['view']> | null> {
    return this.deps.registry().has(id) ? this.get(id) : null;
  }

  async kick(caller: Caller, id: string): Promise<ReturnType<SyncService['view']>> {
    const entry = this.entry(id);
    const runner = this.deps.runners.runner(id);
    if (runner) runner.kick();
    // The pair runs on another server of the log: the kick reaches it as a record.
    else if (this.deps.sharedLog) await this.writeLifecycle(caller, { event: 'kicked', pair_id: id });
    return this.view(runner ?? (await this.runnerView(entry)));
  }

  async remove(caller: Caller, id: string): Promise<void> {
    this.entry(id);
    await this.writeLifecycle(caller, { event: 'deleted', pair_id: id });
    // A runner on this server stops now; one on another server stops when the record reaches it (and clears the same values).
    await this.deps.runners.settled();
    await this.deps.files.setSecret(id, null);
    this.deps.files.setCursor(id, null);
    await this.deps.files.flush();
  }

  /** Removes the pair if it exists (a federation pair's revocation; idempotent). */
  async removeIfPresent(caller: Caller, id: string): Promise<boolean> {
    if (!this.deps.registry().has(id)) return false;
    await this.remove(caller, id);
    return true;
  }

  view(runner: PairRunner) {
    const pair = runner.pair;
    return {
      object: 'sync_pair' as const,
      pair_id: pair.pair_id,
      peer_did: pair.peer_did,
      peer_url: pair.peer_url,
      thread_id: pair.thread_id,
      target_namespace: pair.target_namespace,
      mode: pair.mode,
      poll_interval_ms: pair.poll_interval_ms,
      state: runner.state,
      cursor: runner.cursor,
      retries: runner.retries,
      last_error: runner.lastError,
      last_sync_at: runner.lastSyncAt,
      next_attempt_at: runner.nextAttemptAt === null ? null : new Date(runner.nextAttemptAt).toISOString(),
      created_at: pair.created_at,
    };
  }

  async stats(id: string) {
    const runner = await this.runnerView(this.entry(id));
    const window = runner.metrics.window();
    const minutesWithData = Math.max(1, window.perMinute.filter((n) => n > 0).length);
    const lastFive = window.perMinute.slice(-5).reduce((sum, n) => sum + n, 0);
    return {
      object: 'sync_pair_stats' as const,
      pair_id: id,
      state: runner.state,
      rolling_rate: { per_minute_last_5m: roundMs(lastFive / 5), per_minute_last_hour: roundMs(window.pulledLastHour / 60), active_minutes: minutesWithData },
      latency_histogram: {
        bounds_ms: [...LATENCY_BUCKETS_MS],
        counts: [...runner.metrics.histogram],
        p50_ms: roundMs(window.latency.p50),
        p95_ms: roundMs(window.latency.p95),
        p99_ms: roundMs(window.latency.p99),
      },
      errors_last_hour: window.errorsLastHour,
      poll_interval: {
        mode: runner.pair.mode,
        interval_ms: runner.pair.poll_interval_ms,
        backoff_ms: runner.currentDelayMs,
        retries: runner.retries,
        next_attempt_at: runner.nextAttemptAt === null ? null : new Date(runner.nextAttemptAt).toISOString(),
      },
      counters: { ...runner.metrics.totals, rejected_by_reason: { ...runner.metrics.rejectedBy } },
      per_minute: window.perMinute,
    };
  }

  async health() {
    const runners = this.allRunners();
    const byState: Record<PairState, number> = { running: 0, failing: 0, paused: 0 };
    const windows = runners.map((runner) => ({ runner, window: runner.metrics.window() }));
    for (const runner of runners) byState[runner.state]++;
    const samples = windows.flatMap((w) => w.window.samples).sort((a, b) => a - b);
    const q = (p: number) => (samples.length === 0 ? null : samples[Math.min(samples.length - 1, Math.floor(p * samples.length))]!);
    const perMinute = new Array<number>(60).fill(0);
    for (const { window } of windows) window.perMinute.forEach((n, i) => (perMinute[i]! += n));
    const conflicts = await this.deps.origins.conflicts(20);
    return {
      object: 'sync_health' as const,
      pairs_total: runners.length,
      pairs_by_state: byState,
      records_pulled_last_hour: windows.reduce((sum, w) => sum + w.window.pulledLastHour, 0),
      mean_delivery_latency_ms: roundMs(samples.length === 0 ? null : samples.reduce((s, x) => s + x, 0) / samples.length),
      p50_delivery_latency_ms: roundMs(q(0.5)),
      p95_delivery_latency_ms: roundMs(q(0.95)),
      slowest_pairs: windows
        .filter((w) => w.window.latency.p95 !== null)
        .sort((a, b) => b.window.latency.p95! - a.window.latency.p95!)
        .slice(0, 5)
        .map((w) => ({ pair_id: w.runner.pair.pair_id, p95_delivery_latency_ms: roundMs(w.window.latency.p95) })),
      most_errored_pairs: windows
        .filter((w) => w.window.errorsLastHour > 0)
        .sort((a, b) => b.window.errorsLastHour - a.window.errorsLastHour)
        .slice(0, 5)
        .map((w) => ({ pair_id: w.runner.pair.pair_id, errors_last_hour: w.window.errorsLastHour, last_error: w.runner.lastError })),
      // Federated records that could not be stored because a local record holds their clock slot (quarantined, not lost).
      drift_alerts: conflicts.map((c) => ({ kind: 'clock_conflict', record_id: c.record.id, existing_id: c.existing_id, actor: c.record.actor, thread: c.record.thread, clock: c.record.clock, origin: c.origin, pair_id: c.pair_id, received_at: c.received_at })),
      conflicts_total: this.deps.origins.conflictCount(),
      per_hour: { records_pulled: windows.reduce((sum, w) => sum + w.window.pulledLastHour, 0), p50_delivery_latency_ms: roundMs(q(0.5)) },
      per_minute: perMinute,
      pushed: { ...this.counters.pushed, rejected_by_reason: { ...this.counters.rejectedBy } },
      rejected_by_reason: windows.reduce<Record<string, number>>((acc, w) => {
        for (const [reason, n] of Object.entries(w.runner.metrics.rejectedBy)) acc[reason] = (acc[reason] ?? 0) + (n ?? 0);
        return acc;
      }, {}),
    };
  }

  summary(): { enabled: true; pairs: number; pairs_by_state: Record<string, number>; records_pulled_last_hour: number } {
    const byState: Record<string, number> = { running: 0, failing: 0, paused: 0 };
    let pulled = 0;
    const runners = this.allRunners();
    for (const runner of runners) {
      byState[runner.state] = (byState[runner.state] ?? 0) + 1;
      pulled += runner.metrics.window().pulledLastHour;
    }
    return { enabled: true, pairs: runners.length, pairs_by_state: byState, records_pulled_last_hour: pulled };
  }
}
