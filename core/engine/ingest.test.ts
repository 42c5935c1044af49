import { ENGINE_WRITE } from './ingest.js';
import { expect } from 'chai';
import { LoomError } from '../errors/loom-error.js';
import { TH_ENGINE_CONFIG, TH_NAMESPACE_REGISTRY } from '../records/reserved-threads.js';
import { computeRecordId } from '../records/record-id.js';
import { nobleSha256Hex } from '../records/sha256.js';
import { rec, startTestEngine, TH_A, TH_B, type TestEngine } from '../../test/helpers/test-engine.js';
import { refusalOf as refusal } from '../errors/refusal-of.js';

describe('ingest pipeline', () => {
  let t: TestEngine;
  beforeEach(async () => (t = await startTestEngine()));
  afterEach(async () => t.cleanup());

  it('stores a record under its content address and echoes it', async () => {
    const input = rec({ clock: 0, act: 'INTEND', body: { goal: 'ship' } });
    const { stored, created } = await t.engine.ingestor.ingest(ENGINE_WRITE, input);
    expect(created).to.equal(true);
    expect(stored.record.id).to.equal(computeRecordId({ ...input, parents: [] } as never, nobleSha256Hex));
    expect(stored.record.parents).to.deep.equal([]);
    expect(stored.record.judged_by).to.equal(null);
    expect((await t.engine.store.get(stored.record.id))?.record).to.deep.equal(stored.record);
  });

  it("stores a frozen canonical copy of the body and leaves the client's objects unfrozen", async () => {
    const body = { z: { y: 1, x: [2, { b: true, a: null }] }, a: 'first' };
    const input = { ...rec({ clock: 0 }), body, parents: [] as string[] };
    const { stored } = await t.engine.ingestor.ingest(ENGINE_WRITE, input);
    expect(stored.record.body).to.deep.equal(body);
    expect(Object.keys(stored.record.body)).to.deep.equal(['a', 'z']);
    expect(Object.keys(stored.record.body['z'] as object)).to.deep.equal(['x', 'y']);
    expect(Object.isFrozen(stored.record) && Object.isFrozen(stored.record.body) && Object.isFrozen(stored.record.parents)).to.equal(true);
    expect(Object.isFrozen((stored.record.body['z'] as { x: unknown[] }).x[1])).to.equal(true);
    expect(Object.isFrozen(body) || Object.isFrozen(body.z) || Object.isFrozen(body.z.x) || Object.isFrozen(input.parents)).to.equal(false);
    body.a = 'changed afterwards';
    expect(stored.record.body['a']).to.equal('first');
  });

  it('answers an identical resend with the stored record, flagged not new', async () => {
    const first = await t.engine.ingestor.ingest(ENGINE_WRITE, rec({ clock: 0 }));
    const again = await t.engine.ingestor.ingest(ENGINE_WRITE, rec({ clock: 0 }));
    expect(again.created).to.equal(false);
    expect(again.stored.sequence).to.equal(first.stored.sequence);
  });

  it('refuses the same (actor, thread, clock) with other content: DUPLICATE_CLOCK 409', async () => {
    await t.engine.ingestor.ingest(ENGINE_WRITE, rec({ clock: 0, body: { a: 1 } }));
    const error = await refusal(t.engine.ingestor.ingest(ENGINE_WRITE, rec({ clock: 0, body: { a: 2 } })));
    expect(error.code).to.equal('DUPLICATE_CLOCK');
    expect(error.status).to.equal(409);
    // Independent per actor and per thread.
    await t.engine.ingestor.ingest(ENGINE_WRITE, rec({ clock: 0, actor: 'did:sync:user:bob', body: { a: 2 } }));
    await t.engine.ingestor.ingest(ENGINE_WRITE, rec({ clock: 0, thread: TH_B, body: { a: 2 } }));
  });

  it('refuses invalid shapes with INVALID_SHAPE naming the field', async () => {
    for (const [input, field] of [
      [{ ...rec({ clock: 0 }), thread: 'th_nope' }, 'thread'],
      [{ ...rec({ clock: -1 }) }, 'clock'],
      [{ ...rec({ clock: 0 }), act: 'SHOUT' }, 'act'],
      [{ ...rec({ clock: 0 }), body: { s: 'lone \ud800 surrogate' } }, 'body'],
      [{ ...rec({ clock: 0 }), id: '0'.repeat(64) }, 'id'],
      [{ ...rec({ clock: 0 }), body: { namespace: 7 } }, 'body.namespace'],
    ] as const) {
      const error = await refusal(t.engine.ingestor.ingest(ENGINE_WRITE, input));
      expect(error.code, field).to.equal('INVALID_SHAPE');
      expect(error.message, field).to.contain(field);
      // The failing path travels as a fact (in-process only), so no reader parses the message.
      expect(error.facts['path'], field).to.equal(field);
      expect(error.toEnvelope(), field).to.not.have.property('path');
    }
  });

  it("marks a claimed id that is not the content's hash as reason id_mismatch, with the computed id", async () => {
    const input = rec({ clock: 0 });
    const error = await refusal(t.engine.ingestor.ingest(ENGINE_WRITE, { ...input, id: '0'.repeat(64) }));
    expect(error.facts).to.include({ path: 'id', reason: 'id_mismatch', computed_id: computeRecordId({ ...input, parents: [] } as never) });
    const malformed = await refusal(t.engine.ingestor.ingest(ENGINE_WRITE, { ...input, clock: -1 }));
    expect(malformed.facts).to.not.have.property('reason');
  });

  it('accepts the id when the client echoes the right one', async () => {
    const input = rec({ clock: 3 });
    const id = computeRecordId({ ...input, parents: [] } as never);
    const { stored } = await t.engine.ingestor.ingest(ENGINE_WRITE, { ...input, id });
    expect(stored.record.id).to.equal(id);
  });

  describe('namespace narrowing', () => {
    const declare = (namespace_id: string, clock: number, state = 'active') =>
      t.engine.ingestor.ingest(ENGINE_WRITE, rec({ thread: TH_NAMESPACE_REGISTRY, act: 'LEARN', actor: 'did:sync:system:ops', clock, body: { namespace_id, state } }));

    it('always accepts the default namespace', async () => {
      await t.engine.ingestor.ingest(ENGINE_WRITE, rec({ clock: 0 }));
      await t.engine.ingestor.ingest(ENGINE_WRITE, rec({ clock: 1, body: { namespace: 'default' } }));
    });

    it('refuses a missing ancestor with 403 NAMESPACE_REJECTED, type and recovery command', async () => {
      const error = await refusal(t.engine.ingestor.ingest(ENGINE_WRITE, rec({ clock: 0, body: { namespace: 'acme/web/prod' } })));
      expect(error.code).to.equal('NAMESPACE_REJECTED');
      expect(error.status).to.equal(403);
      expect(error.type).to.equal('invalid_request_error');
      expect(error.message).to.contain('"acme"').and.to.contain('loom namespace create acme');
    });

    it('accepts a record right after its namespace chain is declared (read-your-writes)', async () => {
      await declare('acme', 0);
      const missing = await refusal(t.engine.ingestor.ingest(ENGINE_WRITE, rec({ clock: 0, body: { namespace: 'acme/web' } })));
      expect(missing.message).to.contain('"acme/web"');
      await declare('acme/web', 1);
      await t.engine.ingestor.ingest(ENGINE_WRITE, rec({ clock: 0, body: { namespace: 'acme/web' } }));
    });

    it('refuses records under an archived ancestor and accepts again once re-activated', async () => {
      await declare('acme', 0);
      await declare('acme/web', 1);
      await declare('acme', 2, 'archived');
      const error = await refusal(t.engine.ingestor.ingest(ENGINE_WRITE, rec({ clock: 0, body: { namespace: 'acme/web' } })));
      expect(error.code).to.equal('NAMESPACE_REJECTED');
      expect(error.message).to.contain('"acme"').and.to.contain('archived');
      await declare('acme', 3, 'active');
      await t.engine.ingestor.ingest(ENGINE_WRITE, rec({ clock: 0, body: { namespace: 'acme/web' } }));
    });

    it('keeps the registry across a restart (rebuilt from the log)', async () => {
      await declare('acme', 0);
      const engine = await t.restart();
      await engine.ingestor.ingest(ENGINE_WRITE, rec({ clock: 0, body: { namespace: 'acme' } }));
    });
  });

  describe('group commit', () => {
    it('resolves concurrent conflicting ingests exactly as if one by one', async () => {
      // 50 distinct records, each sent 3 times, plus 50 rivals for the same clocks with other bodies.
      const inputs: unknown[] = [];
      for (let i = 0; i < 50; i++) {
        const original = rec({ clock: i, body: { n: i } });
        inputs.push(original, rec({ clock: i, body: { n: -i - 1 } }), original, original);
      }
      const results = await Promise.allSettled(inputs.map((input) => t.engine.ingestor.ingest(ENGINE_WRITE, input)));
      for (let i = 0; i < 50; i++) {
        const [first, rival, again1, again2] = results.slice(i * 4, i * 4 + 4);
        expect(first!.status).to.equal('fulfilled');
        expect((first as PromiseFulfilledResult<{ created: boolean }>).value.created).to.equal(true);
        expect(rival!.status).to.equal('rejected');
        expect(((rival as PromiseRejectedResult).reason as LoomError).code).to.equal('DUPLICATE_CLOCK');
        for (const again of [again1, again2]) {
          expect((again as PromiseFulfilledResult<{ created: boolean }>).value.created).to.equal(false);
        }
      }
      expect(await t.engine.store.watermark()).to.equal(50);
    });

    it('ingestMany reports each record on its own', async () => {
      const results = await t.engine.ingestor.ingestMany(ENGINE_WRITE, [rec({ clock: 0 }), { nope: true }, rec({ clock: 0 }), rec({ clock: 0, body: { x: 1 } })]);
      expect((results[0] as { created: boolean }).created).to.equal(true);
      expect((results[1] as LoomError).code).to.equal('INVALID_SHAPE');
      expect((results[2] as { created: boolean }).created).to.equal(false);
      expect((results[3] as LoomError).code).to.equal('DUPLICATE_CLOCK');
    });

    it('ingestPrefix stores only the records before the first refusal; store-decided conflicts do not stop it', async () => {
      const { results, refusal: refused } = await t.engine.ingestor.ingestPrefix(ENGINE_WRITE, [rec({ clock: 0 }), rec({ clock: 0, body: { x: 1 } }), rec({ clock: 1 }), { nope: true }, rec({ clock: 2 })]);
      expect(results).to.have.length(3);
      expect((results[0] as { created: boolean }).created).to.equal(true);
      expect((results[1] as LoomError).code).to.equal('DUPLICATE_CLOCK');
      expect((results[2] as { created: boolean }).created).to.equal(true);
      expect(refused?.code).to.equal('INVALID_SHAPE');
      expect(await t.engine.store.watermark(), 'nothing after the refusal is stored').to.equal(2);
      const clean = await t.engine.ingestor.ingestPrefix(ENGINE_WRITE, [rec({ clock: 3 })]);
      expect(clean.refusal).to.equal(null);
      expect(clean.results).to.have.length(1);
    });
  });

  it('configuration records of a topic nobody registered are kept as warnings', async () => {
    await t.engine.ingestor.ingest(ENGINE_WRITE, rec({ thread: TH_ENGINE_CONFIG, act: 'LEARN', clock: 0, body: { topic: 'nobody_owns_this', enabled: true } }));
    const config = t.engine.configuration();
    expect(config.version).to.equal(0);
    expect(config.warnings.map((w) => w.topic)).to.deep.equal(['nobody_owns_this']);
  });
});
