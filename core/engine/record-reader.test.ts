import { expect } from 'chai';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { credentialCaller, LOCAL } from '../access/caller.js';
import type { ReadPolicy } from '../access/read-policy.js';
import { LoomError } from '../errors/loom-error.js';
import { parseRecordQuery } from '../../storage/contract/query/parse-query.js';
import { SqliteRecordStore } from '../../storage/sqlite/index.js';
import { ENGINE_WRITE } from './ingest.js';
import { LoomEngine } from './loom-engine.js';
import { rec, TH_A, TH_B } from './test-engine.js';

const onlyA: ReadPolicy = {
  name: 'test.only-a',
  restrict: (caller) => (caller.kind === 'credential' ? { op: 'in', field: { kind: 'column', column: 'thread' }, values: [TH_A] } : undefined),
};
const crashing: ReadPolicy = {
  name: 'test.crash',
  restrict: (caller) => {
    if (caller.principal === 'did:sync:system:crash') throw new TypeError('boom');
    return undefined;
  },
};

describe('RecordReader', () => {
  let dir: string;
  let engine: LoomEngine;
  const restricted = credentialCaller({ principal: 'did:sync:system:sa_r', scopes: ['records:read'] });

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'loom-reader-'));
    engine = new LoomEngine({ store: new SqliteRecordStore({ path: join(dir, 'loom.sqlite'), durability: 'normal' }) });
    engine.addReadPolicy(onlyA);
    engine.addReadPolicy(crashing);
    await engine.start();
    for (let clock = 0; clock < 6; clock++) await engine.ingestor.ingest(ENGINE_WRITE, rec({ clock, thread: clock % 2 ? TH_B : TH_A }));
  });
  after(async () => {
    await engine.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('unrestricted callers read everything', async () => {
    expect((await engine.reader.listByActor(LOCAL, 'did:sync:user:alice')).items).to.have.length(6);
    expect((await engine.reader.query(LOCAL, parseRecordQuery({}))).matchedTotal).to.equal(6);
  });

  it('restricted callers read only what the policies admit, on every read', async () => {
    const reader = engine.reader;
    const b = (await engine.store.listByThread(TH_B)).items[0]!;
    expect(await reader.get(restricted, b.record.id)).to.equal(undefined);
    expect((await reader.listByThread(restricted, TH_B)).items).to.deep.equal([]);
    expect((await reader.listByActor(restricted, 'did:sync:user:alice')).items.map((s) => s.record.thread)).to.deep.equal([TH_A, TH_A, TH_A]);
    const paged = await reader.listByActor(restricted, 'did:sync:user:alice', { limit: 2 });
    expect(paged.items).to.have.length(2);
    expect((await reader.listByActor(restricted, 'did:sync:user:alice', { after: paged.nextAfter!, limit: 2 })).items).to.have.length(1);
    expect((await reader.query(restricted, parseRecordQuery({}))).matchedTotal).to.equal(3);
    expect((await reader.changesSince(restricted, 0)).every((s) => s.record.thread === TH_A)).to.equal(true);
    expect((await reader.listThreads(restricted)).items.map((t) => t.thread)).to.deep.equal([TH_A]);
    expect((await reader.threadFold<{ record_count: number }>(restricted, 'thread_state', TH_B)).value.record_count).to.equal(0);
    expect(reader.admits(restricted, b)).to.equal(false);
  });

  it('a policy that throws refuses the read (fail closed)', async () => {
    const caller = credentialCaller({ principal: 'did:sync:system:crash', scopes: ['records:read'] });
    const refused = await engine.reader.listByThread(caller, TH_A).catch((e) => e);
    expect(refused).to.be.instanceOf(LoomError).and.to.include({ code: 'INTERNAL' });
  });
});
