/**
 * Validates plugins and registers them in dependency order: refuses a second
 * plugin of the same name, a missing dependency (naming both plugins) and
 * dependency cycles; validates options against each plugin's schema.
 */
import type { BackupStateEntry } from './backup-state.js';
import type { DependencyContainer } from 'tsyringe';
import { Compile } from 'typebox/compile';
import Value from 'typebox/value';
import { bindValue, type Token } from '../di/token.js';
import type { AnyFold } from '../folds/fold.js';
import { join } from 'node:path';
import type { ConsumerHandle, LogConsumer } from '../engine/log-consumer.js';
import type { EngineLoop } from '../engine/engine-loop.js';
import type { IngestGate } from '../access/ingest-gate.js';
import type { ReadPolicy } from '../access/read-policy.js';
import type { ConfigTopic } from '../folds/config/config-topic.js';
import type { CapabilityFlags } from './capabilities.js';
import type { DiscoveryFacts } from './discovery-facts.js';
import type { Logger } from './logger.js';
import type { LoomPlugin, PluginRegistration } from './plugin.js';
import type { RequestObserver } from './request-observer.js';
import type { StaticSite } from './static-site.js';
import type { PluginScope } from './plugin-scope.js';
import type { OwnFold } from './own-fold.js';
import type { RouteCatalog } from './route-catalog.js';

export class PluginError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PluginError';
  }
}

export interface PluginSinks {
  readonly root: DependencyContainer;
  readonly catalog: RouteCatalog;
  readonly capabilities: CapabilityFlags;
  readonly facts: DiscoveryFacts;
  readonly log: Logger;
  /** The data directory of a persistent store, or null. */
  readonly dataDir: string | null;
  fold(fold: AnyFold): OwnFold<unknown>;
  systemThread(thread: string): void;
  loop(loop: EngineLoop): void;
  consume(plugin: string, consumer: LogConsumer, dataDir: string | null): ConsumerHandle;
  ingestGate(gate: IngestGate): void;
  readPolicy(policy: ReadPolicy): void;
  configTopic(topic: ConfigTopic, owner: string): void;
  requestObserver(observer: RequestObserver): void;
  /** Absent: this host serves no static site (a plugin that offers one is refused). */
  staticSite?(site: StaticSite, owner: string): void;
  corsHeader(name: string): void;
  backupState(entry: BackupStateEntry): void;
}

export interface RegisteredPlugins {
  readonly order: readonly string[];
  readonly containers: ReadonlyMap<string, DependencyContainer>;
  readonly startHooks: ReadonlyArray<() => void | Promise<void>>;
  readonly stopHooks: ReadonlyArray<() => void | Promise<void>>;
}

function normalise(registration: PluginRegistration): { plugin: LoomPlugin; options: unknown } {
  return 'plugin' in registration ? { plugin: registration.plugin, options: registration.options } : { plugin: registration, options: undefined };
}

/** Dependency order (hapi Topo's job), stable for independent plugins. */
export function orderPlugins(plugins: readonly LoomPlugin[]): LoomPlugin[] {
  const byName = new Map<string, LoomPlugin>();
  for (const plugin of plugins) {
    if (!/^[a-z][a-z0-9]*(-[a-z0-9]+)*$/.test(plugin.name)) throw new PluginError(`plugin name "${plugin.name}" must be kebab-case`);
    const existing = byName.get(plugin.name);
    if (existing) throw new PluginError(`plugin "${plugin.name}" is registered twice (versions ${existing.version} and ${plugin.version})`);
    byName.set(plugin.name, plugin);
  }
  for (const plugin of plugins) {
    for (const dependency of plugin.dependencies ?? []) {
      if (!byName.has(dependency)) throw new PluginError(`plugin "${plugin.name}" depends on plugin "${dependency}", which is not registered`);
    }
    for (const dependency of plugin.optionalDependencies ?? []) {
      if (plugin.dependencies?.includes(dependency)) throw new PluginError(`plugin "${plugin.name}" lists "${dependency}" as both a dependency and an optional one`);
    }
  }
  // An optional dependency that is loaded orders like a dependency; one that is not is skipped.
  const before = (plugin: LoomPlugin) => [...(plugin.dependencies ?? []), ...(plugin.optionalDependencies ?? []).filter((name) => byName.has(name))];
  const ordered: LoomPlugin[] = [];
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (plugin: LoomPlugin, path: string[]) => {
    const mark = state.get(plugin.name);
    if (mark === 'done') return;
    if (mark === 'visiting') throw new PluginError(`plugin dependency cycle: ${[...path, plugin.name].join(' -> ')}`);
    state.set(plugin.name, 'visiting');
    for (const dependency of before(plugin)) visit(byName.get(dependency)!, [...path, plugin.name]);
    state.set(plugin.name, 'done');
    ordered.push(plugin);
  };
  for (const plugin of plugins) visit(plugin, []);
  return ordered;
}

