import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import type { LoomError } from '../../core/errors/loom-error.js';
import type { JsonObject } from '../../core/records/json.js';
import { canonicalJson } from '../../core/records/canonical-json.js';
import { parseRecordQuery } from '../contract/query/parse-query.js';
import { runStoreCompliance, temporaryStoreFactory } from '../compliance/index.js';
import type { AcceptedRecord } from '../contract/journal/accepted-record.js';
import type { AppendOutcome } from '../contract/stored-record.js';
import { SCHEMA_VERSION } from './migrations.js';
import { openStore } from './open-sqlite-store.js';
import { SqliteDatabase } from './sqlite-database.js';
import { SqliteRecordStore } from './sqlite-record-store.js';
import { ALICE, BOB, TH_A, TH_B, TH_C, TempStores, prepare, referenceAnswer } from '../../test/helpers/sqlite-test-support.js';

runStoreCompliance({
  name: 'SqliteRecordStore',
  factory: temporaryStoreFactory(openStore, 'loom-sqlite-'),
  crash: { driverModule: fileURLToPath(new URL('./open-sqlite-store.js', import.meta.url)) },
});

/** Counts the batches applied to the database, to prove concurrent appends are grouped. */
class CountingStore extends SqliteRecordStore {
  batches = 0;
  protected override _applyBatch(records: readonly AcceptedRecord[]): Promise<void> {
    this.batches++;
    return super._applyBatch(records);
  }
}

/** A store whose database never accepts a batch (a full disk, say). */
class FailingApplyStore extends SqliteRecordStore {
  attempts = 0;
  protected override _applyBatch(): Promise<void> {
    this.attempts++;
    return Promise.reject(new Error('disk full'));
  }
}

/** Ids of inserted outcomes, in sequence order. */
function ids(outcomes: AppendOutcome[]): string[] {
  return outcomes
    .filter((o): o is Extract<AppendOutcome, { status: 'inserted' }> => o.status === 'inserted')
    .sort((a, b) => a.stored.sequence - b.stored.sequence)
    .map((o) => o.stored.record.id);
}

