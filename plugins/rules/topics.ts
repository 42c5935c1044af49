/**
 * The configuration topics the rules plugin owns (spec §2.9), LEARN records on
 * th_engine_config, latest per name wins. Each expression is compiled when
 * the record is checked (the configuration door answers 400 naming the
 * compile error; a record that arrives another way becomes a configuration
 * warning), so a rule in force always has a program. `remove: true` retires
 * a rule by name.
 */
import { Type, type Static } from 'typebox';
import { Cron } from 'croner';
import { ACTS, type Act } from '../../core/records/acts.js';
import { didSyntaxError } from '../../core/records/did-syntax.js';
import { namespaceSyntaxError } from '../../core/records/namespace-path.js';
import { defineConfigTopic, type ConfigTopic } from '../../core/folds/config/config-topic.js';
import { ExpressionCompileError, type ExpressionCache } from './cel/expression-cache.js';
import type { ExpressionContext } from './cel/cel-environments.js';
import { parseMatchPattern, type MatchPattern } from './triggers/match-pattern.js';

const RuleName = Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9][A-Za-z0-9_.:-]*$' });
const Expression = Type.String({ minLength: 1, maxLength: 4096 });
const Priority = Type.Integer({ minimum: -1_000_000, maximum: 1_000_000 });
const Description = Type.String({ maxLength: 500 });

export const TRIGGER_DEFAULTS = { budget: 1.0, timeout: 300, cooldown: 60, max_concurrent: 1 } as const;

function compileError(cache: ExpressionCache, context: ExpressionContext, expression: string): string | null {
  try {
    cache.compile(context, expression);
    return null;
  } catch (error) {
    if (error instanceof ExpressionCompileError) return `expression ${error.message}`;
    throw error;
  }
}

function targetError(target: string): string | null {
  const error = didSyntaxError(target);
  return error === null ? null : `target ${error}`;
}

export interface PermissionRule {
  readonly name: string;
  readonly expression: string;
  readonly effect: 'allow' | 'deny';
  readonly priority: number;
  /** Acts the rule covers; every act when absent. */
  readonly acts: readonly Act[] | null;
  /** Namespaces the rule covers, each with its descendants; every namespace when absent. */
  readonly namespaces: readonly string[] | null;
  readonly enabled: boolean;
  readonly description: string | null;
}

const PermissionRuleFields = Type.Object(
  {
    name: RuleName,
    expression: Type.Optional(Expression),
    effect: Type.Optional(Type.Union([Type.Literal('allow'), Type.Literal('deny')])),
    priority: Type.Optional(Priority),
    acts: Type.Optional(Type.Array(Type.Union(ACTS.map((act) => Type.Literal(act))), { minItems: 1, maxItems: ACTS.length, uniqueItems: true })),
    namespaces: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 256 }), { minItems: 1, maxItems: 64, uniqueItems: true })),
    enabled: Type.Optional(Type.Boolean()),
    description: Type.Optional(Description),
    remove: Type.Optional(Type.Literal(true)),
  },
  { additionalProperties: false },
);

export function permissionRuleTopic(cache: ExpressionCache): ConfigTopic<PermissionRule> {
  return defineConfigTopic({
    topic: 'permission_rule',
    description:
      'A CEL rule over every record write (context `permission`: record, caller, via, ns, now): name, expression, effect (allow|deny), priority (higher first), acts and namespaces it covers, enabled. ' +
      'Enforced while permissions.enabled is true: the first matching rule decides, no match or an evaluation error denies (403 FORBIDDEN naming the rule). remove: true retires the rule.',
    schema: PermissionRuleFields,
    keyedBy: 'name',
    normalise: (fields: Static<typeof PermissionRuleFields>): PermissionRule | string | null => {
      if (fields.remove) return null;
      if (fields.expression === undefined || fields.effect === undefined) return 'expression and effect are required (or remove: true)';
      const compile = compileError(cache, 'permission', fields.expression);
      if (compile) return compile;
      for (const namespace of fields.namespaces ?? []) {
        const error = namespaceSyntaxError(namespace);
        if (error) return `namespace ${JSON.stringify(namespace)} ${error}`;
      }
      return {
        name: fields.name,
        expression: fields.expression,
        effect: fields.effect,
        priority: fields.priority ?? 0,
        acts: fields.acts ?? null,
        namespaces: fields.namespaces ?? null,
        enabled: fields.enabled ?? true,
        description: fields.description ?? null,
      };
    },
  });
}

export const permissionsTopic = defineConfigTopic({
  topic: 'permissions',
  description:
    'enabled (default false): whether permission rules are enforced. While true the permission gate fails closed: a write no rule allows, or whose deciding rule errors, is refused.',
  schema: Type.Object({ enabled: Type.Boolean() }, { additionalProperties: false }),
  keyedBy: 'single',
});

export interface RoutingRule {
  readonly name: string;
  readonly expression: string;
  readonly target: string;
  readonly priority: number;
  readonly goal: string | null;
  readonly enabled: boolean;
  readonly description: string | null;
}

const RoutingRuleFields = Type.Object(
  {
    name: RuleName,
    expression: Type.Optional(Expression),
    target: Type.Optional(Type.String({ minLength: 1, maxLength: 512 })),
    priority: Type.Optional(Priority),
    goal: Type.Optional(Type.String({ minLength: 1, maxLength: 2000 })),
    enabled: Type.Optional(Type.Boolean()),
    description: Type.Optional(Description),
    remove: Type.Optional(Type.Literal(true)),
  },
  { additionalProperties: false },
);

