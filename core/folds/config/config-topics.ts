/**
 * Typed configuration topics (spec §2.9): one TypeBox schema per `body.topic`
 * of a LEARN record on th_engine_config. The schema both validates the record
 * (a malformed one is reported and ignored, the previous value stays) and gives
 * the TypeScript type of the entry. Each topic says how entries are keyed:
 * `single` (latest wins) or by a body field (latest per key wins).
 */
import { Type, type Static, type TSchema } from 'typebox';

const Did = Type.String({ pattern: '^did:[a-z0-9]+:.+$', maxLength: 512 });
const Name = Type.String({ minLength: 1, maxLength: 200 });
const Expression = Type.String({ minLength: 1, maxLength: 8192 });

export const AuthRequired = Type.Object({ enabled: Type.Boolean({ default: false }) });
export const AuthCorsOrigins = Type.Object({ origins: Type.Array(Type.String({ minLength: 1, maxLength: 2048 }), { maxItems: 256 }) });
export const ActorTier = Type.Object({
  actor: Did,
  /** `paid` or `team`; empty, null or absent clears; anything above team is clamped to team. */
  tier: Type.Optional(Type.Union([Type.Null(), Type.Literal(''), Type.Literal('trial'), Type.Literal('paid'), Type.Literal('team'), Type.Literal('operator')])),
});
export const EmbeddingProvider = Type.Object({
  provider: Type.Union([
    Type.Null(),
    Type.Object({
      /** The one local-embedding-server kind accepted (Ollama's HTTP API). */
      kind: Type.Literal('ollama'),
      endpoint: Type.Optional(Type.String({ pattern: '^https?://', maxLength: 2048 })),
      model: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    }),
  ]),
});
export const FederationRelay = Type.Object({
  url: Type.String({ pattern: '^(https?|wss?)://', maxLength: 2048 }),
  for_pair: Type.Union([Type.Literal('all'), Did]),
  enabled: Type.Optional(Type.Boolean({ default: true })),
});
export const ResponderOverride = Type.Object({
  did: Did,
  kind: Type.Optional(Type.Union([Type.Literal('actor'), Type.Literal('llm'), Type.Literal('pattern'), Type.Literal('system')])),
  capabilities: Type.Optional(Type.Array(Type.String(), { maxItems: 256 })),
  trust_floor: Type.Optional(Type.Object({})),
  cost_model: Type.Optional(Type.Object({})),
  availability: Type.Optional(Type.Object({})),
  metadata: Type.Optional(Type.Object({})),
  remove: Type.Optional(Type.Boolean()),
});
export const RoutingRule = Type.Object({
  name: Name,
  expression: Expression,
  target: Did,
  priority: Type.Integer(),
  disabled: Type.Optional(Type.Boolean()),
});
export const EventTrigger = Type.Object({
  name: Name,
  match: Type.Optional(Type.String({ minLength: 1, maxLength: 4096 })),
  schedule: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  target: Did,
  goal: Type.String({ minLength: 1, maxLength: 8192 }),
  budget: Type.Optional(Type.Number({ minimum: 0, default: 1.0 })),
  timeout: Type.Optional(Type.Integer({ minimum: 1, default: 300 })),
  cooldown: Type.Optional(Type.Integer({ minimum: 0, default: 60 })),
  max_concurrent: Type.Optional(Type.Integer({ minimum: 1, default: 1 })),
  disabled: Type.Optional(Type.Boolean()),
});
export const Permissions = Type.Object({ enabled: Type.Boolean() });
export const PermissionRule = Type.Object({
  name: Name,
  /** CEL over the record being written; true admits. */
  expression: Expression,
  description: Type.Optional(Type.String({ maxLength: 2000 })),
  disabled: Type.Optional(Type.Boolean()),
});
export const FoldRule = Type.Object({
  name: Name,
  expression: Expression,
  description: Type.Optional(Type.String({ maxLength: 2000 })),
  disabled: Type.Optional(Type.Boolean()),
});
export const BodyKindManifest = Type.Object({
  kind: Type.String({ pattern: '^[a-z0-9_]+(\\.[a-z0-9_]+){2,}$', maxLength: 200 }),
  indexed_fields: Type.Array(Type.String({ pattern: '^body\\.[A-Za-z0-9_-]+(\\.[A-Za-z0-9_-]+)*$' }), { maxItems: 32 }),
  disabled: Type.Optional(Type.Boolean()),
});

