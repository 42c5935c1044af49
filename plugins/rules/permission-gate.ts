/**
 * Permission rules as an ingest gate (spec §2.9). While `permissions.enabled`
 * is true, every write the rules see is decided by the first covering rule
 * whose expression holds, in priority order (higher first, then name): allow
 * admits, deny refuses. No rule holding, or the deciding evaluation failing,
 * refuses: the gate fails closed. Refusals answer 403 FORBIDDEN naming the
 * rule and go to the instance log, never to records.
 *
 * What the rules see (docs/decisions.md): writes through the API and from
 * federation peers. Not: the engine's and plugins' own writes (credentials,
 * dispatches, heartbeats), replays of an export, the federation handshake
 * thread, and an administrator's writes to th_engine_config and
 * th_fleet_control, so no rule can lock out the configuration that would undo
 * it, nor the pairing that federation needs (§5.1.7).
 */
import type { GateInput, IngestGate } from '../../core/access/ingest-gate.js';
import { isAdmin } from '../../core/access/scopes.js';
import { LoomError } from '../../core/errors/loom-error.js';
import type { Config } from '../../core/folds/config/config-topic.js';
import type { Logger } from '../../core/plugin/logger.js';
import { TH_ENGINE_CONFIG, TH_FEDERATION_PAIRS, TH_FLEET_CONTROL } from '../../core/records/reserved-threads.js';
import { permissionActivation } from './cel/cel-environments.js';
import { evaluateCondition, type CompiledExpression, type ExpressionCache } from './cel/expression-cache.js';
import type { EngineTelemetry } from './engine-telemetry.js';
import { permissionsTopic, type PermissionRule } from './topics.js';
import type { ConfigTopic } from '../../core/folds/config/config-topic.js';

interface ActiveRule {
  readonly rule: PermissionRule;
  readonly expression: CompiledExpression;
}

/** Whether `namespace` is one of `roots` or below one of them. */
export function namespaceCovered(namespace: string, roots: readonly string[]): boolean {
  for (const root of roots) if (namespace === root || namespace.startsWith(root + '/')) return true;
  return false;
}

export class PermissionGate implements IngestGate {
  readonly name = 'rules.permission';
  private rules: ActiveRule[] | null = null;

  constructor(
    private readonly config: Config,
    private readonly topic: ConfigTopic<PermissionRule>,
    private readonly cache: ExpressionCache,
    private readonly telemetry: EngineTelemetry,
    private readonly log: Logger,
    private readonly now: () => number = Date.now,
  ) {}

  /** Drops the ordered rule list; called when permission_rule changes (hot reload). */
  invalidate(): void {
    this.rules = null;
  }

  enabled(): boolean {
    return this.config.single(permissionsTopic)?.enabled === true;
  }

  /** Enabled rules in evaluation order. */
  ordered(): readonly ActiveRule[] {
    if (this.rules === null) {
      this.rules = Object.values(this.config.keyed(this.topic))
        .filter((rule) => rule.enabled)
        .sort((a, b) => b.priority - a.priority || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
        .map((rule) => ({ rule, expression: this.cache.compile('permission', rule.expression) }));
    }
    return this.rules;
  }

  check(input: GateInput): void {
    if (!this.enabled()) return;
    const { record, namespace, context } = input;
    if (context.via === 'engine' || context.via === 'replay') return;
    if (record.thread === TH_FEDERATION_PAIRS) return;
    if ((record.thread === TH_ENGINE_CONFIG || record.thread === TH_FLEET_CONTROL) && isAdmin(context.caller.scopes)) return;
    let activation: Record<string, unknown> | null = null;
    for (const { rule, expression } of this.ordered()) {
      if (rule.acts !== null && !rule.acts.includes(record.act)) continue;
      if (rule.namespaces !== null && !namespaceCovered(namespace, rule.namespaces)) continue;
      activation ??= permissionActivation({ record, namespace, caller: context.caller, via: context.via, now: new Date(this.now()) });
      // The program compiled when the rules last changed; counted as a cache hit, so the statistics count real use.
      this.cache.countHit();
      let holds: boolean;
      try {
        holds = evaluateCondition(expression, activation);
      } catch (error) {
        this.telemetry.permissionEvaluationErrors++;
        this.deny(input, rule.name, `permission rule "${rule.name}" could not be evaluated (${error instanceof Error ? error.message.split('\n')[0] : String(error)}); permissions fail closed`);
      }
      if (!holds) continue;
      if (rule.effect === 'allow') return;
      this.deny(input, rule.name, `permission rule "${rule.name}" denies this write`);
    }
    this.deny(input, null, 'no permission rule allows this write; permissions fail closed while permissions.enabled is true');
  }

  private deny(input: GateInput, rule: string | null, reason: string): never {
    this.telemetry.permissionDenials++;
    const { record, namespace, context } = input;
    this.log.log('warn', 'permission denied', {
      rule,
      act: record.act,
      thread: record.thread,
      actor: record.actor,
      namespace,
      principal: context.caller.principal,
      via: context.via,
    });
    throw new LoomError('FORBIDDEN', `${reason} (${record.act} by ${record.actor} on ${record.thread} in namespace ${namespace})`);
  }
}
