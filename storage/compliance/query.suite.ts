/**
 * Structured query, case by case: every operator, dot paths, columns, sorts,
 * paging, matchedTotal/capped, scope and the explain plan. Skipped when the
 * manifest says `structuredQuery: false`.
 */
import { expect } from 'chai';
import { fieldsOf } from '../contract/query/filter-ast.js';
import { parseRecordQuery } from '../contract/query/parse-query.js';
import type { QueryResult } from '../contract/record-store.js';
import type { StoredRecord } from '../contract/stored-record.js';
import { FILTER_COLUMNS } from '../contract/query/filter-ast.js';
import { FILTER_CASES, PAGE_CASES, Q_ALICE, Q_BOB, Q_THREAD_B, queryDataset, SORT_CASES, type Label, type QueryCase } from './query-cases.js';
import { insertAll, requireCapability, sharedStore, type SuiteContext } from './traits.js';

export function querySuite(context: SuiteContext): void {
  describe('structured query', () => {
    requireCapability(context, (c) => c.structuredQuery);
    const byLabel = new Map<Label, StoredRecord>();
    const labelOf = new Map<string, Label>();
    const harness = sharedStore(context, async (store) => {
      const dataset = queryDataset();
      const stored = await insertAll(store, Object.values(dataset));
      (Object.keys(dataset) as Label[]).forEach((label, i) => {
        byLabel.set(label, stored[i]!);
        labelOf.set(stored[i]!.record.id, label);
      });
    });

    /** Replaces `$id:<label>` and `$seq:<label>` markers with the stored values. */
    const resolveMarkers = (value: unknown): unknown => {
      if (typeof value === 'string' && value.startsWith('$id:')) return byLabel.get(value.slice(4) as Label)!.record.id;
      if (typeof value === 'string' && value.startsWith('$seq:')) return byLabel.get(value.slice(5) as Label)!.sequence;
      if (Array.isArray(value)) return value.map(resolveMarkers);
      if (typeof value === 'object' && value !== null) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, resolveMarkers(v)]));
      return value;
    };
    const labels = (result: QueryResult) => result.items.map((s) => labelOf.get(s.record.id) ?? s.record.id);

    const run = (cases: readonly QueryCase[]) => {
      for (const each of cases) {
        it(each.name, async () => {
          const { store } = harness();
          const result = await store.query(parseRecordQuery(resolveMarkers(each.query)));
          expect(labels(result), 'ids in order').to.deep.equal(each.expect);
          expect(result.matchedTotal, 'matchedTotal').to.equal(each.matchedTotal ?? each.expect.length);
          expect(result.capped, 'capped').to.equal(each.capped ?? false);
          expect(result.plan, 'no plan without explain').to.equal(undefined);
        });
      }
    };

    describe('operators, paths and columns', () => run(FILTER_CASES));
    describe('sort (ties by ascending sequence in both directions)', () => run(SORT_CASES));
    describe('limit, offset, matchedTotal and capped', () => run(PAGE_CASES));

    it('returns whole stored records, equal to get()', async () => {
      const { store } = harness();
      const result = await store.query(parseRecordQuery({}));
      for (const item of result.items) {
        const fetched = await store.get(item.record.id);
        expect({ ...item, record: { ...item.record } }).to.deep.equal({ ...fetched!, record: { ...fetched!.record } });
      }
    });

    it('AND-combines a scope with the client filter', async () => {
      const { store } = harness();
      const query = parseRecordQuery({ filter: { 'body.kind': 'task' } });
      const scopeTo = (actor: string) => ({ op: 'compare', field: { kind: 'column', column: 'actor' }, operator: '$eq', value: actor }) as const;
      expect(labels(await store.query(query, { scope: scopeTo(Q_BOB) }))).to.deep.equal([]);
      const alice = await store.query(query, { scope: { op: 'and', nodes: [scopeTo(Q_ALICE), { op: 'compare', field: { kind: 'column', column: 'thread' }, operator: '$eq', value: Q_THREAD_B }] } });
      expect(labels(alice)).to.deep.equal(['q6']);
      expect(alice.matchedTotal).to.equal(1);
    });

    it('explains the plan it ran, naming every filtered field as indexed or not', async () => {
      const { store } = harness();
      const raw = { filter: { 'body.kind': 'task', actor: Q_ALICE, $or: [{ clock: { $gt: 1 } }, { 'body._refs.track.id': 't-1' }] }, explain: true };
      const query = parseRecordQuery(raw);
      const result = await store.query(query);
      expect(labels(result)).to.deep.equal(['q0', 'q1', 'q6']);
      const plan = result.plan;
      expect(plan, 'plan').to.be.an('object');
      expect(plan!.sql).to.be.a('string').and.not.equal('');
      expect(Number.isInteger(plan!.bind_count) && plan!.bind_count >= 0, 'bind_count is a non-negative integer').to.equal(true);
      expect(plan!.indexed_fields).to.be.an('array');
      expect(plan!.unindexed_fields).to.be.an('array');
      const named = [...plan!.indexed_fields, ...plan!.unindexed_fields];
      named.forEach((field) => expect(field).to.be.a('string'));
      expect(plan!.indexed_fields.filter((f) => plan!.unindexed_fields.includes(f)), 'indexed and unindexed are disjoint').to.deep.equal([]);
      expect(named).to.include.members([...fieldsOf(query.filter)]);
      named.forEach((field) => expect((FILTER_COLUMNS as readonly string[]).includes(field) || field.startsWith('body.'), field).to.equal(true));
    });
  });
}