export interface TopicSpec {
  readonly schema: TSchema;
  /** `single`: one value, latest wins. Otherwise the body field that keys entries (latest per key wins). */
  readonly keyedBy: 'single' | string;
  /** The property of the configuration value that holds this topic. */
  readonly slot: string;
}

export const CONFIG_TOPICS = {
  auth_required: { schema: AuthRequired, keyedBy: 'single', slot: 'auth_required' },
  auth_cors_origins: { schema: AuthCorsOrigins, keyedBy: 'single', slot: 'auth_cors_origins' },
  actor_tier: { schema: ActorTier, keyedBy: 'actor', slot: 'actor_tiers' },
  embedding_provider: { schema: EmbeddingProvider, keyedBy: 'single', slot: 'embedding_provider' },
  'federation.relay': { schema: FederationRelay, keyedBy: 'for_pair', slot: 'federation_relays' },
  responder_override: { schema: ResponderOverride, keyedBy: 'did', slot: 'responder_overrides' },
  routing_rule: { schema: RoutingRule, keyedBy: 'name', slot: 'routing_rules' },
  event_trigger: { schema: EventTrigger, keyedBy: 'name', slot: 'event_triggers' },
  permissions: { schema: Permissions, keyedBy: 'single', slot: 'permissions' },
  permission_rule: { schema: PermissionRule, keyedBy: 'name', slot: 'permission_rules' },
  fold_rule: { schema: FoldRule, keyedBy: 'name', slot: 'fold_rules' },
  body_kind_manifest: { schema: BodyKindManifest, keyedBy: 'kind', slot: 'body_kind_manifests' },
} as const satisfies Record<string, TopicSpec>;

export type ConfigTopic = keyof typeof CONFIG_TOPICS;

/** Where an entry came from. */
export interface Provenance {
  record_id: string;
  sequence: number;
}

export type Entry<T> = T & Provenance;

export interface EngineConfig {
  /** Number of configuration records applied so far. */
  version: number;
  auth_required: Entry<Static<typeof AuthRequired>>;
  auth_cors_origins: Entry<Static<typeof AuthCorsOrigins>> | null;
  /** Effective tier per actor (`paid` or `team`); cleared actors are absent. */
  actor_tiers: Record<string, Entry<{ actor: string; tier: 'paid' | 'team' }>>;
  embedding_provider: Entry<{ provider: { kind: 'ollama'; endpoint: string; model: string } | null }> | null;
  federation_relays: Record<string, Entry<{ url: string; for_pair: string; enabled: boolean }>>;
  responder_overrides: Record<string, Entry<Static<typeof ResponderOverride>>>;
  routing_rules: Record<string, Entry<Static<typeof RoutingRule>>>;
  event_triggers: Record<string, Entry<Required<Omit<Static<typeof EventTrigger>, 'match' | 'schedule'>> & Pick<Static<typeof EventTrigger>, 'match' | 'schedule'>>>;
  permissions: Entry<Static<typeof Permissions>> | null;
  permission_rules: Record<string, Entry<Static<typeof PermissionRule>>>;
  fold_rules: Record<string, Entry<Static<typeof FoldRule>>>;
  body_kind_manifests: Record<string, Entry<Static<typeof BodyKindManifest>>>;
  /** Configuration records that did not apply, newest last (at most 100). */
  warnings: ConfigWarning[];
}

export interface ConfigWarning {
  record_id: string;
  sequence: number;
  topic: string | null;
  message: string;
}

export const DEFAULT_EMBEDDING_ENDPOINT = 'http://localhost:11434';
export const DEFAULT_EMBEDDING_MODEL = 'nomic-embed-text';
