import { expect } from 'chai';
import { makeRecord, type LoomRecord } from '../../../core/records/record.js';
import { KIND_DISPATCH } from '../dispatch/dispatch-kinds.js';
import { TriggerLineage } from './trigger-lineage.js';

let counter = 0;
function rec(parents: LoomRecord[], body: Record<string, unknown> = {}): LoomRecord {
  const id = (++counter).toString(16).padStart(64, '0');
  return makeRecord(id, { parents: parents.map((p) => p.id).sort(), thread: 'th_' + 'e'.repeat(64), actor: 'did:sync:agent:a', act: 'KNOW', body: body as never, clock: counter, data_type: 'SCALAR', judged_by: null });
}
const firing = (name: string, parent: LoomRecord) => rec([parent], { kind: KIND_DISPATCH, origin: { type: 'trigger', name } });

describe('trigger lineage (causal-chain protection)', () => {
  it('walks the store for unseen ancestry and finds every firing above a record', async () => {
    const root = rec([]);
    const a = firing('A', root);
    const reply = rec([a]);
    const b = firing('B', reply);
    const second = rec([b]);
    const store = new Map([root, a, reply, b, second].map((r) => [r.id, r]));
    const lineage = new TriggerLineage(async (id) => store.get(id));
    expect([...(await lineage.ancestorsOf(rec([second])))!].sort()).to.deep.equal(['A', 'B']);
    expect([...(await lineage.ancestorsOf(rec([root])))!]).to.deep.equal([]);
  });

  it('propagates lineage as records pass, without reading the store', async () => {
    const lineage = new TriggerLineage(async () => {
      throw new Error('no store reads expected');
    });
    const root = rec([]);
    lineage.observe(root);
    const a = firing('A', root);
    lineage.observe(a);
    const reply = rec([a]);
    lineage.observe(reply);
    expect([...(await lineage.ancestorsOf(rec([reply])))!]).to.deep.equal(['A']);
    expect(lineage.walks).to.equal(0);
  });

  it('gives up (null) past its walk limit rather than walking forever', async () => {
    const chain: LoomRecord[] = [rec([])];
    for (let i = 0; i < 50; i++) chain.push(rec([chain[chain.length - 1]!]));
    const store = new Map(chain.map((r) => [r.id, r]));
    const lineage = new TriggerLineage(async (id) => store.get(id), 1000, 10);
    expect(await lineage.ancestorsOf(rec([chain[chain.length - 1]!]))).to.equal(null);
    expect(lineage.truncated).to.equal(1);
  });

  it('treats an ancestor the store does not hold as carrying no firing', async () => {
    const ghost = rec([]);
    const child = rec([ghost]);
    const lineage = new TriggerLineage(async (id) => (id === child.id ? child : undefined));
    expect([...(await lineage.ancestorsOf(rec([child])))!]).to.deep.equal([]);
  });

  it('keeps its capacity of the newest lineages and walks the store for older ones', async () => {
    const chain: LoomRecord[] = [rec([])];
    chain.push(firing('A', chain[0]!));
    for (let i = 0; i < 30; i++) chain.push(rec([chain[chain.length - 1]!]));
    const store = new Map(chain.map((r) => [r.id, r]));
    const reads: string[] = [];
    const lineage = new TriggerLineage(async (id) => (reads.push(id), store.get(id)), 4);
    for (const record of chain) lineage.observe(record);
    // The newest four are known: the firing far above the last record is found without a read.
    for (const record of chain.slice(-4)) expect([...(await lineage.ancestorsOf(rec([record])))!]).to.deep.equal(['A']);
    expect(lineage.walks).to.equal(0);
    // The first records were dropped long ago: asking about them reads the store again, and answers the same.
    expect([...(await lineage.ancestorsOf(rec([chain[1]!])))!]).to.deep.equal(['A']);
    expect(lineage.walks).to.equal(1);
    expect(reads).to.include(chain[1]!.id);
  });
});
