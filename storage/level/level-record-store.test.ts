import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import type { LoomError } from '../../core/errors/loom-error.js';
import { computeRecordId } from '../../core/records/record-id.js';
import { makeRecord, type RecordFields } from '../../core/records/record.js';
import type { JsonObject } from '../../core/records/json.js';
import { parseRecordQuery } from '../contract/query/parse-query.js';
import { compareForSort, matchesFilter } from '../contract/query/evaluate-filter.js';
import { namespaceOf, type PreparedRecord, type StoredRecord } from '../contract/stored-record.js';
import { runStoreCompliance, temporaryStoreFactory } from '../compliance/index.js';
import { Level } from 'level';
import { refusalOf } from '../../core/errors/refusal-of.js';
import { LevelRecordStore } from './index.js';
import { encodeNumber, partSequenceKey, slotKey, SUBLEVELS } from './keys.js';
import { openStore as openStoreAt } from './open-level-store.js';

const ALICE = 'did:sync:user:alice';
const BOB = 'did:sync:user:bob';
const TH_A = 'th_' + 'a'.repeat(64);
const TH_B = 'th_' + 'b'.repeat(64);
const TH_C = 'th_' + 'c'.repeat(64);

function prepare(fields: Partial<RecordFields> & { clock: number }, createdAt = 1_700_000_000_000): PreparedRecord {
  const full: RecordFields = { parents: [], thread: TH_A, actor: ALICE, act: 'KNOW', body: {}, data_type: 'SCALAR', judged_by: null, ...fields };
  const record = makeRecord(computeRecordId(full), full);
  return { record, namespace: namespaceOf(record), createdAt };
}

/** Polls `condition` every 10 ms, for up to 5 s. */
async function until(condition: () => boolean | Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 5000;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('condition not met within 5 s');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

const dirs: string[] = [];
async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'loom-level-'));
  dirs.push(dir);
  return dir;
}

async function openStore(path?: string, options: { durability?: 'full' | 'normal'; ingestJournal?: boolean } = {}): Promise<LevelRecordStore> {
  const store = new LevelRecordStore({ path: path ?? (await tempDir()), ...options });
  await store.open();
  return store;
}

runStoreCompliance({
  name: 'LevelRecordStore',
  factory: temporaryStoreFactory(openStoreAt, 'loom-level-'),
  crash: { driverModule: fileURLToPath(new URL('./open-level-store.js', import.meta.url)) },
});

interface ChainedBatch {
  write(options?: unknown): Promise<void>;
  close(): Promise<void>;
}

/**
 * Makes every batch the store's LevelDB writes fail as a full disk would
 * (the batch is filled, then writing it rejects); returns the undo.
 */
function failBatchWrites(store: LevelRecordStore, onFailure: () => void = () => undefined): () => void {
  const db = (store as unknown as { db: { batch: (...args: unknown[]) => ChainedBatch } }).db;
  const original = db.batch;
  db.batch = (...args: unknown[]) => {
    const batch = original.apply(db, args);
    batch.write = async () => {
      onFailure();
      await batch.close();
      throw new Error('disk full');
    };
    return batch;
  };
  return () => {
    db.batch = original;
  };
}

