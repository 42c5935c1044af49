import { expect } from 'chai';
import { LOCAL, LOCAL_OPERATOR_DID, SYSTEM } from '../access/caller.js';
import { ENGINE_WRITE } from './ingest.js';
import { rec, startTestEngine, TH_A, TH_B, type TestEngine } from '../../test/helpers/test-engine.js';

describe('RecordWriter.appendAs and RecordReader.pages', () => {
  let handle: TestEngine;
  beforeEach(async () => {
    handle = await startTestEngine();
  });
  afterEach(() => handle.cleanup());

  it('writes at the actor’s next clock with the fixed fields, parents sorted', async () => {
    const { engine } = handle;
    const first = await engine.writer.appendAs(LOCAL, { thread: TH_A, act: 'INTEND', body: { goal: 'g' } });
    expect(first.stored.record).to.include({ actor: LOCAL_OPERATOR_DID, clock: 0, data_type: 'SCALAR', judged_by: null });
    const other = await engine.writer.appendAs(SYSTEM, { thread: TH_A, act: 'KNOW', body: {}, actor: 'did:sync:agent:b' });
    const second = await engine.writer.appendAs(LOCAL, { thread: TH_A, act: 'DO', body: {}, parents: [other.stored.record.id, first.stored.record.id] });
    expect(second.stored.record.clock).to.equal(1);
    expect(second.stored.record.parents).to.deep.equal([other.stored.record.id, first.stored.record.id].sort());
  });

  it('retries at the next clock when a concurrent write takes the slot', async () => {
    const { engine } = handle;
    const writes = await Promise.all([0, 1, 2, 3].map((i) => engine.writer.appendAs(LOCAL, { thread: TH_A, act: 'DO', body: { i } })));
    expect(writes.map((w) => w.stored.record.clock).sort()).to.deep.equal([0, 1, 2, 3]);
  });

  it('lands a body that names no namespace in its thread’s namespace', async () => {
    const { engine } = handle;
    await engine.ingestor.ingest(ENGINE_WRITE, rec({ thread: 'th_namespace_registry', actor: 'did:sync:user:admin', act: 'LEARN', clock: 0, body: { namespace_id: 'acme' } }));
    await engine.ingestor.ingest(ENGINE_WRITE, rec({ thread: TH_B, actor: 'did:sync:agent:a', clock: 0, body: { namespace: 'acme' } }));
    const { stored } = await engine.writer.appendAs(LOCAL, { thread: TH_B, act: 'DO', body: {} });
    expect(stored.record.body).to.deep.equal({ namespace: 'acme' });
  });

  it('writes a sequence in one commit at successive clocks, later records citing earlier ones by their content address', async () => {
    const { engine } = handle;
    await engine.writer.appendAs(LOCAL, { thread: TH_A, act: 'DO', body: { before: true } });
    const written = await engine.writer.appendSequenceAs(LOCAL, { thread: TH_A }, [
      { act: 'DO', body: { step: 'turn' }, parents: () => [] },
      { act: 'CALL', body: { step: 'call 1' }, parents: (earlier) => [earlier[0]!] },
      { act: 'CALL', body: { step: 'call 2' }, parents: (earlier) => [earlier[0]!] },
    ]);
    const [turn, first, second] = written.map((result) => result.stored);
    expect(written.map((result) => result.stored.record.clock)).to.deep.equal([1, 2, 3]);
    expect(first!.record.parents).to.deep.equal([turn!.record.id]);
    expect(second!.record.parents).to.deep.equal([turn!.record.id]);
    expect((await engine.reader.get(LOCAL, first!.record.id))?.record.body).to.deep.equal({ step: 'call 1' });
  });

  it('writes nothing of a sequence whose first record is refused', async () => {
    const { engine } = handle;
    const before = engine.reader.position;
    let refused: unknown = null;
    try {
      await engine.writer.appendSequenceAs(LOCAL, { thread: TH_A }, [
        { act: 'NOT_AN_ACT', body: {}, parents: () => [] },
        { act: 'DO', body: {}, parents: (earlier) => [earlier[0]!] },
      ]);
    } catch (error) {
      refused = error;
    }
    expect(refused).to.have.property('code');
    expect(engine.reader.position).to.equal(before);
  });

  it('pages a thread to its end, or up to a sequence', async () => {
    const { engine } = handle;
    for (let i = 0; i < 5; i++) await engine.writer.appendAs(LOCAL, { thread: TH_A, act: 'DO', body: { i } });
    const pages = [];
    for await (const page of engine.reader.pages(LOCAL, TH_A, { limit: 2 })) pages.push(page.items.length);
    expect(pages).to.deep.equal([2, 2, 1]);
    const seen = [];
    for await (const stored of engine.reader.records(LOCAL, TH_A, { after: 1, upTo: 4, limit: 2 })) seen.push(stored.sequence);
    expect(seen).to.deep.equal([2, 3, 4]);
  });
});
