/**
 * The routing rules in force, read from the routing_rule configuration topic
 * (the list route and the engine health read them).
 */
import { token } from '../../core/di/token.js';
import type { Config, ConfigTopic, Entry } from '../../core/folds/config/config-topic.js';
import type { RoutingRule } from './topics.js';

export class RoutingRules {
  constructor(
    private readonly config: Config,
    private readonly topic: ConfigTopic<RoutingRule>,
  ) {}

  /** Every rule in force, enabled or not, in no particular order. */
  all(): Array<Entry<RoutingRule>> {
    return Object.values(this.config.keyed(this.topic));
  }
}

export const RoutingRulesToken = token<RoutingRules>('rules.RoutingRules');
