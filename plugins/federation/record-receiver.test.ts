import { expect } from 'chai';
import { SYSTEM } from '../../core/access/caller.js';
import { rec, startTestEngine, TH_A, type TestEngine } from '../../test/helpers/test-engine.js';
import { TH_ENGINE_CONFIG, TH_NAMESPACE_REGISTRY } from '../../core/records/reserved-threads.js';
import type { LoomRecord } from '../../core/records/record.js';
import { MemoryOriginStore } from './origin-store.js';
import { computeRecordId } from '../../core/records/record-id.js';
import { INSTANCE_LOCAL_THREADS, LocalRecords } from './local-records.js';
import { RecordReceiver } from './record-receiver.js';

describe('RecordReceiver', () => {
  let t: TestEngine;
  let receiver: RecordReceiver;
  const source = { origin: 'did:key:z6MkPeer', via: 'pull' as const, pair_id: 'sp_test' };
  const context = { caller: SYSTEM, via: 'federation' as const };
  beforeEach(async () => {
    t = await startTestEngine();
    receiver = new RecordReceiver({ ingestor: t.engine.ingestor, origins: new MemoryOriginStore(), now: Date.now });
  });
  afterEach(async () => t.cleanup());

  it('stopAtRefusal stores the records before the first refusal, none after, and takes a record that depends on an earlier one of the batch', async () => {
    const records = [
      rec({ thread: TH_NAMESPACE_REGISTRY, act: 'LEARN', actor: 'did:sync:user:ns-admin', clock: 0, body: { namespace_id: 'acme' } }),
      // Prepared before the declaration above is stored, this one is refused at first; the receiver tries it again.
      rec({ clock: 0, body: { namespace: 'acme', n: 1 } }),
      { ...rec({ clock: 1, body: { n: 2 } }), extra: 'not a record field' },
      rec({ clock: 2, body: { n: 3 } }),
    ] as unknown as LoomRecord[];
    const outcome = await receiver.receive(records, context, source, { stopAtRefusal: true });
    expect(outcome.accepted).to.have.length(2);
    expect(outcome.acceptedIndexes).to.deep.equal([0, 1]);
    expect(outcome.stoppedAt).to.equal(2);
    expect(outcome.refused.map((r) => r.code)).to.deep.equal(['INVALID_SHAPE']);
    const thread = await t.engine.store.listByThread(TH_A, { after: 0, limit: 10 });
    expect(thread.items.map((s) => s.record.body['n'])).to.deep.equal([1]);
  });

  it('without stopAtRefusal, one bad record does not stop the rest (pushes answer per record)', async () => {
    const records = [{ ...rec({ clock: 0 }), extra: true }, rec({ clock: 1 })] as unknown as LoomRecord[];
    const outcome = await receiver.receive(records, context, source);
    expect(outcome.stoppedAt).to.equal(null);
    expect(outcome.accepted).to.have.length(1);
    expect(outcome.refused).to.have.length(1);
    expect(outcome.tampered).to.deep.equal([]);
  });

  it('tells a record whose content does not hash to its id (tampered) from a malformed one, by the refusal facts', async () => {
    const genuine = rec({ clock: 0, body: { n: 1 } });
    const stored = await receiver.receive([genuine as unknown as LoomRecord], context, source);
    const id = stored.accepted[0]!;
    const forged = { ...rec({ clock: 1, body: { n: 'changed in transit' } }), id } as unknown as LoomRecord;
    const malformed = { ...rec({ clock: 2 }), extra: true } as unknown as LoomRecord;
    const outcome = await receiver.receive([forged, malformed], context, source);
    expect(outcome.refused.map((r) => r.code)).to.deep.equal(['INVALID_SHAPE', 'INVALID_SHAPE']);
    expect(outcome.tampered).to.deep.equal([id]);
  });

  it("skips a peer's records on this instance's own threads (its configuration): not stored, indexes still the input's", async () => {
    const local = new LocalRecords(INSTANCE_LOCAL_THREADS);
    const guarded = new RecordReceiver({ ingestor: t.engine.ingestor, origins: new MemoryOriginStore(), now: Date.now, instanceLocal: (r) => local.hasThread(r.thread) });
    const fields = rec({ thread: TH_ENGINE_CONFIG, act: 'LEARN', actor: 'did:sync:user:peer-admin', clock: 0, body: { topic: 'federation.relay', value: { url: 'http://peer.example', for_pair: 'all' } } });
    const config = { ...fields, id: computeRecordId({ ...fields, parents: fields.parents ?? [] } as never) };
    const records = [rec({ clock: 0, body: { n: 1 } }), config, { ...rec({ clock: 1, body: { n: 2 } }), extra: true }, rec({ clock: 2, body: { n: 3 } })] as unknown as LoomRecord[];
    const outcome = await guarded.receive(records, context, source, { stopAtRefusal: true });
    expect(outcome.skipped).to.deep.equal([config.id]);
    expect(outcome.acceptedIndexes).to.deep.equal([0]);
    expect(outcome.stoppedAt).to.equal(2);
    expect((await t.engine.store.listByThread(TH_ENGINE_CONFIG, { after: 0, limit: 10 })).items).to.deep.equal([]);
    // The same record written locally (not from a peer) is not this receiver's business: core and the gates decide.
    const own = await guarded.receive([config as unknown as LoomRecord], { caller: SYSTEM, via: 'api' as const }, null);
    expect(own.skipped).to.deep.equal([]);
    expect(own.accepted).to.deep.equal([config.id]);
  });
});