function validateOptions(plugin: LoomPlugin, raw: unknown): unknown {
  if (!plugin.options) {
    if (raw !== undefined) throw new PluginError(`plugin "${plugin.name}" takes no options`);
    return undefined;
  }
  const withDefaults = Value.Default(plugin.options, structuredClone(raw ?? {}));
  const check = Compile(plugin.options);
  if (!check.Check(withDefaults)) {
    const details = [...check.Errors(withDefaults)]
      .slice(0, 3)
      .map((e) => `${e.instancePath || '(options)'} ${e.message}`)
      .join('; ');
    throw new PluginError(`plugin "${plugin.name}" has invalid options: ${details}`);
  }
  return withDefaults;
}

export async function registerPlugins(registrations: readonly PluginRegistration[], sinks: PluginSinks): Promise<RegisteredPlugins> {
  const normalised = registrations.map(normalise);
  const optionsByName = new Map(normalised.map(({ plugin, options }) => [plugin.name, options]));
  const ordered = orderPlugins(normalised.map(({ plugin }) => plugin));
  const containers = new Map<string, DependencyContainer>();
  const startHooks: Array<() => void | Promise<void>> = [];
  const stopHooks: Array<() => void | Promise<void>> = [];

  for (const plugin of ordered) {
    const options = validateOptions(plugin, optionsByName.get(plugin.name));
    const container = sinks.root.createChildContainer();
    containers.set(plugin.name, container);
    const scope: PluginScope = {
      name: plugin.name,
      container,
      log: sinks.log.child({ plugin: plugin.name }),
      expose<T>(key: Token<T>, value: T) {
        if (sinks.root.isRegistered(key, false)) throw new PluginError(`plugin "${plugin.name}" exposes ${key.description}, which is already registered`);
        bindValue(sinks.root, key, value);
      },
      route: (decl) => sinks.catalog.add(plugin.name, decl),
      fold: <S>(fold: AnyFold) => sinks.fold(fold) as OwnFold<S>,
      systemThread: (thread) => sinks.systemThread(thread),
      loop: (loop) => sinks.loop(loop),
      consume: (consumer) => sinks.consume(plugin.name, consumer, sinks.dataDir === null ? null : join(sinks.dataDir, 'plugins', plugin.name)),
      ingestGate: (gate) => {
        if (!gate.name.startsWith(`${plugin.name}.`)) throw new PluginError(`ingest gate "${gate.name}" of plugin "${plugin.name}" must be named ${plugin.name}.<check>`);
        sinks.ingestGate(gate);
      },
      readPolicy: (policy) => {
        if (!policy.name.startsWith(`${plugin.name}.`)) throw new PluginError(`read policy "${policy.name}" of plugin "${plugin.name}" must be named ${plugin.name}.<policy>`);
        sinks.readPolicy(policy);
      },
      configTopic: (topic) => sinks.configTopic(topic, plugin.name),
      observeRequests: (observer) => sinks.requestObserver(observer),
      staticSite: (site) => {
        if (!sinks.staticSite) throw new PluginError(`plugin "${plugin.name}" serves a static site, which this host does not mount`);
        sinks.staticSite(site, plugin.name);
      },
      corsHeaders: (names) => {
        for (const name of names) {
          if (!/^[a-z0-9][a-z0-9-]*$/.test(name)) throw new PluginError(`CORS header "${name}" of plugin "${plugin.name}" must be a lower-case header name`);
          sinks.corsHeader(name);
        }
      },
      backupState: (paths) => {
        for (const path of paths) sinks.backupState({ plugin: plugin.name, path: `plugins/${plugin.name}/${path}` });
      },
      dataDir: sinks.dataDir === null ? null : join(sinks.dataDir, 'plugins', plugin.name),
      capability: (name, enabled) => sinks.capabilities.set(name, enabled),
      describe: (surface, key, read) => sinks.facts.describe(surface, key, plugin.name, read),
      onStart: (fn) => startHooks.push(fn),
      onStop: (fn) => stopHooks.push(fn),
    };
    for (const [tag, description] of Object.entries(plugin.tags ?? {})) sinks.catalog.describeTag(tag, description);
    await plugin.register(scope, options as never);
  }
  return { order: ordered.map((p) => p.name), containers, startHooks, stopHooks };
}
