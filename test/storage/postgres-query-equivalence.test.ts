/**
 * The PostgreSQL driver against the SQLite driver: the same records in both
 * (values chosen to find where a SQL dialect and JS disagree: U+0000 in
 * bodies, integers above 2^53, reals read an ulp off,
 * LIKE specials, mixed types), the same random filters, sorts and pages, the
 * same answers — and both the reference evaluator's.
 */
import { expect } from 'chai';
import fc from 'fast-check';
import { parseRecordQuery } from '../../storage/contract/query/parse-query.js';
import type { StoredRecord } from '../../storage/contract/stored-record.js';
import { PostgresRecordStore } from '../../storage/postgres/index.js';
import { clusterOrSkip, freshDatabase } from '../helpers/postgres-test-support.js';
import type { SqliteRecordStore } from '../../storage/sqlite/sqlite-record-store.js';
import { TempStores, referenceAnswer } from '../helpers/sqlite-test-support.js';
import { dataset, rawQuery } from '../helpers/tricky-query-arbitraries.js';

describe('PostgreSQL and SQLite answer structured queries alike', function () {
  this.timeout(180_000);
  const temp = new TempStores();
  let sqlite: SqliteRecordStore;
  let postgres: PostgresRecordStore;
  let all: StoredRecord[];

  before(async function () {
    const cluster = await clusterOrSkip(this);
    sqlite = await temp.open();
    postgres = new PostgresRecordStore({ connectionString: await freshDatabase(cluster, 'equivalence'), poolSize: 2 });
    await postgres.open();
    // U+0000 in some bodies: jsonb cannot hold them, so PostgreSQL leaves those rows to JS.
    const records = dataset(45);
    await sqlite.appendMany(records);
    await postgres.appendMany(records);
    all = await sqlite.changesSince(0);
    expect((await postgres.changesSince(0)).map((s) => [s.sequence, s.record.id])).to.deep.equal(all.map((s) => [s.sequence, s.record.id]));
  });
  after(async () => {
    await postgres?.close();
    await temp.cleanup();
  });

  it('gives the same ids and totals as SQLite, and as the reference, for 1000 random queries', async () => {
    await fc.assert(
      fc.asyncProperty(rawQuery, async (raw) => {
        const query = parseRecordQuery(raw);
        const [fromPg, fromSqlite] = await Promise.all([postgres.query(query), sqlite.query(query)]);
        const answer = (r: { items: StoredRecord[]; matchedTotal: number }) => ({ ids: r.items.map((s) => s.record.id), matchedTotal: r.matchedTotal });
        expect(answer(fromPg)).to.deep.equal(answer(fromSqlite));
        expect(answer(fromPg)).to.deep.equal(referenceAnswer(all, query));
      }),
      { numRuns: 1000 },
    );
  });

  it('explains with the SQL it ran and PostgreSQL\'s plan of it', async () => {
    const result = await postgres.query(parseRecordQuery({ filter: { 'body.s': 'a', thread: 'th_' + 'a'.repeat(64) }, explain: true }));
    expect(result.plan!.sql).to.match(/^SELECT .* FROM records WHERE .*body_doc @> /);
    expect(result.plan!.indexed_fields).to.include('thread');
    expect(result.plan!.database_plan!.join('\n')).to.match(/Scan|Seq|Index|Bitmap/);
  });
});