describe('SqliteRecordStore', () => {
  const temp = new TempStores();
  afterEach(() => temp.cleanup());

  it('declares its capabilities', async () => {
    const store = await temp.open();
    expect(store.capabilities).to.deep.equal({ backend: 'sqlite', structuredQuery: true, queryPlan: 'sql', persistent: true, onlineBackup: true });
  });

  it('appends and gets a record with every field intact', async () => {
    const store = await temp.open();
    const p = prepare({ clock: 3, body: { kind: 'note', nested: { a: [1, 'two', null, true] }, 'a-b': 1.5 }, parents: ['f'.repeat(64)], judged_by: 'e'.repeat(64) }, 1_700_000_000_123);
    const outcome = await store.append(p);
    expect(outcome.status).to.equal('inserted');
    const got = await store.get(p.record.id);
    expect(got).to.deep.equal({ sequence: 1, createdAt: 1_700_000_000_123, record: p.record });
    expect(Object.isFrozen(got!.record.body)).to.equal(true);
    expect(await store.get('0'.repeat(64))).to.equal(undefined);
  });

  it("stores parents and body as their canonical JSON, taken from the text the record's id hashes, for hostile values too", async () => {
    const path = join(await temp.dir(), 'loom.db');
    const store = await temp.track(new SqliteRecordStore({ path }));
    const bodies: JsonObject[] = [
      { a: 1e21, b: 1.5e-7, c: -1.7976931348623157e308, d: 5e-324, e: 0.1, f: 9007199254740993 },
      { s: 'é\u2028\u2029"\\\n\t\u0001\u007f😂', k: JSON.parse('{"__proto__":{"x":[]},"":{}}') as JsonObject },
      { arr: [[], [{}], null, true, false, 'x'] },
      {},
    ];
    const prepared = bodies.map((body, i) => prepare({ clock: i, body, parents: i % 2 ? ['0'.repeat(64), 'f'.repeat(64)] : [] }));
    await store.appendMany(prepared);
    await store.close();
    const db = await SqliteDatabase.open(path);
    const rows = await db.all<{ parents: string; body: string }>('SELECT parents, body FROM records ORDER BY seq');
    await db.close();
    expect(rows.map((row) => row.body)).to.deep.equal(prepared.map((p) => canonicalJson(p.record.body)));
    expect(rows.map((row) => row.parents)).to.deep.equal(prepared.map((p) => canonicalJson(p.record.parents)));
    const reopened = await temp.track(new SqliteRecordStore({ path }));
    for (const p of prepared) expect((await reopened.get(p.record.id))?.record).to.deep.equal(p.record);
  });

  it('answers an idempotent resend with exists, and a taken slot with duplicate_clock', async () => {
    const store = await temp.open();
    const first = prepare({ clock: 1, body: { v: 1 } });
    const inserted = await store.append(first);
    expect(await store.append(first)).to.deep.equal({ status: 'exists', stored: (inserted as { stored: unknown }).stored });
    const rival = prepare({ clock: 1, body: { v: 2 } });
    const conflict = await store.append(rival);
    expect(conflict.status).to.equal('duplicate_clock');
    expect(conflict.status === 'duplicate_clock' && conflict.existing.record.id).to.equal(first.record.id);
    expect(await store.get(rival.record.id)).to.equal(undefined);
    expect(await store.watermark()).to.equal(1);
  });

  it('keeps the largest clocks exact in slots', async () => {
    const store = await temp.open();
    const big = Number.MAX_SAFE_INTEGER;
    await store.append(prepare({ clock: big }));
    expect((await store.append(prepare({ clock: big, body: { other: true } }))).status).to.equal('duplicate_clock');
    expect((await store.append(prepare({ clock: big - 1 }))).status).to.equal('inserted');
    const [first] = (await store.listByThread(TH_A)).items;
    expect(first!.record.clock).to.equal(big);
  });

  it('groups 500 concurrent appends into few transactions with increasing sequences', async () => {
    const store = (await temp.track(new CountingStore({ path: join(await temp.dir(), 'loom.db') }))) as CountingStore;
    const records = Array.from({ length: 500 }, (_, i) => prepare({ clock: i, actor: i % 2 ? ALICE : BOB }));
    const outcomes = await Promise.all(records.map((r) => store.append(r)));
    const sequences = outcomes.map((o) => (o.status === 'inserted' ? o.stored.sequence : -1));
    expect(sequences).to.deep.equal(Array.from({ length: 500 }, (_, i) => i + 1));
    expect(store.batches).to.be.lessThan(10);
    expect(await store.watermark()).to.equal(500);
  });

  it('stores a batch larger than one statement, and resolves mixed outcomes in input order', async () => {
    const store = await temp.open();
    const records = Array.from({ length: 1234 }, (_, i) => prepare({ clock: i, thread: i % 3 ? TH_A : TH_B }));
    const outcomes = await store.appendMany(records);
    expect(outcomes.every((o, i) => o.status === 'inserted' && o.stored.sequence === i + 1)).to.equal(true);
    const mixed = [prepare({ clock: 5000 }), records[7]!, prepare({ clock: 8, thread: TH_A, body: { x: 1 } }), prepare({ clock: 5001 })];
    const statuses = (await store.appendMany(mixed)).map((o) => o.status);
    expect(statuses).to.deep.equal(['inserted', 'exists', 'duplicate_clock', 'inserted']);
    expect((await store.changesSince(1234)).map((s) => s.sequence)).to.deep.equal([1235, 1236]);
  });

  it('keeps its data and its sequence across close and reopen', async () => {
    const path = join(await temp.dir(), 'nested', 'dir', 'loom.db');
    const store = await temp.track(new SqliteRecordStore({ path, durability: 'normal' }));
    await store.appendMany([prepare({ clock: 1 }), prepare({ clock: 2 })]);
    await store.close();
    const again = await temp.track(new SqliteRecordStore({ path }));
    expect(await again.watermark()).to.equal(2);
    const third = await again.append(prepare({ clock: 3 }));
    expect(third.status === 'inserted' && third.stored.sequence).to.equal(3);
    const db = await SqliteDatabase.open(path);
    expect(await db.get('PRAGMA user_version')).to.deep.equal({ user_version: SCHEMA_VERSION });
    expect(await db.get('PRAGMA journal_mode')).to.deep.equal({ journal_mode: 'wal' });
    await db.close();
  });

  it('applies at once when a query waits or the store closes, however long the applier would gather', async () => {
    const path = join(await temp.dir(), 'loom.db');
    const store = new SqliteRecordStore({ path });
    // A ten-minute gathering pause: only the wake-ups can let this test finish in time.
    const internals = store as unknown as { journalSettings: object };
    internals.journalSettings = { ...internals.journalSettings, applyGatherMs: 600_000 };
    await temp.track(store);
    await store.appendMany([prepare({ clock: 1 }), prepare({ clock: 2 })]);
    expect((await store.query(parseRecordQuery({ filter: { thread: TH_A } }))).matchedTotal).to.equal(2);
    await store.append(prepare({ clock: 3 }));
    await store.close();
    const db = await SqliteDatabase.open(path);
    expect(await db.get('SELECT COUNT(*) AS n FROM records')).to.deep.equal({ n: 3 });
    await db.close();
  });

  it('leaves no WAL file behind once closed: everything is checkpointed into the database file', async () => {
    const path = join(await temp.dir(), 'loom.db');
    const store = await temp.track(new SqliteRecordStore({ path }));
    await store.appendMany(Array.from({ length: 50 }, (_, i) => prepare({ clock: i })));
    expect(existsSync(`${path}-wal`)).to.equal(true);
    await store.close();
    expect(existsSync(`${path}-wal`)).to.equal(false);
    const db = await SqliteDatabase.open(path);
    expect(await db.get('SELECT COUNT(*) AS n FROM records')).to.deep.equal({ n: 50 });
    await db.close();
  });

  it('refuses a second store on the same database while the first is open, which keeps working', async () => {
    const path = join(await temp.dir(), 'loom.db');
    const first = await temp.track(new SqliteRecordStore({ path }));
    await first.append(prepare({ clock: 1 }));
    const second = new SqliteRecordStore({ path });
    const error = await second.open().then(
      () => null,
      (e: unknown) => e as LoomError,
    );
    expect(error?.code).to.equal('SERVICE_UNAVAILABLE');
    expect(error?.message).to.contain('one Loom process per data directory');
    expect(second.status).to.equal('closed');
    expect((await first.append(prepare({ clock: 2 }))).status).to.equal('inserted');
    await first.close();
    await temp.track(second);
    expect(await second.watermark()).to.equal(2);
  });

  it('replays on open what the ingest journal acknowledged but the database never received', async () => {
    const path = join(await temp.dir(), 'loom.db');
    // A store whose database writes all fail: appends are still acknowledged, from the journal.
    const failing = (await temp.track(new FailingApplyStore({ path }))) as FailingApplyStore;
    const records = Array.from({ length: 40 }, (_, i) => prepare({ clock: i, thread: i % 2 ? TH_A : TH_B }));
    const outcomes = await Promise.all(records.map((r) => failing.append(r)));
    expect(outcomes.every((o) => o.status === 'inserted')).to.equal(true);
    expect((await failing.get(records[39]!.record.id))?.record).to.deep.equal(records[39]!.record);
    await failing.close();
    expect(failing.attempts).to.be.greaterThan(0);
    const direct = await SqliteDatabase.open(path);
    expect(await direct.get('SELECT COUNT(*) AS n FROM records')).to.deep.equal({ n: 0 });
    await direct.close();
    // Reopened with a working database, the journal's records land before the store is open.
    const again = await temp.track(new SqliteRecordStore({ path }));
    expect(await again.watermark()).to.equal(40);
    const result = await again.query(parseRecordQuery({ filter: { thread: TH_A } }));
    expect(result.matchedTotal).to.equal(20);
    expect((await again.changesSince(0, 100)).map((s) => s.record.id)).to.deep.equal(ids(outcomes));
    const next = await again.append(prepare({ clock: 100 }));
    expect(next.status === 'inserted' && next.stored.sequence).to.equal(41);
  });

  it('migrates a schema-2 database (text-keyed indexes) to compact keys and thread summaries, keeping every record', async () => {
    const path = join(await temp.dir(), 'loom.db');
    const db = await SqliteDatabase.open(path);
    // Schema 2 as released: migrations 1 and 2.
    await db.exec(`CREATE TABLE records (
       seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE, thread TEXT NOT NULL, actor TEXT NOT NULL,
       act TEXT NOT NULL, clock INTEGER NOT NULL, data_type TEXT NOT NULL, judged_by TEXT, namespace TEXT NOT NULL,
       created_at INTEGER NOT NULL, parents TEXT NOT NULL, body TEXT NOT NULL, UNIQUE (actor, thread, clock));
     CREATE INDEX records_thread ON records (thread, seq);
     CREATE INDEX records_actor ON records (actor, seq);
     PRAGMA user_version = 2;`);
    const records = Array.from({ length: 2500 }, (_, i) => prepare({ clock: i, thread: [TH_A, TH_B, TH_C][i % 3]!, actor: i % 2 ? ALICE : BOB, body: { i } }));
    // One transaction: 2,500 autocommits (an fsync each) took over 30 s on a busy disk.
    await db.exec('BEGIN');
    for (const [i, p] of records.entries()) {
      const r = p.record;
      await db.run('INSERT INTO records (seq, id, thread, actor, act, clock, data_type, judged_by, namespace, created_at, parents, body) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)', [
        i + 1, r.id, r.thread, r.actor, r.act, r.clock, r.data_type, r.judged_by, p.namespace, p.createdAt, JSON.stringify(r.parents), JSON.stringify(r.body),
      ]);
    }
    await db.exec('COMMIT');
    await db.close();
    const store = await temp.track(new SqliteRecordStore({ path }));
    expect(await store.watermark()).to.equal(2500);
    expect((await store.get(records[1234]!.record.id))?.record).to.deep.equal(records[1234]!.record);
    expect((await store.listThreads()).items).to.deep.equal([
      { thread: TH_A, recordCount: 834, firstSequence: 1, lastSequence: 2500 },
      { thread: TH_B, recordCount: 833, firstSequence: 2, lastSequence: 2498 },
      { thread: TH_C, recordCount: 833, firstSequence: 3, lastSequence: 2499 },
    ]);
    expect((await store.listByActor(ALICE, { limit: 3 })).items.map((s) => s.sequence)).to.deep.equal([2, 4, 6]);
    expect((await store.query(parseRecordQuery({ filter: { thread: TH_B, actor: BOB } }))).matchedTotal).to.equal(416);
    expect((await store.append(records[7]!)).status).to.equal('exists');
    expect((await store.append(prepare({ clock: 7, actor: records[7]!.record.actor, thread: records[7]!.record.thread, body: { other: 1 } }))).status).to.equal('duplicate_clock');
    const check = await SqliteDatabase.open(path);
    expect(await check.get('PRAGMA user_version')).to.deep.equal({ user_version: SCHEMA_VERSION });
    const indexes = (await check.all<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'records' ORDER BY name")).map((r) => r.name);
    expect(indexes).to.deep.equal(['records_actor', 'records_id', 'records_slot', 'records_thread']);
    await check.close();
  });

  it('refuses a database written by a newer schema', async () => {
    const path = join(await temp.dir(), 'loom.db');
    const db = await SqliteDatabase.open(path);
    await db.exec(`PRAGMA user_version = ${SCHEMA_VERSION + 1}`);
    await db.close();
    const store = new SqliteRecordStore({ path });
    const error = await store.open().then(() => null, (e: unknown) => e);
    expect(error).to.have.property('code', 'INTERNAL');
    expect(store.status).to.equal('closed');
  });

  it('rejects bad options and calls on a closed store', async () => {
    expect(() => new SqliteRecordStore({ path: '' })).to.throw(TypeError);
    expect(() => new SqliteRecordStore({ path: 'x.db', durability: 'fast' as 'full' })).to.throw(TypeError);
    const store = await temp.open();
    await store.close();
    const error = await store.append(prepare({ clock: 1 })).then(() => null, (e: unknown) => e);
    expect(error).to.have.property('code', 'SERVICE_UNAVAILABLE');
  });

  it('pages by thread and by actor, and feeds changes', async () => {
    const store = await temp.open();
    await store.appendMany([
      prepare({ clock: 1, thread: TH_A, actor: ALICE }),
      prepare({ clock: 1, thread: TH_B, actor: ALICE }),
      prepare({ clock: 2, thread: TH_A, actor: ALICE }),
      prepare({ clock: 1, thread: TH_A, actor: BOB }),
    ]);
    const page1 = await store.listByThread(TH_A, { limit: 2 });
    expect(page1.items.map((s) => s.sequence)).to.deep.equal([1, 3]);
    expect(page1.nextAfter).to.equal(3);
    const page2 = await store.listByThread(TH_A, { after: 3, limit: 2 });
    expect(page2).to.deep.include({ nextAfter: null });
    expect(page2.items.map((s) => s.sequence)).to.deep.equal([4]);
    expect((await store.listByActor(ALICE)).items.map((s) => s.sequence)).to.deep.equal([1, 2, 3]);
    expect((await store.changesSince(2, 1)).map((s) => s.sequence)).to.deep.equal([3]);
    expect(await store.changesSince(4)).to.deep.equal([]);
  });

  it('lists threads in id order with counts and sequence bounds', async () => {
    const store = await temp.open();
    expect(await store.watermark()).to.equal(0);
    await store.appendMany([prepare({ clock: 1, thread: TH_C }), prepare({ clock: 1, thread: TH_A }), prepare({ clock: 2, thread: TH_C }), prepare({ clock: 1, thread: TH_B })]);
    const first = await store.listThreads({ limit: 2 });
    expect(first.items).to.deep.equal([
      { thread: TH_A, recordCount: 1, firstSequence: 2, lastSequence: 2 },
      { thread: TH_B, recordCount: 1, firstSequence: 4, lastSequence: 4 },
    ]);
    expect(first.nextAfter).to.equal(TH_B);
    expect(await store.listThreads({ after: TH_B })).to.deep.equal({ items: [{ thread: TH_C, recordCount: 2, firstSequence: 1, lastSequence: 3 }], nextAfter: null });
  });

  describe('query', () => {
    const bodies: JsonObject[] = [
      { kind: 'Task', n: 3, tag: 'a-1' },
      { kind: 'task', n: 10, tag: 'a_1', flag: true },
      { kind: 'TASK', n: 2.5, nested: { k: 'x' } },
      { kind: "'; DROP TABLE records; --", n: -1 },
      { n: 'ten', flag: false, nested: { k: 'y' } },
      { kind: null, n: [1, 2], nested: { k: 'x' } },
      { kind: 'task%', 'a-b': 7 },
      { kind: 'ta*k?', n: 6.783747286396276 },
      { kind: 'ta*k?', n: 6.7837472863962756 },
    ];
    let store: SqliteRecordStore;
    beforeEach(async () => {
      store = await temp.open();
      await store.appendMany(bodies.map((body, i) => prepare({ clock: i, thread: i % 2 ? TH_B : TH_A, body }, 1_700_000_000_000 + i)));
    });

    const cases: Array<[string, unknown]> = [
      ['$ne matches missing members', { filter: { 'body.kind': { $ne: 'task' } } }],
      ['$nin matches missing members', { filter: { 'body.kind': { $nin: ['task', 'Task'] } } }],
      ['$like is case-sensitive', { filter: { 'body.kind': { $like: 'ta%' } } }],
      ['$like escapes and GLOB specials', { filter: { 'body.kind': { $like: 'task\\%' } } }],
      ['$like treats * and ? literally', { filter: { 'body.kind': { $like: 'ta*k?' } } }],
      ['$ilike folds ASCII case', { filter: { 'body.kind': { $ilike: 'TA_K' } } }],
      ['$regex is evaluated exactly', { filter: { 'body.kind': { $regex: '^t.s', $options: 'i' }, 'body.n': { $gte: 2 } } }],
      ['$regex under $or and $not', { filter: { $or: [{ 'body.tag': { $regex: '_' } }, { $not: { 'body.n': { $lt: 5 } } }] } }],
      ['numbers compare only with numbers', { filter: { 'body.n': { $gt: 0 } }, sort: { 'body.n': -1 } }],
      ['reals SQLite reads alike stay distinct', { filter: { 'body.n': { $gt: 6.7837472863962756 } } }],
      ['reals SQLite reads alike keep their order', { filter: { 'body.n': { $gt: 6 } }, sort: { 'body.n': 1 }, limit: 1 }],
      ['$eq null is JSON null only', { filter: { 'body.kind': null } }],
      ['$exists and dashed keys', { filter: { 'body.a-b': { $exists: true } } }],
      ['booleans', { filter: { 'body.flag': { $in: [true] } } }],
      ['nested paths and arrays', { filter: { 'body.nested.k': 'x', 'body.n.0': { $exists: false } } }],
      ['sort on a body path with offset and limit', { sort: { 'body.kind': 1 }, limit: 3, offset: 2 }],
      ['sort on mixed types, descending', { sort: { 'body.n': -1 }, limit: 4 }],
      ['sort on nested objects', { sort: { 'body.nested': 1 } }],
      ['columns and ranges', { thread: TH_B, filter: { clock: { $gte: 1, $lt: 7 }, created_at: { $gte: 1_700_000_000 } } }],
      ['judged_by null is matched by $eq null only', { filter: { $or: [{ judged_by: null }, { judged_by: { $in: ['x', null] } }], 'body.n': { $exists: true } } }],
      ['hostile strings are values', { filter: { 'body.kind': "'; DROP TABLE records; --" } }],
    ];
    for (const [name, raw] of cases) {
      it(`gives the reference answer: ${name}`, async () => {
        const query = parseRecordQuery(raw);
        const result = await store.query(query);
        const expected = referenceAnswer(await store.changesSince(0), query);
        expect({ ids: result.items.map((s) => s.record.id), matchedTotal: result.matchedTotal }).to.deep.equal(expected);
        expect(result.capped).to.equal(query.offset + result.items.length < expected.matchedTotal);
      });
    }

    it('survives hostile strings in every position', async () => {
      const hostile = "'; DROP TABLE records; --";
      await store.append(prepare({ clock: 99, body: { [hostile.replace(/\W/g, '')]: hostile } }));
      const result = await store.query(parseRecordQuery({ thread: hostile, filter: { 'body.kind': { $like: hostile, $regex: hostile } } }));
      expect(result.matchedTotal).to.equal(0);
      expect(await store.watermark()).to.equal(bodies.length + 1);
    });

    it('explains with the SQL it ran and bind parameters only', async () => {
      const result = await store.query(parseRecordQuery({ thread: TH_A, filter: { 'body.kind': 'task', act: 'KNOW', clock: { $gt: 0 } }, explain: true }));
      const plan = result.plan!;
      expect(plan.sql).to.match(/^SELECT .* FROM records WHERE .* ORDER BY seq ASC LIMIT \? OFFSET \?$/s);
      expect(plan.sql).not.to.include('task');
      expect(plan.sql).not.to.include(TH_A);
      expect(plan.bind_count).to.equal((plan.sql.match(/\?/g) ?? []).length);
      expect(plan.indexed_fields).to.deep.equal(['thread']);
      expect(plan.unindexed_fields).to.deep.equal(['body.kind', 'act', 'clock']);
      expect((await store.query(parseRecordQuery({}))).plan).to.equal(undefined);
    });
  });
});
