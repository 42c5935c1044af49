/**
 * The Config service over the engine_config fold: typed reads per topic and
 * watchers called after each broadcast that changed their topic (hot reload,
 * spec §2.9). Reads are in-memory lookups of the fold's live state.
 */
import type { Config, ConfigTopic, Entry } from '../folds/config/config-topic.js';
import { ENGINE_CONFIG_FOLD, type EngineConfig } from '../folds/config/config-fold.js';
import type { FoldEngine } from './fold-engine.js';

export class EngineConfigService implements Config {
  private readonly watchers = new Map<string, Set<() => void>>();
  private detach: (() => void) | null = null;
  private seen: Record<string, number> = {};

  constructor(private readonly folds: FoldEngine) {}

  /** Follows the fold once it is started. */
  start(): void {
    if (this.detach) return;
    this.seen = { ...this.state().changed_at };
    this.detach = this.folds.watch<EngineConfig>(ENGINE_CONFIG_FOLD, () => this.notify());
  }

  stop(): void {
    this.detach?.();
    this.detach = null;
  }

  private state(): EngineConfig {
    return this.folds.globalState<EngineConfig>(ENGINE_CONFIG_FOLD);
  }

  private notify(): void {
    const changed = this.state().changed_at;
    for (const [topic, sequence] of Object.entries(changed)) {
      if (this.seen[topic] === sequence) continue;
      this.seen[topic] = sequence;
      for (const watcher of this.watchers.get(topic) ?? []) watcher();
    }
  }

  single<T>(topic: ConfigTopic<T>): Entry<T> | null {
    return (this.state().topics[topic.topic] as Entry<T> | null | undefined) ?? null;
  }

  keyed<T>(topic: ConfigTopic<T>): Readonly<Record<string, Entry<T>>> {
    return (this.state().topics[topic.topic] as Record<string, Entry<T>> | undefined) ?? {};
  }

  watch(topic: ConfigTopic<unknown>, onChange: () => void): () => void {
    let set = this.watchers.get(topic.topic);
    if (!set) this.watchers.set(topic.topic, (set = new Set()));
    set.add(onChange);
    return () => set.delete(onChange);
  }

  /** The whole configuration value (a copy). */
  snapshot(): EngineConfig {
    return structuredClone(this.state());
  }
}
