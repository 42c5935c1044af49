/**
 * Rule records are checked at every door, not only POST /v1/config/{topic}:
 * a LEARN on th_engine_config for a rules topic whose fields are malformed or
 * whose expression does not compile is refused with 400 INVALID_SHAPE naming
 * the error, so a broken rule never reaches the log from a client. Records
 * from peers and replays are folded as usual (a bad one becomes a warning).
 */
import type { GateInput, IngestGate } from '../../core/access/ingest-gate.js';
import { LoomError } from '../../core/errors/loom-error.js';
import { checkConfigFields, configFields } from '../../core/folds/config/config-fold.js';
import type { ConfigTopic } from '../../core/folds/config/config-topic.js';
import { TH_ENGINE_CONFIG } from '../../core/records/reserved-threads.js';

export function ruleConfigGate(topics: ReadonlyArray<ConfigTopic<unknown>>): IngestGate {
  const byName = new Map(topics.map((topic) => [topic.topic, topic]));
  return {
    name: 'rules.rule-config',
    check({ record, context }: GateInput) {
      if (record.thread !== TH_ENGINE_CONFIG || record.act !== 'LEARN' || (context.via !== 'api' && context.via !== 'engine')) return;
      const name = record.body['topic'];
      const topic = typeof name === 'string' ? byName.get(name) : undefined;
      if (!topic) return;
      const checked = checkConfigFields(topic, configFields(record.body));
      if (!checked.ok) throw new LoomError('INVALID_SHAPE', checked.message);
    },
  };
}
