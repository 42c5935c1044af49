/**
 * What `register()` receives instead of the server: a private child container,
 * a way to expose services to dependent plugins, and the contribution points.
 */
import type { DependencyContainer } from 'tsyringe';
import type { Token } from '../di/token.js';
import type { AnyFold } from '../folds/fold.js';
import type { EngineLoop } from '../engine/engine-loop.js';
import type { Logger } from './logger.js';
import type { AnyRouteDecl } from './route.js';

export interface PluginScope {
  readonly name: string;
  /** Child of the root container: the plugin's private services live here. */
  readonly container: DependencyContainer;
  readonly log: Logger;
  /** Registers a service in the root container so dependent plugins can inject it. */
  expose<T>(key: Token<T>, value: T): void;
  route(decl: AnyRouteDecl): void;
  fold(fold: AnyFold): void;
  loop(loop: EngineLoop): void;
  /** Sets a capability flag; only set true for what works end to end. */
  capability(name: string, enabled: boolean): void;
  /** Runs after the engine started (folds rebuilt), before the server listens. */
  onStart(fn: () => void | Promise<void>): void;
  /** Teardown, run in reverse registration order. */
  onStop(fn: () => void | Promise<void>): void;
}
