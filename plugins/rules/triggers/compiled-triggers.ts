/**
 * The event triggers in force, compiled (match pattern, cron) with their
 * provenance; compiled once and again only after the event_trigger topic
 * changes.
 */
import { token } from '../../../core/di/token.js';
import type { Config, Entry } from '../../../core/folds/config/config-topic.js';
import { compileTrigger, eventTriggerTopic, type CompiledTrigger } from '../topics.js';

export class CompiledTriggers {
  private compiled: Array<Entry<CompiledTrigger>> | null = null;

  constructor(private readonly config: Config) {}

  inForce(): ReadonlyArray<Entry<CompiledTrigger>> {
    return (this.compiled ??= Object.values(this.config.keyed(eventTriggerTopic)).map((entry) => ({ ...compileTrigger(entry), record_id: entry.record_id, sequence: entry.sequence })));
  }

  /** Called when the event_trigger topic changes. */
  invalidate(): void {
    this.compiled = null;
  }
}

export const CompiledTriggersToken = token<CompiledTriggers>('rules.CompiledTriggers');
