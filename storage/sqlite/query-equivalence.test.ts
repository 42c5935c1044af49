/**
 * Random filters and sorts over values chosen to find where SQLite and JS
 * disagree (test/helpers/tricky-query-arbitraries.ts). The SQL driver must give the
 * reference answer every time.
 */
import { expect } from 'chai';
import fc from 'fast-check';
import { parseRecordQuery } from '../contract/query/parse-query.js';
import type { StoredRecord } from '../contract/stored-record.js';
import type { SqliteRecordStore } from './sqlite-record-store.js';
import { TempStores, referenceAnswer } from '../../test/helpers/sqlite-test-support.js';
import { dataset, rawQuery } from '../../test/helpers/tricky-query-arbitraries.js';

describe('SqliteRecordStore query equivalence with the reference semantics', () => {
  const temp = new TempStores();
  let store: SqliteRecordStore;
  let all: StoredRecord[];

  before(async () => {
    store = await temp.open();
    await store.appendMany(dataset(45));
    all = await store.changesSince(0);
  });
  after(() => temp.cleanup());

  it('answers random filters, sorts and pages exactly like matchesFilter + compareForSort', async () => {
    await fc.assert(
      fc.asyncProperty(rawQuery, async (raw) => {
        const query = parseRecordQuery(raw);
        const result = await store.query(query);
        expect({ ids: result.items.map((s) => s.record.id), matchedTotal: result.matchedTotal }).to.deep.equal(referenceAnswer(all, query));
      }),
      { numRuns: 1000 },
    );
  });
});
