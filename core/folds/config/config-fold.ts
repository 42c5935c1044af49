/**
 * engine_config: LEARN records on th_engine_config folded into the
 * configuration in force, over the topics plugins registered. Latest record
 * per topic (or per key for keyed topics) wins. The kernel ingests malformed
 * configuration records like any other; here they become warnings and the
 * previous value stays in force.
 */
import { Compile } from 'typebox/compile';
import type { JsonObject } from '../../records/json.js';
import { TH_ENGINE_CONFIG } from '../../records/reserved-threads.js';
import type { Fold } from '../fold.js';
import type { ConfigTopic, ConfigTopicRegistry, Entry, Provenance } from './config-topic.js';

const MAX_WARNINGS = 100;

export interface ConfigWarning {
  record_id: string;
  sequence: number;
  topic: string | null;
  message: string;
}

export interface EngineConfig {
  /** Number of configuration records applied so far. */
  version: number;
  /** Per registered topic: the entry (single topics, null before any record) or the entries by key. */
  topics: Record<string, Entry<unknown> | null | Record<string, Entry<unknown>>>;
  /** Per topic, the sequence of the last record that changed it (for watchers). */
  changed_at: Record<string, number>;
  /** Configuration records that did not apply, newest last (at most 100). */
  warnings: ConfigWarning[];
}

export const ENGINE_CONFIG_FOLD = 'engine_config';

/** The topic's fields: the body less its `topic`, `kind`, `_v` and `namespace` markers. */
export function configFields(body: JsonObject): Record<string, unknown> {
  const { topic: _topic, kind: _kind, _v, namespace: _ns, ...fields } = body;
  return fields;
}

/** Checks fields against a topic: the normalised value, or a message saying what is wrong. */
/**
 * Checks a topic's fields. A schema refusal carries the validator's errors as well as a short message: an
 * HTTP caller words them in the API's terms (core/server/validation-message.ts), the fold's warnings keep
 * the short message.
 */
export function checkConfigFields<T>(
  topic: ConfigTopic<T>,
  fields: Record<string, unknown>,
): { ok: true; value: T | null } | { ok: false; message: string; schemaErrors?: readonly unknown[] } {
  const check = compiled(topic);
  if (!check.Check(fields)) {
    const errors = [...check.Errors(fields)];
    const details = errors
      .slice(0, 3)
      .map((e) => `${e.instancePath ? e.instancePath.slice(1).replace(/\//g, '.') : '(fields)'} ${e.message}`)
      .join('; ');
    return { ok: false, message: `malformed ${topic.topic}: ${details}`, schemaErrors: errors };
  }
  if (topic.keyedBy !== 'single' && typeof fields[topic.keyedBy] !== 'string') {
    return { ok: false, message: `malformed ${topic.topic}: ${topic.keyedBy} must be a string (it keys the entries)` };
  }
  const value = topic.normalise ? topic.normalise(fields as never) : (fields as T);
  if (typeof value === 'string') return { ok: false, message: `${topic.topic}: ${value}` };
  return { ok: true, value: value as T | null };
}

const compiledSchemas = new WeakMap<ConfigTopic, ReturnType<typeof Compile>>();
function compiled(topic: ConfigTopic): ReturnType<typeof Compile> {
  let check = compiledSchemas.get(topic);
  if (!check) compiledSchemas.set(topic, (check = Compile(topic.schema)));
  return check;
}

function warn(config: EngineConfig, warning: ConfigWarning): EngineConfig {
  config.warnings.push(warning);
  if (config.warnings.length > MAX_WARNINGS) config.warnings.splice(0, config.warnings.length - MAX_WARNINGS);
  return config;
}

export function engineConfigFold(registry: ConfigTopicRegistry): Fold<EngineConfig, EngineConfig> {
  return {
    name: ENGINE_CONFIG_FOLD,
    scope: 'global',
    description: 'The configuration folded from LEARN records on th_engine_config over the registered topics (latest per topic or key wins).',
    threads: [TH_ENGINE_CONFIG],
    initial: () => {
      const topics: EngineConfig['topics'] = {};
      for (const { topic } of registry.list()) topics[topic.topic] = topic.keyedBy === 'single' ? null : {};
      return { version: 0, topics, changed_at: {}, warnings: [] };
    },
    apply(config, { sequence, record }) {
      if (record.thread !== TH_ENGINE_CONFIG) return config;
      const at: Provenance = { record_id: record.id, sequence };
      const name = record.body['topic'];
      const named = typeof name === 'string' ? name : null;
      if (record.act !== 'LEARN') return warn(config, { ...at, topic: named, message: `only LEARN records configure the engine, got ${record.act}` });
      const topic = named === null ? undefined : registry.get(named);
      if (!topic) {
        return warn(config, { ...at, topic: named, message: `no loaded plugin owns the configuration topic ${JSON.stringify(name ?? null)}` });
      }
      const fields = configFields(record.body);
      const checked = checkConfigFields(topic, fields);
      if (!checked.ok) return warn(config, { ...at, topic: topic.topic, message: checked.message });
      if (topic.keyedBy === 'single') {
        config.topics[topic.topic] = checked.value === null ? null : { ...(checked.value as object), ...at };
      } else {
        const entries = (config.topics[topic.topic] ??= {}) as Record<string, Entry<unknown>>;
        const key = fields[topic.keyedBy] as string;
        if (checked.value === null) delete entries[key];
        else entries[key] = { ...(checked.value as object), ...at };
      }
      config.changed_at[topic.topic] = sequence;
      config.version += 1;
      return config;
    },
    value(config) {
      return structuredClone(config);
    },
  };
}
