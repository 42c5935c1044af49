/**
 * The query property test: over seeded random records and random client
 * queries, the driver's `query()` must give exactly the reference answer
 * (`matchesFilter` + `compareForSort` + offset/limit) in ids, order,
 * matchedTotal and capped. The seed is fixed so a failure reproduces; the
 * shrunk counterexample is printed as client JSON.
 */
import { expect } from 'chai';
import fc from 'fast-check';
import { compareForSort, matchesFilter } from '../contract/query/evaluate-filter.js';
import { parseRecordQuery } from '../contract/query/parse-query.js';
import type { StoredRecord } from '../contract/stored-record.js';
import { queryArbitrary, recordsArbitrary } from './query-arbitraries.js';
import { expectSameRecord, idsOf, insertMany, readAll, requireCapability, sharedStore, type SuiteContext } from './traits.js';

const SEED = 0x10c0;
const RECORD_COUNT = 150;
const QUERY_RUNS = 300;

function show(stored: StoredRecord): string {
  const { id, parents, ...fields } = stored.record;
  return `#${stored.sequence} ${JSON.stringify({ ...fields, created_at: stored.createdAt, id: id.slice(0, 12) })}`;
}

/** Names the records that are missing or extra, or the first place the order differs. */
function describeDifference(expected: readonly StoredRecord[], actual: readonly StoredRecord[]): string {
  const expectedIds = new Set(idsOf(expected));
  const actualIds = new Set(idsOf(actual));
  const missing = expected.filter((r) => !actualIds.has(r.record.id));
  const extra = actual.filter((r) => !expectedIds.has(r.record.id));
  const lines = [`items differ (expected ${expected.length}, got ${actual.length})`];
  for (const r of missing.slice(0, 5)) lines.push(`  missing: ${show(r)}`);
  for (const r of extra.slice(0, 5)) lines.push(`  extra:   ${show(r)}`);
  if (missing.length === 0 && extra.length === 0) {
    const at = expected.findIndex((r, i) => r.record.id !== actual[i]!.record.id);
    lines.push(`  order differs at position ${at}:`, `  expected: ${show(expected[at]!)}`, `  actual:   ${show(actual[at]!)}`);
  }
  return lines.join('\n');
}

export function queryPropertySuite(context: SuiteContext): void {
  describe('structured query against the reference (property)', () => {
    requireCapability(context, (c) => c.structuredQuery);
    let records: StoredRecord[] = [];
    const prepared = fc.sample(recordsArbitrary(RECORD_COUNT), { seed: SEED, numRuns: 1 })[0]!;
    const harness = sharedStore(context, async (store) => {
      for (let i = 0; i < prepared.length; i += 40) await insertMany(store, prepared.slice(i, i + 40));
      records = await readAll(store);
    });

    it(`stores the ${RECORD_COUNT} generated records faithfully`, () => {
      expect(idsOf(records)).to.deep.equal(prepared.map((p) => p.record.id));
      records.forEach((stored, i) => expectSameRecord(stored, prepared[i]!));
    });

    it(`answers ${QUERY_RUNS} random queries exactly like the reference (seed ${SEED})`, async function () {
      this.timeout(60_000);
      const { store } = harness();
      let selective = 0;
      await fc.assert(
        fc.asyncProperty(queryArbitrary(idsOf(records), RECORD_COUNT), async (raw) => {
          const query = parseRecordQuery(raw);
          const matched = records.filter((r) => matchesFilter(r, query.filter)).sort(compareForSort(query.sort));
          const page = matched.slice(query.offset, query.offset + query.limit);
          const result = await store.query(query);
          const problems: string[] = [];
          if (JSON.stringify(idsOf(result.items)) !== JSON.stringify(idsOf(page))) problems.push(describeDifference(page, result.items));
          if (result.matchedTotal !== matched.length) problems.push(`matchedTotal ${result.matchedTotal}, expected ${matched.length}`);
          const capped = query.offset + page.length < matched.length;
          if (result.capped !== capped) problems.push(`capped ${result.capped}, expected ${capped}`);
          if ((result.plan !== undefined) !== query.explain) problems.push(`plan ${result.plan ? 'present' : 'absent'} with explain ${query.explain}`);
          if (problems.length > 0) throw new Error(`query ${JSON.stringify(raw)}:\n${problems.join('\n')}`);
          if (matched.length > 0 && matched.length < records.length) selective++;
        }),
        { seed: SEED, numRuns: QUERY_RUNS, endOnFailure: false },
      );
      // Guards the generator: most filters must split the records, or the property proves little.
      expect(selective, 'queries that matched some but not all records').to.be.greaterThan(QUERY_RUNS / 4);
    });
  });
}