export function routingRuleTopic(cache: ExpressionCache): ConfigTopic<RoutingRule> {
  return defineConfigTopic({
    topic: 'routing_rule',
    description:
      'Routes records to actors: name, expression (CEL, context `routing`: record, ns, now), target (actor DID), priority (higher first; first match wins), optional goal. RECONCILE dispatches each matched record to the target. remove: true retires the rule.',
    schema: RoutingRuleFields,
    keyedBy: 'name',
    normalise: (fields: Static<typeof RoutingRuleFields>): RoutingRule | string | null => {
      if (fields.remove) return null;
      if (fields.expression === undefined || fields.target === undefined) return 'expression and target are required (or remove: true)';
      const error = targetError(fields.target) ?? compileError(cache, 'routing', fields.expression);
      if (error) return error;
      return {
        name: fields.name,
        expression: fields.expression,
        target: fields.target,
        priority: fields.priority ?? 0,
        goal: fields.goal ?? null,
        enabled: fields.enabled ?? true,
        description: fields.description ?? null,
      };
    },
  });
}

export interface EventTrigger {
  readonly name: string;
  /** The match pattern's source, or null for a schedule trigger. */
  readonly match: string | null;
  /** A 5-field cron schedule (UTC), or null for a match trigger. */
  readonly schedule: string | null;
  readonly target: string;
  readonly goal: string;
  /** USD per firing. */
  readonly budget: number;
  /** Seconds a firing may stay open before it is drift (and frees its slot). */
  readonly timeout: number;
  /** Seconds after a firing during which the trigger does not fire again. */
  readonly cooldown: number;
  readonly max_concurrent: number;
  readonly disabled: boolean;
}

const EventTriggerFields = Type.Object(
  {
    name: RuleName,
    match: Type.Optional(Type.String({ minLength: 1, maxLength: 2000 })),
    schedule: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    target: Type.Optional(Type.String({ minLength: 1, maxLength: 512 })),
    goal: Type.Optional(Type.String({ minLength: 1, maxLength: 2000 })),
    budget: Type.Optional(Type.Number({ minimum: 0, maximum: 1_000_000 })),
    timeout: Type.Optional(Type.Integer({ minimum: 1, maximum: 7 * 86_400 })),
    cooldown: Type.Optional(Type.Integer({ minimum: 0, maximum: 7 * 86_400 })),
    max_concurrent: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
    'max-concurrent': Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
    disabled: Type.Optional(Type.Boolean()),
    remove: Type.Optional(Type.Literal(true)),
  },
  { additionalProperties: false },
);

/** The parsed form the trigger engine runs. */
export interface CompiledTrigger extends EventTrigger {
  readonly pattern: MatchPattern | null;
  readonly cron: Cron | null;
}

export function compileTrigger(trigger: EventTrigger): CompiledTrigger {
  const pattern = trigger.match === null ? null : parseMatchPattern(trigger.match);
  if (typeof pattern === 'string') throw new Error(pattern);
  return { ...trigger, pattern, cron: trigger.schedule === null ? null : cronOf(trigger.schedule) };
}

function cronOf(schedule: string): Cron {
  return new Cron(schedule, { timezone: 'UTC', paused: true, mode: '5-part' });
}

export const eventTriggerTopic = defineConfigTopic({
  topic: 'event_trigger',
  description:
    'Wakes an actor: name, match (a pattern such as act=KNOW,body.topic=task_completion) or schedule (5-field cron, UTC), never both; target (DID), goal, budget (USD, 1.0), timeout (s, 300), cooldown (s, 60), max_concurrent (1), disabled. ' +
    'Rate-limited and causal-chain protected: a record descended from a firing never fires that trigger again. remove: true retires it.',
  schema: EventTriggerFields,
  keyedBy: 'name',
  normalise: (fields: Static<typeof EventTriggerFields>): EventTrigger | string | null => {
    if (fields.remove) return null;
    if ((fields.match === undefined) === (fields.schedule === undefined)) return 'exactly one of match or schedule is required';
    if (fields.target === undefined || fields.goal === undefined) return 'target and goal are required (or remove: true)';
    const error = targetError(fields.target);
    if (error) return error;
    if (fields.match !== undefined) {
      const pattern = parseMatchPattern(fields.match);
      if (typeof pattern === 'string') return `match ${pattern}`;
    }
    if (fields.schedule !== undefined) {
      try {
        cronOf(fields.schedule);
      } catch (cause) {
        return `schedule ${JSON.stringify(fields.schedule)} is not a 5-field cron expression: ${cause instanceof Error ? cause.message : String(cause)}`;
      }
    }
    if (fields.max_concurrent !== undefined && fields['max-concurrent'] !== undefined && fields.max_concurrent !== fields['max-concurrent']) {
      return 'max_concurrent and max-concurrent disagree; send one';
    }
    return {
      name: fields.name,
      match: fields.match ?? null,
      schedule: fields.schedule ?? null,
      target: fields.target,
      goal: fields.goal,
      budget: fields.budget ?? TRIGGER_DEFAULTS.budget,
      timeout: fields.timeout ?? TRIGGER_DEFAULTS.timeout,
      cooldown: fields.cooldown ?? TRIGGER_DEFAULTS.cooldown,
      max_concurrent: fields.max_concurrent ?? fields['max-concurrent'] ?? TRIGGER_DEFAULTS.max_concurrent,
      disabled: fields.disabled ?? false,
    };
  },
});
