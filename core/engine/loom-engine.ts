/**
 * The kernel assembled: store, broadcast bus, fold engine, ingest pipeline,
 * the caller-aware record reader and the configuration service, with the
 * core folds registered. Plugins add folds, config topics, ingest gates and
 * read policies before `start()`. Lifecycle: `start()` opens the store and
 * rebuilds the global folds; the host then runs the plugins' start hooks and
 * only then `startLoops()`; `stop()` stops the loops before the store.
 */
import type { IngestGate } from '../access/ingest-gate.js';
import { orderGates } from '../access/order-gates.js';
import type { ReadPolicy } from '../access/read-policy.js';
import { engineConfigFold, type EngineConfig } from '../folds/config/config-fold.js';
import { ConfigTopicRegistry } from '../folds/config/config-topic.js';
import type { AnyFold } from '../folds/fold.js';
import { namespaceRegistryFold, type NamespaceRegistry } from '../folds/namespace-registry.js';
import { threadStateFold } from '../folds/thread-state.js';
import type { Sha256Hex } from '../records/sha256.js';
import type { RecordStore, StoreLease, StoreRecovery } from '../../storage/contract/record-store.js';
import { token } from '../di/token.js';
import { RecordBus } from './broadcast.js';
import { EngineConfigService } from './engine-config.js';
import type { EngineLoop } from './engine-loop.js';
import { FoldEngine, type FoldReplayReport } from './fold-engine.js';
import { Ingestor } from './ingest.js';
import type { ConsumerHandle, LogConsumer } from './log-consumer.js';
import { LogConsumers } from './log-consumers.js';
import { nodeSha256Hex } from './native-hash.js';
import { RecordReader } from './record-reader.js';
import { RecordWriter } from './record-writer.js';

/** The lease under which one server of a shared log runs the singleton loops. */
const LEADER_LEASE = 'engine-leader';

export interface LoomEngineOptions {
  readonly store: RecordStore;
  /** @default node:crypto SHA-256 */
  readonly sha256Hex?: Sha256Hex;
  readonly now?: () => number;
  readonly onError?: (error: unknown, context: string) => void;
  /** Where global folds keep checkpoints; null: none (every start replays the log). @default null */
  readonly foldCheckpointDir?: string | null;
  /** Checkpoints at least this large load after `start()` returns (FoldEngineOptions.lazyCheckpointBytes); null: never. @default 8 MiB */
  readonly lazyCheckpointBytes?: number | null;
  /** Start-up report per global fold (checkpoint used or rebuilt). */
  readonly onFoldReplayed?: (report: FoldReplayReport) => void;
  /** Called once the store is open, with what opening replayed (stores with an ingest journal). */
  readonly onStoreRecovered?: (recovery: StoreRecovery) => void;
}

export class LoomEngine {
  readonly store: RecordStore;
  readonly bus: RecordBus;
  readonly folds: FoldEngine;
  readonly ingestor: Ingestor;
  readonly reader: RecordReader;
  /** Writes as a caller at the actor's next clock (core/engine/record-writer.ts). */
  readonly writer: RecordWriter;
  readonly configTopics = new ConfigTopicRegistry();
  readonly config: EngineConfigService;
  /** The plugins' log consumers (core/engine/log-consumer.ts), run as loops. */
  readonly consumers: LogConsumers;
  private readonly loops: EngineLoop[] = [];
  private readonly gates: IngestGate[] = [];
  private readonly policies: ReadPolicy[] = [];
  private state: 'new' | 'started' | 'stopped' = 'new';
  private loopsRunning = false;
  private leaderLease: StoreLease | null = null;
  private leadership: Promise<void> = Promise.resolve();
  private singletonsRunning = false;
  private readonly onError: (error: unknown, context: string) => void;
  private readonly onStoreRecovered?: (recovery: StoreRecovery) => void;

  constructor(options: LoomEngineOptions) {
    const onError = options.onError ?? (() => {});
    this.onError = onError;
    this.onStoreRecovered = options.onStoreRecovered;
    this.store = options.store;
    this.bus = new RecordBus(this.store);
    this.bus.reportErrorsTo((error) => onError(error, 'broadcast listener failed'));
    this.folds = new FoldEngine(this.store, this.bus, { onError, checkpointDir: options.foldCheckpointDir ?? null, onReplayed: options.onFoldReplayed, ...(options.lazyCheckpointBytes !== undefined ? { lazyCheckpointBytes: options.lazyCheckpointBytes } : {}) });
    for (const fold of [threadStateFold, engineConfigFold(this.configTopics), namespaceRegistryFold] as AnyFold[]) this.folds.register(fold);
    this.ingestor = new Ingestor({
      store: this.store,
      bus: this.bus,
      namespaces: () => this.folds.globalState<NamespaceRegistry>(namespaceRegistryFold.name),
      sha256Hex: options.sha256Hex ?? nodeSha256Hex,
      now: options.now,
      // A policy that fails names no holder (fail closed).
      mayRead: (caller, stored) => {
        try {
          return this.reader.admits(caller, stored);
        } catch {
          return false;
        }
      },
      onGateFailure: (gate, error) => onError(error, `ingest gate ${gate} failed; the record was refused`),
      whenFoldsLoaded: () => this.folds.whenAllLoaded(),
    });
    this.reader = new RecordReader(this.store, this.folds, this.bus);
    this.writer = new RecordWriter(this.ingestor, this.reader);
    this.config = new EngineConfigService(this.folds);
    this.consumers = new LogConsumers({ store: this.store, bus: this.bus, systemThreads: this.folds.systemThreads, onError, engaged: () => this.loopsRunning });
  }

