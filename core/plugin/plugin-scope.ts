/**
 * What `register()` receives instead of the server: a private child container,
 * a way to expose services to dependent plugins, and the contribution points.
 */
import type { DependencyContainer } from 'tsyringe';
import type { Token } from '../di/token.js';
import type { Fold } from '../folds/fold.js';
import type { EngineLoop } from '../engine/engine-loop.js';
import type { ConsumerHandle, LogConsumer } from '../engine/log-consumer.js';
import type { IngestGate } from '../access/ingest-gate.js';
import type { ReadPolicy } from '../access/read-policy.js';
import type { ConfigTopic } from '../folds/config/config-topic.js';
import type { Logger } from './logger.js';
import type { OwnFold } from './own-fold.js';
import type { DiscoverySurface } from './discovery-facts.js';
import type { AnyRouteDecl } from './route.js';
import type { RequestObserver } from './request-observer.js';
import type { StaticSite } from './static-site.js';

export interface PluginScope {
  readonly name: string;
  /** Child of the root container: the plugin's private services live here. */
  readonly container: DependencyContainer;
  readonly log: Logger;
  /** Registers a service in the root container so dependent plugins can inject it. */
  expose<T>(key: Token<T>, value: T): void;
  route(decl: AnyRouteDecl): void;
  /** Registers a fold; for a global fold, the handle reads this plugin's own state in-process (core/plugin/own-fold.ts). */
  fold<S>(fold: Fold<S, any>): OwnFold<S>;
  /**
   * Declares a control thread this plugin writes (like the reserved threads
   * of §2.3): folds over coordination work (`ignoresSystemThreads`) skip it.
   */
  systemThread(thread: string): void;
  loop(loop: EngineLoop): void;
  /**
   * Hands records to background work (core/engine/log-consumer.ts): the
   * kernel owns the cursor, checkpoint, leadership, wake-ups, backoff,
   * back-pressure and the system-thread rule. Named `<plugin>.<name>`.
   */
  consume(consumer: LogConsumer): ConsumerHandle;
  /** Adds a check every record passes before it is stored (core/access/ingest-gate.ts). */
  ingestGate(gate: IngestGate): void;
  /** Adds a read restriction every read surface applies (core/access/read-policy.ts). */
  readPolicy(policy: ReadPolicy): void;
  /**
   * Request headers a browser may send to this plugin's routes (answered in
   * CORS preflights), lower-case: `x-service-actor` for an authenticator's
   * actor claim, `last-event-id` for an event stream's resume.
   */
  corsHeaders(names: readonly string[]): void;
  /** Sees every answered request (core/plugin/request-observer.ts): metrics, access logs. */
  observeRequests(observer: RequestObserver): void;
  /** Serves a directory of built browser files under a URL prefix (core/plugin/static-site.ts); one owner per prefix. */
  staticSite(site: StaticSite): void;
  /**
   * Names files or directories under this plugin's `dataDir` that are not
   * derived from the log and belong in a backup (core/plugin/backup-state.ts):
   * immutable, or replaced atomically. Ignored without a data directory.
   */
  backupState(paths: readonly string[]): void;
  /** Registers a configuration topic this plugin owns; a second owner of a topic name is refused. */
  configTopic(topic: ConfigTopic<any>): void;
  /**
   * `<dataDir>/plugins/<name>/`, for state that must not be records: bytes
   * addressed by a hash a record carries, indexes rebuildable from the log,
   * key material. Created on first use by the plugin; null when the store is
   * not persistent. Facts are records, state is folds.
   */
  readonly dataDir: string | null;
  /**
   * Contributes a fact to a discovery surface (`health`: GET /health, `manifest`:
   * the capabilities manifest), read on every request; one owner per key.
   */
  describe(surface: DiscoverySurface, key: string, read: () => unknown): void;
  /** Sets a capability flag; only set true for what works end to end. */
  capability(name: string, enabled: boolean): void;
  /** Runs after the engine started (folds rebuilt), before the loops start and the server listens. */
  onStart(fn: () => void | Promise<void>): void;
  /** Teardown, run in reverse registration order. */
  onStop(fn: () => void | Promise<void>): void;
}