describe('LevelRecordStore', () => {
  after(async () => {
    await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
  });

  let store: LevelRecordStore;
  beforeEach(async () => {
    store = await openStore();
  });
  afterEach(async () => {
    await store.close();
  });

  it('declares its capabilities', () => {
    expect(store.capabilities).to.deep.equal({ backend: 'level', structuredQuery: true, queryPlan: 'scan', persistent: true, onlineBackup: true });
  });

  it('appends and gets a record back', async () => {
    const p = prepare({ clock: 1, body: { kind: 'note', nested: { n: 1.5, list: [1, 'x', null] } } });
    const outcome = await store.append(p);
    expect(outcome.status).to.equal('inserted');
    const stored = await store.get(p.record.id);
    expect(stored).to.deep.equal({ sequence: 1, createdAt: p.createdAt, record: p.record });
    expect(Object.isFrozen(stored!.record)).to.equal(true);
    expect(await store.get('0'.repeat(64))).to.equal(undefined);
    expect(await store.watermark()).to.equal(1);
  });

  it('refuses a second store on the same directory while the first is open, which keeps working', async () => {
    const path = await tempDir();
    const first = await openStore(path);
    await first.append(prepare({ clock: 1 }));
    const second = new LevelRecordStore({ path });
    const error = await refusalOf(second.open());
    expect(error.code).to.equal('SERVICE_UNAVAILABLE');
    expect(error.message).to.contain('one Loom process per data directory');
    expect((await first.append(prepare({ clock: 2 }))).status).to.equal('inserted');
    await first.close();
    await second.open();
    expect(await second.watermark()).to.equal(2);
    await second.close();
  });

  it('writes exactly the key layout of keys.ts, each entry under its sublevel', async () => {
    const path = await tempDir();
    const other = await openStore(path);
    const p = prepare({ clock: 7, thread: TH_B, actor: BOB });
    await other.append(p);
    await other.close();
    const db = new Level<string, string>(path);
    const entries = await db.iterator().all();
    await db.close();
    const seq = encodeNumber(1);
    expect(entries.map(([key]) => key).sort()).to.deep.equal(
      [
        `!${SUBLEVELS.records}!${seq}`,
        `!${SUBLEVELS.ids}!${p.record.id}`,
        `!${SUBLEVELS.threads}!${partSequenceKey(TH_B, 1)}`,
        `!${SUBLEVELS.actors}!${partSequenceKey(BOB, 1)}`,
        `!${SUBLEVELS.slots}!${slotKey(p.record)}`,
        `!${SUBLEVELS.meta}!${TH_B}`,
      ].sort(),
    );
    const value = (key: string) => entries.find(([k]) => k === key)![1];
    expect(value(`!${SUBLEVELS.ids}!${p.record.id}`)).to.equal('1');
    expect(value(`!${SUBLEVELS.slots}!${slotKey(p.record)}`)).to.equal('1');
    expect(JSON.parse(value(`!${SUBLEVELS.meta}!${TH_B}`))).to.deep.equal({ recordCount: 1, firstSequence: 1, lastSequence: 1 });
  });

  it('answers an idempotent resend with exists and the original record', async () => {
    const p = prepare({ clock: 1 });
    const first = await store.append(p);
    const again = await store.append({ ...p, createdAt: p.createdAt + 5 });
    expect(again).to.deep.equal({ status: 'exists', stored: first.status === 'inserted' ? first.stored : null });
    expect(await store.watermark()).to.equal(1);
  });

  it('refuses another record in a taken (actor, thread, clock) slot with duplicate_clock', async () => {
    const first = prepare({ clock: 7, body: { v: 1 } });
    const rival = prepare({ clock: 7, body: { v: 2 } });
    await store.append(first);
    const outcome = await store.append(rival);
    expect(outcome.status).to.equal('duplicate_clock');
    if (outcome.status === 'duplicate_clock') expect(outcome.existing.record.id).to.equal(first.record.id);
    expect(await store.get(rival.record.id)).to.equal(undefined);
    // Another actor or thread with the same clock is a different slot.
    expect((await store.append(prepare({ clock: 7, actor: BOB }))).status).to.equal('inserted');
    expect((await store.append(prepare({ clock: 7, thread: TH_B }))).status).to.equal('inserted');
  });

  it('gives 500 concurrent appends distinct sequences increasing in submission order', async () => {
    const prepared = Array.from({ length: 500 }, (_, i) => prepare({ clock: i, thread: i % 2 ? TH_A : TH_B }));
    const outcomes = await Promise.all(prepared.map((p) => store.append(p)));
    const sequences = outcomes.map((o) => (o.status === 'inserted' ? o.stored.sequence : -1));
    expect(sequences).to.deep.equal(Array.from({ length: 500 }, (_, i) => i + 1));
    expect(await store.watermark()).to.equal(500);
    const threads = await store.listThreads();
    expect(threads.items.map((t) => t.recordCount)).to.deep.equal([250, 250]);
  });

  it('resolves mixed batches exactly as one-by-one arrivals', async () => {
    const a = prepare({ clock: 1 });
    await store.append(a);
    const outcomes = await store.appendMany([prepare({ clock: 2 }), a, prepare({ clock: 1, body: { other: true } }), prepare({ clock: 3 })]);
    expect(outcomes.map((o) => o.status)).to.deep.equal(['inserted', 'exists', 'duplicate_clock', 'inserted']);
    expect(outcomes.map((o) => (o.status === 'duplicate_clock' ? o.existing : o.stored).sequence)).to.deep.equal([2, 1, 1, 3]);
  });

  it('without the ingest journal, does not advance the sequence when a batch fails', async () => {
    const direct = await openStore(undefined, { ingestJournal: false });
    try {
      await direct.append(prepare({ clock: 1 }));
      const restore = failBatchWrites(direct);
      try {
        const failed = await direct.append(prepare({ clock: 2 })).then(() => null, (error: Error) => error.message);
        expect(failed).to.equal('disk full');
      } finally {
        restore();
      }
      expect(await direct.watermark()).to.equal(1);
      const retried = await direct.append(prepare({ clock: 2 }));
      expect(retried.status === 'inserted' && retried.stored.sequence).to.equal(2);
    } finally {
      await direct.close();
    }
  });

  it('with the ingest journal, acknowledges and serves records while LevelDB fails, and applies them once it recovers', async () => {
    const path = await tempDir();
    const journaled = await openStore(path);
    let failures = 0;
    const restore = failBatchWrites(journaled, () => failures++);
    const first = prepare({ clock: 1, thread: TH_A });
    const second = prepare({ clock: 2, thread: TH_A });
    expect((await journaled.append(first)).status).to.equal('inserted');
    expect((await journaled.append(second)).status).to.equal('inserted');
    expect((await journaled.get(second.record.id))?.sequence).to.equal(2);
    expect((await journaled.listByThread(TH_A)).items.map((s) => s.sequence)).to.deep.equal([1, 2]);
    expect((await journaled.changesSince(0)).map((s) => s.sequence)).to.deep.equal([1, 2]);
    expect(await journaled.watermark()).to.equal(2);
    // A query needs the driver to hold everything: refused while applying fails.
    await until(() => failures > 0);
    const refused = await journaled.query(parseRecordQuery({ filter: { thread: TH_A } })).then(() => null, (error: LoomError) => error.code);
    expect(refused).to.equal('SERVICE_UNAVAILABLE');
    restore();
    // The applier retries on its own; then queries see both.
    await until(async () => (await journaled.query(parseRecordQuery({ filter: { thread: TH_A } })).catch(() => null))?.matchedTotal === 2);
    await journaled.close();
    const reopened = await openStore(path);
    try {
      expect((await reopened.changesSince(0)).map((s) => s.record.id)).to.deep.equal([first.record.id, second.record.id]);
    } finally {
      await reopened.close();
    }
  });

  it('pages a thread and an actor with nextAfter', async () => {
    for (let i = 0; i < 7; i++) await store.append(prepare({ clock: i, thread: i % 3 === 0 ? TH_B : TH_A, actor: i < 4 ? ALICE : BOB }));
    const seen: number[] = [];
    let after: number | null = 0;
    while (after !== null) {
      const page = await store.listByThread(TH_A, { after, limit: 2 });
      seen.push(...page.items.map((s) => s.sequence));
      after = page.nextAfter;
    }
    expect(seen).to.deep.equal([2, 3, 5, 6]);
    const last = await store.listByThread(TH_A, { after: 5, limit: 2 });
    expect(last.items.map((s) => s.sequence)).to.deep.equal([6]);
    expect(last.nextAfter).to.equal(null);
    const bob = await store.listByActor(BOB, { limit: 2 });
    expect(bob.items.map((s) => s.sequence)).to.deep.equal([5, 6]);
    expect(bob.nextAfter).to.equal(6);
    expect((await store.listByActor(BOB, { after: 6 })).items.map((s) => s.sequence)).to.deep.equal([7]);
    expect((await store.listByThread(TH_C)).items).to.deep.equal([]);
    expect((await store.listByThread(TH_A, { after: 2 ** 60 })).items).to.deep.equal([]);
  });

  it('keeps parts apart whatever characters they hold', async () => {
    await store.append(prepare({ clock: 1, actor: 'a', thread: 't' }));
    await store.append(prepare({ clock: 1, actor: 'a\u0000t', thread: '' }));
    await store.append(prepare({ clock: 1, actor: 'a\u0001', thread: 't' }));
    expect((await store.listByActor('a')).items.map((s) => s.sequence)).to.deep.equal([1]);
    expect((await store.listByActor('a\u0000t')).items.map((s) => s.sequence)).to.deep.equal([2]);
    expect((await store.listByActor('a\u0001')).items.map((s) => s.sequence)).to.deep.equal([3]);
  });

  it('feeds changes since a sequence', async () => {
    for (let i = 0; i < 5; i++) await store.append(prepare({ clock: i }));
    expect((await store.changesSince(0)).map((s) => s.sequence)).to.deep.equal([1, 2, 3, 4, 5]);
    expect((await store.changesSince(2, 2)).map((s) => s.sequence)).to.deep.equal([3, 4]);
    expect(await store.changesSince(5)).to.deep.equal([]);
    expect(await store.changesSince(0, 0)).to.deep.equal([]);
  });

  it('lists thread summaries in id order with a cursor', async () => {
    await store.append(prepare({ clock: 1, thread: TH_B }));
    await store.append(prepare({ clock: 1, thread: TH_A }));
    await store.append(prepare({ clock: 2, thread: TH_B }));
    await store.append(prepare({ clock: 1, thread: TH_C }));
    await store.append(prepare({ clock: 3, thread: TH_B }));
    const first = await store.listThreads({ limit: 2 });
    expect(first.items).to.deep.equal([
      { thread: TH_A, recordCount: 1, firstSequence: 2, lastSequence: 2 },
      { thread: TH_B, recordCount: 3, firstSequence: 1, lastSequence: 5 },
    ]);
    expect(first.nextAfter).to.equal(TH_B);
    const rest = await store.listThreads({ after: TH_B, limit: 2 });
    expect(rest.items).to.deep.equal([{ thread: TH_C, recordCount: 1, firstSequence: 4, lastSequence: 4 }]);
    expect(rest.nextAfter).to.equal(null);
  });

  describe('query', () => {
    const bodies: JsonObject[] = [{ kind: 'a', n: 3 }, { kind: 'b', n: 1 }, { kind: 'a' }, { kind: 'a', n: 2, deep: { x: true } }, { n: 'text' }, { kind: 'b', n: 5 }];
    beforeEach(async () => {
      for (const [i, body] of bodies.entries()) {
        await store.append(prepare({ clock: i, body, thread: i < 4 ? TH_A : TH_B, actor: i % 2 ? BOB : ALICE }, 1_700_000_000_000 + i));
      }
    });

    async function run(raw: object): Promise<{ sequences: number[]; matchedTotal: number; capped: boolean; plan: unknown }> {
      const result = await store.query(parseRecordQuery(raw));
      return { sequences: result.items.map((s) => s.sequence), matchedTotal: result.matchedTotal, capped: result.capped, plan: result.plan };
    }

    it('scans the thread index when the filter pins the thread', async () => {
      const result = await run({ thread: TH_A, filter: { 'body.kind': 'a' }, explain: true });
      expect(result.sequences).to.deep.equal([1, 3, 4]);
      expect(result.plan).to.deep.include({ bind_count: 0, indexed_fields: ['thread'], unindexed_fields: ['body.kind'] });
      expect((result.plan as { sql: string }).sql).to.match(/^index thread = /);
    });

    it('scans the actor and id indexes', async () => {
      const byActor = await run({ filter: { actor: BOB, 'body.n': { $gte: 1 } }, explain: true });
      expect(byActor.sequences).to.deep.equal([2, 4, 6]);
      expect(byActor.plan).to.deep.include({ indexed_fields: ['actor'], unindexed_fields: ['body.n'] });
      const id = (await store.changesSince(3, 1))[0]!.record.id;
      const byId = await run({ filter: { id, actor: BOB }, explain: true });
      expect(byId.sequences).to.deep.equal([4]);
      expect(byId.plan).to.deep.include({ indexed_fields: ['id'], unindexed_fields: ['actor'] });
    });

    it('falls back to a full scan, sorts, and pages with offset and limit', async () => {
      const result = await run({ filter: { $or: [{ 'body.kind': 'a' }, { 'body.n': { $gt: 4 } }] }, sort: { 'body.n': -1 }, offset: 1, limit: 2, explain: true });
      expect(result.sequences).to.deep.equal([1, 4]);
      expect(result.matchedTotal).to.equal(4);
      expect(result.capped).to.equal(true);
      expect(result.plan).to.deep.include({ indexed_fields: [], unindexed_fields: ['body.kind', 'body.n'] });
      expect((result.plan as { sql: string }).sql).to.match(/^full scan of records by sequence/);
    });

    it('finds the index inside a scope', async () => {
      const scope = { op: 'compare', field: { kind: 'column', column: 'thread' }, operator: '$eq', value: TH_B } as const;
      const result = await store.query(parseRecordQuery({ filter: { 'body.n': { $exists: true } }, explain: true }), { scope });
      expect(result.items.map((s) => s.sequence)).to.deep.equal([5, 6]);
      expect(result.plan?.indexed_fields).to.deep.equal(['thread']);
    });

    it('agrees with the reference evaluator', async () => {
      const all: StoredRecord[] = await store.changesSince(0);
      const cases: object[] = [
        {},
        { filter: { thread: TH_A }, sort: { clock: -1 } },
        { filter: { thread: TH_A, actor: BOB } },
        { filter: { $not: { thread: TH_A } }, sort: { 'body.kind': 1 } },
        { filter: { 'body.n': { $ne: 3 } }, sort: { 'body.n': 1 }, offset: 2 },
        { filter: { 'body.kind': { $in: ['b', 'c'] }, thread: { $ne: TH_C } } },
        { filter: { 'body.deep.x': true } },
        { filter: { actor: { $like: '%bob' } }, limit: 1 },
        { filter: { created_at: { $gt: 1_700_000_000.002 } }, sort: { created_at: -1 }, limit: 0 },
        { filter: { thread: TH_C } },
      ];
      for (const raw of cases) {
        const query = parseRecordQuery(raw);
        const expected = all.filter((s) => matchesFilter(s, query.filter)).sort(compareForSort(query.sort));
        const result = await store.query(query);
        expect(result.items.map((s) => s.sequence), JSON.stringify(raw)).to.deep.equal(
          expected.slice(query.offset, query.offset + query.limit).map((s) => s.sequence),
        );
        expect(result.matchedTotal, JSON.stringify(raw)).to.equal(expected.length);
      }
    });
  });

  it('keeps records across reopen and continues the sequence', async () => {
    const path = await tempDir();
    const first = await openStore(path);
    const a = prepare({ clock: 1 });
    const b = prepare({ clock: 2, thread: TH_B });
    await first.appendMany([a, b]);
    await first.close();
    expect(first.status).to.equal('closed');

    const second = await openStore(path);
    try {
      expect(await second.watermark()).to.equal(2);
      expect((await second.get(a.record.id))?.record).to.deep.equal(a.record);
      expect((await second.append(a)).status).to.equal('exists');
      expect((await second.append(prepare({ clock: 2, thread: TH_B, body: { x: 1 } }, 0))).status).to.equal('duplicate_clock');
      const c = await second.append(prepare({ clock: 3 }));
      expect(c.status === 'inserted' && c.stored.sequence).to.equal(3);
      expect((await second.listThreads()).items.map((t) => t.recordCount)).to.deep.equal([2, 1]);
    } finally {
      await second.close();
    }

    // The same instance can be reopened too.
    await second.open();
    try {
      expect((await second.changesSince(0)).map((s) => s.sequence)).to.deep.equal([1, 2, 3]);
    } finally {
      await second.close();
    }
  });

  it('writes with durability normal', async () => {
    const normal = await openStore(undefined, { durability: 'normal' });
    expect((await normal.append(prepare({ clock: 1 }))).status).to.equal('inserted');
    await normal.close();
  });

  it('rejects bad options', () => {
    expect(() => new LevelRecordStore({ path: '' })).to.throw(TypeError);
    expect(() => new LevelRecordStore({ path: '/tmp/x', durability: 'fast' as 'full' })).to.throw(TypeError);
  });
});
