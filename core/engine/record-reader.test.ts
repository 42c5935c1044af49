import { expect } from 'chai';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { credentialCaller, LOCAL } from '../access/caller.js';
import type { ReadPolicy } from '../access/read-policy.js';
import { LoomError } from '../errors/loom-error.js';
import type { Fold } from '../folds/fold.js';
import { parseRecordQuery } from '../../storage/contract/query/parse-query.js';
import { SqliteRecordStore } from '../../storage/sqlite/index.js';
import { ENGINE_WRITE } from './ingest.js';
import { LoomEngine } from './loom-engine.js';
import { rec, TH_A, TH_B } from '../../test/helpers/test-engine.js';

const onlyA: ReadPolicy = {
  name: 'test.only-a',
  restrict: (caller) => (caller.kind === 'credential' && caller.principal !== 'did:sync:system:sealed' ? { op: 'in', field: { kind: 'column', column: 'thread' }, values: [TH_A] } : undefined),
};
const crashing: ReadPolicy = {
  name: 'test.crash',
  restrict: (caller) => {
    if (caller.principal === 'did:sync:system:crash') throw new TypeError('boom');
    return undefined;
  },
};

const SYSTEM_THREAD = 'th_' + 'c'.repeat(64);
const hidesSystemThread: ReadPolicy = {
  name: 'test.sealed',
  restrict: (caller) => (caller.principal === 'did:sync:system:sealed' ? { op: 'not', node: { op: 'compare', field: { kind: 'column', column: 'thread' }, operator: '$eq', value: SYSTEM_THREAD } } : undefined),
};

/** Records per thread, over coordination threads only. */
const perThread: Fold<Record<string, number>, Record<string, number>> = {
  name: 'per_thread',
  scope: 'global',
  description: 'records per thread',
  ignoresSystemThreads: true,
  initial: () => ({}),
  apply: (state, { record }) => {
    state[record.thread] = (state[record.thread] ?? 0) + 1;
    return state;
  },
  value: (state) => ({ ...state }),
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
    engine.addReadPolicy(hidesSystemThread);
    engine.folds.register(perThread);
    engine.folds.registerSystemThread(SYSTEM_THREAD);
    await engine.start();
    for (let clock = 0; clock < 6; clock++) await engine.ingestor.ingest(ENGINE_WRITE, rec({ clock, thread: clock % 2 ? TH_B : TH_A }));
    await engine.ingestor.ingest(ENGINE_WRITE, rec({ clock: 0, thread: SYSTEM_THREAD }));
  });
  after(async () => {
    await engine.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('unrestricted callers read everything', async () => {
    expect((await engine.reader.listByActor(LOCAL, 'did:sync:user:alice')).items).to.have.length(7);
    expect((await engine.reader.query(LOCAL, parseRecordQuery({}))).matchedTotal).to.equal(7);
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
  it('serves a global fold over only the records a restricted caller may see, and keeps it current', async () => {
    const whole = await engine.reader.globalFoldState<Record<string, number>>(LOCAL, 'per_thread');
    expect(whole.restricted).to.equal(false);
    expect(whole.state).to.deep.equal({ [TH_A]: 3, [TH_B]: 3 });
    const mine = await engine.reader.globalFold<Record<string, number>>(restricted, 'per_thread');
    expect(mine.value).to.deep.equal({ [TH_A]: 3 });
    expect(mine.cache_key).to.match(/^per_thread@7~[0-9a-f]{12}$/);
    await engine.ingestor.ingest(ENGINE_WRITE, rec({ clock: 10, thread: TH_A }));
    await engine.ingestor.ingest(ENGINE_WRITE, rec({ clock: 11, thread: TH_B }));
    const later = await engine.reader.globalFoldState<Record<string, number>>(restricted, 'per_thread');
    expect(later).to.deep.include({ restricted: true, watermark: 9 });
    expect(later.state).to.deep.equal({ [TH_A]: 4 });
    expect((await engine.reader.globalFoldState(LOCAL, 'per_thread')).state).to.deep.equal({ [TH_A]: 4, [TH_B]: 4 });
  });

  it('a caller hidden only system threads shares the live state of folds that skip them', async () => {
    const sealed = credentialCaller({ principal: 'did:sync:system:sealed', scopes: ['records:read'] });
    const view = await engine.reader.globalFoldState(sealed, 'per_thread');
    expect(view.restricted).to.equal(false);
    expect(view.state).to.equal(engine.folds.globalSnapshot('per_thread').state);
    // thread_state is per thread; the namespace registry reads its reserved thread only, which stays visible.
    expect((await engine.reader.globalFoldState(sealed, 'namespace_registry')).restricted).to.equal(false);
  });
});
