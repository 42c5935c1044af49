/**
 * Configuration topics (spec §2.9) are owned by the plugins that use them.
 * A plugin registers each of its topics (`scope.configTopic`) with the schema
 * of its fields and how entries are keyed; the engine_config fold applies
 * LEARN records on th_engine_config of registered topics and reports the
 * others as warnings. Because global folds replay the log at start, loading
 * a topic's plugin later applies that topic's history.
 */
import type { Static, TSchema } from 'typebox';
import { token } from '../../di/token.js';

export interface ConfigTopic<T = unknown> {
  /** `body.topic` of LEARN records on th_engine_config, e.g. `auth_required`. */
  readonly topic: string;
  readonly description: string;
  /** The record's fields (its body less `topic`, `kind`, `_v`, `namespace`); a record that fails stays in the log as a warning. */
  readonly schema: TSchema;
  /** `single`: latest record wins. Otherwise the body field whose value keys entries (latest per key wins). */
  readonly keyedBy: 'single' | string;
  /**
   * Defaults and cross-field rules after the schema passed. A string refuses
   * the record with that warning; `null` (keyed topics) removes the key's entry.
   */
  readonly normalise?: (fields: Static<TSchema>) => T | string | null;
}

/** Where an entry came from. */
export interface Provenance {
  readonly record_id: string;
  readonly sequence: number;
}

export type Entry<T> = T & Provenance;

/** Identity with inference: the entry type follows the schema (or `normalise`). */
export function defineConfigTopic<S extends TSchema, T = Static<S>>(
  topic: { topic: string; description: string; schema: S; keyedBy: 'single' | string; normalise?: (fields: Static<S>) => T | string | null },
): ConfigTopic<T> {
  return topic as ConfigTopic<T>;
}

/** The topics this instance's plugins registered, with their owners. */
export class ConfigTopicRegistry {
  private readonly topics = new Map<string, { topic: ConfigTopic; owner: string }>();
  private frozen = false;

  register(topic: ConfigTopic, owner: string): void {
    if (this.frozen) throw new Error(`configuration topic ${topic.topic} registered by ${owner} after the engine started`);
    if (!/^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)*$/.test(topic.topic)) throw new Error(`configuration topic name ${JSON.stringify(topic.topic)} must be snake_case (dots separate parts)`);
    const existing = this.topics.get(topic.topic);
    if (existing) throw new Error(`configuration topic ${topic.topic} of ${owner} is already owned by ${existing.owner}`);
    this.topics.set(topic.topic, { topic, owner });
  }

  freeze(): void {
    this.frozen = true;
  }

  get(name: string): ConfigTopic | undefined {
    return this.topics.get(name)?.topic;
  }

  ownerOf(name: string): string | undefined {
    return this.topics.get(name)?.owner;
  }

  list(): Array<{ topic: ConfigTopic; owner: string }> {
    return [...this.topics.values()].sort((a, b) => (a.topic.topic < b.topic.topic ? -1 : 1));
  }
}

/** Reads of the configuration in force, typed by topic; hot-reloaded on broadcast. */
export interface Config {
  single<T>(topic: ConfigTopic<T>): Entry<T> | null;
  keyed<T>(topic: ConfigTopic<T>): Readonly<Record<string, Entry<T>>>;
  /** Called after each broadcast that changed the topic. Returns the unsubscribe function. */
  watch(topic: ConfigTopic<unknown>, onChange: () => void): () => void;
}

export const Config = token<Config>('core.Config');
