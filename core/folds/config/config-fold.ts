/**
 * engine_config: LEARN records on th_engine_config folded into one typed,
 * versioned configuration. Latest record per topic (or per key for keyed
 * topics) wins. The kernel ingests malformed configuration records like any
 * other; here they become warnings and the previous value stays in force.
 */
import { Compile } from 'typebox/compile';
import type { JsonObject } from '../../records/json.js';
import { TH_ENGINE_CONFIG } from '../../records/reserved-threads.js';
import type { Fold } from '../fold.js';
import {
  CONFIG_TOPICS,
  DEFAULT_EMBEDDING_ENDPOINT,
  DEFAULT_EMBEDDING_MODEL,
  type ConfigTopic,
  type ConfigWarning,
  type EngineConfig,
  type Provenance,
} from './config-topics.js';

const MAX_WARNINGS = 100;
const validators = Object.fromEntries(Object.entries(CONFIG_TOPICS).map(([topic, spec]) => [topic, Compile(spec.schema)])) as Record<
  ConfigTopic,
  ReturnType<typeof Compile>
>;

export function initialEngineConfig(): EngineConfig {
  return {
    version: 0,
    auth_required: { enabled: false, record_id: '', sequence: 0 },
    auth_cors_origins: null,
    actor_tiers: {},
    embedding_provider: null,
    federation_relays: {},
    responder_overrides: {},
    routing_rules: {},
    event_triggers: {},
    permissions: null,
    permission_rules: {},
    fold_rules: {},
    body_kind_manifests: {},
    warnings: [],
  };
}

function warn(config: EngineConfig, warning: ConfigWarning): EngineConfig {
  config.warnings.push(warning);
  if (config.warnings.length > MAX_WARNINGS) config.warnings.splice(0, config.warnings.length - MAX_WARNINGS);
  return config;
}

/** The topic's fields: the body less its `topic`, `kind` and `_v` markers. */
function fieldsOf(body: JsonObject): Record<string, unknown> {
  const { topic: _topic, kind: _kind, _v, namespace: _ns, ...fields } = body;
  // The spec spells this field "max-concurrent"; accept it and store it as max_concurrent.
  if ('max-concurrent' in fields && !('max_concurrent' in fields)) {
    fields['max_concurrent'] = fields['max-concurrent'];
    delete fields['max-concurrent'];
  }
  return fields;
}

function describeErrors(topic: ConfigTopic, fields: unknown): string {
  const errors = [...validators[topic].Errors(fields)].slice(0, 3);
  return errors.map((e) => `${e.instancePath || '(body)'} ${e.message}`).join('; ');
}

/** Applies one valid entry; returns false when the topic's rules refuse it. */
function applyEntry(config: EngineConfig, topic: ConfigTopic, fields: Record<string, unknown>, at: Provenance): void {
  const spec = CONFIG_TOPICS[topic];
  switch (topic) {
    case 'actor_tier': {
      const actor = fields['actor'] as string;
      const tier = fields['tier'];
      if (tier === undefined || tier === null || tier === '' || tier === 'trial') {
        delete config.actor_tiers[actor];
      } else {
        // An assignment never mints an operator: anything above team is clamped.
        config.actor_tiers[actor] = { actor, tier: tier === 'paid' ? 'paid' : 'team', ...at };
      }
      return;
    }
    case 'embedding_provider': {
      const provider = fields['provider'] as { kind: 'ollama'; endpoint?: string; model?: string } | null;
      config.embedding_provider = {
        provider: provider && { kind: provider.kind, endpoint: provider.endpoint ?? DEFAULT_EMBEDDING_ENDPOINT, model: provider.model ?? DEFAULT_EMBEDDING_MODEL },
        ...at,
      };
      return;
    }
    case 'federation.relay': {
      const forPair = fields['for_pair'] as string;
      config.federation_relays[forPair] = { url: fields['url'] as string, for_pair: forPair, enabled: (fields['enabled'] as boolean | undefined) ?? true, ...at };
      return;
    }
    case 'responder_override': {
      const did = fields['did'] as string;
      if (fields['remove'] === true) delete config.responder_overrides[did];
      else config.responder_overrides[did] = { ...(fields as { did: string }), ...at };
      return;
    }
    case 'event_trigger': {
      const name = fields['name'] as string;
      config.event_triggers[name] = {
        budget: 1.0,
        timeout: 300,
        cooldown: 60,
        max_concurrent: 1,
        disabled: false,
        ...(fields as { name: string; target: string; goal: string }),
        ...at,
      };
      return;
    }
  }
  const slot = (config as unknown as Record<string, unknown>)[spec.slot];
  if (spec.keyedBy === 'single') {
    (config as unknown as Record<string, unknown>)[spec.slot] = { ...fields, ...at };
  } else {
    (slot as Record<string, unknown>)[fields[spec.keyedBy] as string] = { ...fields, ...at };
  }
}

function isTopic(value: unknown): value is ConfigTopic {
  return typeof value === 'string' && Object.prototype.hasOwnProperty.call(CONFIG_TOPICS, value);
}

export const engineConfigFold: Fold<EngineConfig, EngineConfig> = {
  name: 'engine_config',
  scope: 'global',
  description: 'The typed configuration folded from LEARN records on th_engine_config (latest per topic or key wins).',
  threads: [TH_ENGINE_CONFIG],
  initial: initialEngineConfig,
  apply(config, { sequence, record }) {
    if (record.thread !== TH_ENGINE_CONFIG) return config;
    const at = { record_id: record.id, sequence };
    const topic = record.body['topic'];
    if (record.act !== 'LEARN') {
      return warn(config, { ...at, topic: typeof topic === 'string' ? topic : null, message: `only LEARN records configure the engine, got ${record.act}` });
    }
    if (!isTopic(topic)) {
      return warn(config, { ...at, topic: typeof topic === 'string' ? topic : null, message: `unknown configuration topic ${JSON.stringify(topic ?? null)}` });
    }
    const fields = fieldsOf(record.body);
    if (topic === 'event_trigger' && (fields['match'] === undefined) === (fields['schedule'] === undefined)) {
      return warn(config, { ...at, topic, message: 'event_trigger needs exactly one of match or schedule' });
    }
    if (!validators[topic].Check(fields)) {
      return warn(config, { ...at, topic, message: `malformed ${topic}: ${describeErrors(topic, fields)}` });
    }
    applyEntry(config, topic, fields, at);
    config.version += 1;
    return config;
  },
  value(config) {
    return structuredClone(config);
  },
};