  addLoop(loop: EngineLoop): void {
    this.loops.push(loop);
  }

  /** Adds `plugin`'s log consumer; it runs as a loop (a leader-only one as a singleton). */
  addConsumer(plugin: string, consumer: LogConsumer, dataDir: string | null): ConsumerHandle {
    if (this.state !== 'new') throw new Error(`log consumer ${plugin}.${consumer.name} added after the engine started`);
    const runner = this.consumers.add(plugin, consumer, dataDir);
    this.addLoop(runner);
    return runner;
  }

  /** Adds an ingest gate; the chain is ordered once, at start. */
  addIngestGate(gate: IngestGate): void {
    if (this.state !== 'new') throw new Error(`ingest gate ${gate.name} added after the engine started`);
    this.gates.push(gate);
  }

  addReadPolicy(policy: ReadPolicy): void {
    if (this.state !== 'new') throw new Error(`read policy ${policy.name} added after the engine started`);
    this.policies.push(policy);
  }

  get started(): boolean {
    return this.state === 'started';
  }

  /** Orders the gates and opens the store, then rebuilds the global folds from the log. Loops start with `startLoops()`. */
  async start(): Promise<void> {
    if (this.state === 'started') return;
    this.ingestor.setGates(orderGates(this.gates));
    this.reader.setPolicies(this.policies);
    this.configTopics.freeze();
    if (this.store.status !== 'open') await this.store.open();
    if (this.store.recovery) this.onStoreRecovered?.(this.store.recovery);
    this.bus.startAt(await this.store.watermark());
    // Several servers on one log: every server's records reach this process through the store.
    if (this.store.capabilities.sharedLog) this.bus.followStore();
    await this.folds.start();
    this.config.start();
    this.state = 'started';
  }

  /**
   * Whether this server runs the singleton loops: always with a log of its
   * own; with a shared log, while it holds the store's leader lease.
   */
  get leader(): boolean {
    return this.leaderLease ? this.leaderLease.held : true;
  }

  /** Starts the loops (after the plugins' start hooks ran); singleton loops only on the leader. */
  async startLoops(): Promise<void> {
    if (this.loopsRunning) return;
    this.loopsRunning = true;
    const leased = this.store.capabilities.sharedLog === true && this.store.lease !== undefined;
    for (const loop of this.loops) if (!loop.singleton || !leased) await loop.start();
    // Taken even without singleton loops: leadership also decides who serves in-memory work (re-credential challenges).
    if (leased) {
      this.leaderLease = this.store.lease!(LEADER_LEASE, (held) => {
        // Transitions run one after another: a loop stops (its run in flight finished) before it can start again.
        this.leadership = this.leadership.then(() => this.setSingletons(held)).catch((error: unknown) => this.onError(error, 'leadership change failed'));
      });
    }
  }

  private async setSingletons(held: boolean): Promise<void> {
    if (held === this.singletonsRunning || (held && !this.loopsRunning)) return;
    this.singletonsRunning = held;
    const singletons = this.loops.filter((loop) => loop.singleton);
    if (held) for (const loop of singletons) await loop.start();
    else for (const loop of singletons.reverse()) await loop.stop();
  }

  /** Stops the loops (awaiting their runs in flight); called before the plugins' stop hooks. */
  async stopLoops(): Promise<void> {
    if (!this.loopsRunning) return;
    this.loopsRunning = false;
    const lease = this.leaderLease;
    this.leaderLease = null;
    if (lease) {
      await lease.release();
      await this.leadership;
      await this.setSingletons(false);
    }
    for (const loop of [...this.loops].reverse()) if (!loop.singleton || !lease) await loop.stop();
  }

  /** Stops loops if still running, ends subscriptions, flushes and closes the store. */
  async stop(): Promise<void> {
    if (this.state === 'stopped') return;
    this.state = 'stopped';
    await this.stopLoops();
    this.config.stop();
    await this.folds.stop();
    this.bus.closeAll();
    await this.store.close();
  }

  /** The configuration in force (a copy of the engine_config fold's value). */
  configuration(): EngineConfig {
    return this.config.snapshot();
  }
}

export const LoomEngineToken = token<LoomEngine>('core.LoomEngine');
