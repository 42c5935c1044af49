/**
 * The kernel assembled: store, broadcast bus, fold engine and ingest pipeline,
 * with the core folds registered. Plugins add folds before `start()`.
 */
import { engineConfigFold } from '../folds/config/config-fold.js';
import type { EngineConfig } from '../folds/config/config-topics.js';
import type { AnyFold } from '../folds/fold.js';
import { namespaceRegistryFold, type NamespaceRegistry } from '../folds/namespace-registry.js';
import { threadStateFold } from '../folds/thread-state.js';
import type { Sha256Hex } from '../records/sha256.js';
import type { RecordStore } from '../../storage/contract/record-store.js';
import { token } from '../di/token.js';
import { RecordBus } from './broadcast.js';
import type { EngineLoop } from './engine-loop.js';
import { FoldEngine } from './fold-engine.js';
import { Ingestor } from './ingest.js';
import { nodeSha256Hex } from './native-hash.js';

export interface LoomEngineOptions {
  readonly store: RecordStore;
  /** @default node:crypto SHA-256 */
  readonly sha256Hex?: Sha256Hex;
  readonly now?: () => number;
  readonly onError?: (error: unknown, context: string) => void;
}

export const CORE_FOLDS: readonly AnyFold[] = [threadStateFold, engineConfigFold, namespaceRegistryFold];

export class LoomEngine {
  readonly store: RecordStore;
  readonly bus: RecordBus;
  readonly folds: FoldEngine;
  readonly ingestor: Ingestor;
  private readonly loops: EngineLoop[] = [];
  private state: 'new' | 'started' | 'stopped' = 'new';

  constructor(options: LoomEngineOptions) {
    const onError = options.onError ?? (() => {});
    this.store = options.store;
    this.bus = new RecordBus(this.store);
    this.bus.reportErrorsTo((error) => onError(error, 'broadcast listener failed'));
    this.folds = new FoldEngine(this.store, this.bus, { onError });
    for (const fold of CORE_FOLDS) this.folds.register(fold);
    this.ingestor = new Ingestor({
      store: this.store,
      bus: this.bus,
      namespaces: () => this.folds.globalState<NamespaceRegistry>(namespaceRegistryFold.name),
      sha256Hex: options.sha256Hex ?? nodeSha256Hex,
      now: options.now,
    });
  }

  addLoop(loop: EngineLoop): void {
    this.loops.push(loop);
  }

  get started(): boolean {
    return this.state === 'started';
  }

  /** Opens the store, rebuilds the global folds from the log, starts the loops. */
  async start(): Promise<void> {
    if (this.state === 'started') return;
    if (this.store.status !== 'open') await this.store.open();
    this.bus.startAt(await this.store.watermark());
    await this.folds.start();
    for (const loop of this.loops) await loop.start();
    this.state = 'started';
  }

  /** Stops loops (awaiting their runs in flight), ends subscriptions, flushes and closes the store. */
  async stop(): Promise<void> {
    if (this.state === 'stopped') return;
    this.state = 'stopped';
    for (const loop of [...this.loops].reverse()) await loop.stop();
    this.folds.stop();
    this.bus.closeAll();
    await this.store.close();
  }

  /** The configuration in force (the engine_config fold's live value). */
  config(): EngineConfig {
    return this.folds.globalState<EngineConfig>(engineConfigFold.name);
  }
}

export const LoomEngineToken = token<LoomEngine>('core.LoomEngine');
