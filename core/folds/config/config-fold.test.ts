import { expect } from 'chai';
import { TH_ENGINE_CONFIG } from '../../records/reserved-threads.js';
import { rec, startTestEngine, type TestEngine } from '../../engine/test-engine.js';
import { replayFold } from '../fold.js';
import { engineConfigFold } from './config-fold.js';
import type { EngineConfig } from './config-topics.js';

describe('engine_config fold', () => {
  let t: TestEngine;
  let clock = 0;
  beforeEach(async () => {
    t = await startTestEngine();
    clock = 0;
  });
  afterEach(async () => t.cleanup());

  const learn = (body: Record<string, unknown>, act = 'LEARN') => t.engine.ingestor.ingest(rec({ thread: TH_ENGINE_CONFIG, act, actor: 'did:sync:user:owner', clock: clock++, body }));
  const config = () => t.engine.config();

  it('has typed defaults before any record', () => {
    const c = config();
    expect(c.version).to.equal(0);
    expect(c.auth_required.enabled).to.equal(false);
    expect(c.embedding_provider).to.equal(null);
    expect(c.routing_rules).to.deep.equal({});
  });

  it('latest record per topic wins, and changes apply on broadcast', async () => {
    await learn({ topic: 'auth_required', enabled: true });
    expect(config().auth_required.enabled).to.equal(true);
    await learn({ topic: 'auth_required', enabled: false });
    expect(config().auth_required.enabled).to.equal(false);
    expect(config().version).to.equal(2);
  });

  it('keeps the previous value and reports a warning for a malformed record, which still ingests', async () => {
    await learn({ topic: 'auth_cors_origins', origins: ['https://a.example'] });
    const bad = await learn({ topic: 'auth_cors_origins', origins: 'https://b.example' });
    expect(bad.created).to.equal(true);
    expect(config().auth_cors_origins?.origins).to.deep.equal(['https://a.example']);
    const warning = config().warnings.at(-1)!;
    expect(warning.record_id).to.equal(bad.stored.record.id);
    expect(warning.topic).to.equal('auth_cors_origins');
    await learn({ topic: 'no_such_topic', x: 1 });
    await learn({ topic: 'auth_required', enabled: true }, 'KNOW');
    expect(config().warnings).to.have.length(3);
    expect(config().auth_required.enabled, 'a KNOW does not configure').to.equal(false);
  });

  it('keys named rules by name (latest per name wins) and applies defaults', async () => {
    await learn({ topic: 'routing_rule', name: 'code', expression: "record.body.domain == 'code'", target: 'did:sync:agent:coder', priority: 100 });
    await learn({ topic: 'routing_rule', name: 'docs', expression: 'true', target: 'did:sync:agent:writer', priority: 10 });
    await learn({ topic: 'routing_rule', name: 'code', expression: 'false', target: 'did:sync:agent:coder', priority: 50 });
    expect(Object.keys(config().routing_rules).sort()).to.deep.equal(['code', 'docs']);
    expect(config().routing_rules['code']!.priority).to.equal(50);
    await learn({ topic: 'event_trigger', name: 'nightly', schedule: '0 9 * * *', target: 'did:sync:agent:digest', goal: 'digest', 'max-concurrent': 2 });
    expect(config().event_triggers['nightly']).to.include({ budget: 1.0, timeout: 300, cooldown: 60, max_concurrent: 2 });
    await learn({ topic: 'event_trigger', name: 'both', schedule: '* * * * *', match: 'act=KNOW', target: 'did:sync:agent:x', goal: 'g' });
    expect(config().event_triggers['both']).to.equal(undefined);
  });

  it('clamps actor tiers above team, clears on empty, and defaults the embedding provider', async () => {
    await learn({ topic: 'actor_tier', actor: 'did:sync:agent:a', tier: 'operator' });
    await learn({ topic: 'actor_tier', actor: 'did:sync:agent:b', tier: 'paid' });
    expect(config().actor_tiers['did:sync:agent:a']!.tier).to.equal('team');
    await learn({ topic: 'actor_tier', actor: 'did:sync:agent:b', tier: '' });
    expect(config().actor_tiers['did:sync:agent:b']).to.equal(undefined);
    await learn({ topic: 'embedding_provider', provider: { kind: 'ollama' } });
    expect(config().embedding_provider?.provider).to.deep.equal({ kind: 'ollama', endpoint: 'http://localhost:11434', model: 'nomic-embed-text' });
    await learn({ topic: 'embedding_provider', provider: { kind: 'openai' } });
    expect(config().embedding_provider?.provider?.kind, 'only the one local kind is accepted').to.equal('ollama');
    await learn({ topic: 'embedding_provider', provider: null });
    expect(config().embedding_provider?.provider).to.equal(null);
  });

  it('is rebuilt from the log at startup and equals a full replay', async () => {
    await learn({ topic: 'auth_required', enabled: true });
    await learn({ topic: 'permissions', enabled: true });
    await learn({ topic: 'permission_rule', name: 'no-deletes', expression: "record.act != 'DO'" });
    await learn({ topic: 'body_kind_manifest', kind: 'code_review.request.v1', indexed_fields: ['body.branch'] });
    const before = config();
    const engine = await t.restart();
    const page = await engine.store.listByThread(TH_ENGINE_CONFIG, { limit: 1000 });
    expect(engine.config()).to.deep.equal(before);
    expect(replayFold(engineConfigFold, 'engine_config', page.items)).to.deep.equal(before as EngineConfig);
  });
});
