import { expect } from 'chai';
import { Type } from 'typebox';
import { TH_ENGINE_CONFIG } from '../../records/reserved-threads.js';
import { makeRecord } from '../../records/record.js';
import { replayFold, type FoldInput } from '../fold.js';
import { ConfigTopicRegistry, defineConfigTopic } from './config-topic.js';
import { engineConfigFold } from './config-fold.js';

const single = defineConfigTopic({ topic: 'feature_flag', description: 'a flag', schema: Type.Object({ enabled: Type.Boolean() }), keyedBy: 'single' });
const keyed = defineConfigTopic({
  topic: 'limit_rule',
  description: 'keyed by name; a limit of 0 removes the entry',
  schema: Type.Object({ name: Type.String(), limit: Type.Integer({ minimum: 0 }), burst: Type.Optional(Type.Integer()) }),
  keyedBy: 'name',
  normalise: (fields) => (fields.limit === 0 ? null : fields.burst !== undefined && fields.burst < fields.limit ? 'burst must be at least the limit' : { burst: fields.limit, ...fields }),
});

let sequence = 0;
function learn(body: Record<string, unknown>, act = 'LEARN'): FoldInput {
  sequence++;
  return {
    sequence,
    record: makeRecord('0'.repeat(63) + (sequence % 10), { parents: [], thread: TH_ENGINE_CONFIG, actor: 'did:sync:user:owner', act, body, clock: sequence, data_type: 'SCALAR', judged_by: null } as never),
  };
}

describe('engine_config fold over registered topics', () => {
  const registry = new ConfigTopicRegistry();
  registry.register(single, 'flags');
  registry.register(keyed, 'limits');
  const fold = engineConfigFold(registry);

  it('starts with null single topics and empty keyed ones', () => {
    const value = replayFold(fold, 'global', []);
    expect(value.version).to.equal(0);
    expect(value.topics).to.deep.equal({ feature_flag: null, limit_rule: {} });
  });

  it('latest record per topic, or per key, wins; normalise fills defaults and removes', () => {
    const a = learn({ topic: 'feature_flag', enabled: true });
    const b = learn({ topic: 'limit_rule', name: 'x', limit: 5 });
    const c = learn({ topic: 'limit_rule', name: 'y', limit: 2, burst: 9 });
    const d = learn({ topic: 'feature_flag', enabled: false });
    const e = learn({ topic: 'limit_rule', name: 'y', limit: 0 });
    const value = replayFold(fold, 'global', [a, b, c, d, e]);
    expect(value.topics['feature_flag']).to.deep.equal({ enabled: false, record_id: d.record.id, sequence: d.sequence });
    expect(value.topics['limit_rule']).to.deep.equal({ x: { burst: 5, name: 'x', limit: 5, record_id: b.record.id, sequence: b.sequence } });
    expect(value.version).to.equal(5);
    expect(value.changed_at).to.deep.equal({ feature_flag: d.sequence, limit_rule: e.sequence });
  });

  it('keeps the previous value and warns for malformed records, other acts and unowned topics', () => {
    const good = learn({ topic: 'feature_flag', enabled: true });
    const inputs = [good, learn({ topic: 'feature_flag', enabled: 'yes' }), learn({ topic: 'feature_flag', enabled: false }, 'KNOW'), learn({ topic: 'nobody', x: 1 }), learn({ topic: 'limit_rule', name: 'z', limit: 5, burst: 1 })];
    const value = replayFold(fold, 'global', inputs);
    expect(value.topics['feature_flag']).to.deep.include({ enabled: true });
    expect(value.version).to.equal(1);
    expect(value.warnings.map((w) => w.topic)).to.deep.equal(['feature_flag', 'feature_flag', 'nobody', 'limit_rule']);
    expect(value.warnings[0]!.message).to.contain('enabled');
    expect(value.warnings[2]!.message).to.contain('no loaded plugin owns');
    expect(value.warnings[3]!.message).to.contain('burst must be at least the limit');
  });

  it('refuses a second owner of a topic and registrations after start', () => {
    const other = new ConfigTopicRegistry();
    other.register(single, 'flags');
    expect(() => other.register(single, 'intruder')).to.throw(/already owned by flags/);
    other.freeze();
    expect(() => other.register(keyed, 'late')).to.throw(/after the engine started/);
  });
});
