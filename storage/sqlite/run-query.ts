/**
 * Runs a parsed structured query, all in one read transaction so the page and
 * the total come from one snapshot.
 *
 * - Exact filter (the usual case): one page statement with LIMIT/OFFSET, plus a
 *   COUNT(*) only when the page cannot tell the total.
 * - Inexact filter (see compile-filter.ts): one statement counts the rows that
 *   possibly and surely match; if they are the same rows, SQL alone decides.
 * - Otherwise, and always with `$regex`, rows that possibly match are streamed
 *   in sort order and `matchesFilter` decides in JS (count, offset, limit too).
 * - A sort on a body member fetches the page's prefix, checks that SQLite
 *   cannot have swapped a row across its end, and re-sorts it with the
 *   reference `compareForSort`.
 */
import { containsRegex, fieldsOf, type FilterNode, type ParsedQuery } from '../contract/query/filter-ast.js';
import { compareForSort, matchesFilter, resolveField } from '../contract/query/evaluate-filter.js';
import type { QueryPlan, QueryResult } from '../contract/record-store.js';
import type { StoredRecord } from '../contract/stored-record.js';
import { compileFilter } from './compile-filter.js';
import { compileSort, sortNeighbours, type SortSql } from './compile-sort.js';
import { RECORD_COLUMNS, rowToStored, type RecordRow } from './record-row.js';
import { joinSql, type SqlFragment } from './sql-fragment.js';
import type { BindValue, SqliteDatabase, SqliteSession } from './sqlite-database.js';

type Result = Omit<QueryResult, 'capped'>;

/** Filter fields answered from an index (records_thread, records_actor, id, seq). */
// Columns with an index of their own (records_thread, records_actor, the id and (actor, thread, clock) uniques, the primary key).
const INDEXED_FIELDS: ReadonlySet<string> = new Set(['thread', 'actor', 'id', 'sequence']);

function planOf(filter: FilterNode, sql: string, params: readonly BindValue[]): QueryPlan {
  const fields = [...fieldsOf(filter)];
  return {
    sql,
    bind_count: params.length,
    indexed_fields: fields.filter((f) => INDEXED_FIELDS.has(f)),
    unindexed_fields: fields.filter((f) => !INDEXED_FIELDS.has(f)),
  };
}

class QueryRun {
  private plan: { sql: string; params: readonly BindValue[] } | null = null;

  constructor(
    private readonly session: SqliteSession,
    private readonly query: ParsedQuery,
    private readonly sort: SortSql,
  ) {}

  result(items: StoredRecord[], matchedTotal: number): Result {
    const plan = this.query.explain && this.plan ? { plan: planOf(this.query.filter, this.plan.sql, this.plan.params) } : {};
    return { items, matchedTotal, ...plan };
  }

  /** The statement that fetches records; remembered as the explain plan. */
  private select(where: SqlFragment, tail = '', tailParams: BindValue[] = []): { sql: string; params: readonly BindValue[] } {
    const sql = `SELECT ${RECORD_COLUMNS} FROM records WHERE ${where.sql} ORDER BY ${this.sort.orderBy.sql}${tail}`;
    this.plan = { sql, params: [...where.params, ...this.sort.orderBy.params, ...tailParams] };
    return this.plan;
  }

  private async rows(where: SqlFragment, tail: string, tailParams: BindValue[]): Promise<StoredRecord[]> {
    const { sql, params } = this.select(where, tail, tailParams);
    return (await this.session.all<RecordRow>(sql, params)).map(rowToStored);
  }

  private async count(where: SqlFragment): Promise<number> {
    const row = await this.session.get<{ n: number }>(`SELECT COUNT(*) AS n FROM records WHERE ${where.sql}`, where.params);
    return row?.n ?? 0;
  }

  /** `where` decides the filter exactly; `knownTotal` when already counted. */
  async inSql(where: SqlFragment, knownTotal: number | null): Promise<Result> {
    const { limit, offset } = this.query;
    if (this.sort.bodyPath) return this.bodySortedInSql(where, knownTotal);
    const items = await this.rows(where, ' LIMIT ? OFFSET ?', [limit, offset]);
    // A short page that is non-empty (or starts at 0) ends the matches: no count needed.
    const ended = items.length < limit && (items.length > 0 || offset === 0);
    return this.result(items, knownTotal ?? (ended ? offset + items.length : await this.count(where)));
  }

  private async bodySortedInSql(where: SqlFragment, knownTotal: number | null): Promise<Result> {
    const path = this.sort.bodyPath!;
    const end = this.query.offset + this.query.limit;
    // One row past the page tells whether anything lies beyond it.
    const prefix = await this.rows(where, ' LIMIT ?', [end + 1]);
    const bySort = compareForSort(this.query.sort);
    if (prefix.length <= end) return this.result(prefix.sort(bySort).slice(this.query.offset), prefix.length);
    const page = prefix.slice(0, end);
    if (end > 0) {
      const boundary = resolveField(page[end - 1]!, this.query.sort!.field);
      if (typeof boundary === 'number' || typeof boundary === 'boolean') {
        const neighbours = joinSql([where, sortNeighbours(path, boundary)], 'AND');
        const risky = await this.session.get<{ x: number }>(`SELECT EXISTS (SELECT 1 FROM records WHERE ${neighbours.sql}) AS x`, neighbours.params);
        if (risky?.x) return this.inJs(where);
      }
    }
    return this.result(page.sort(bySort).slice(this.query.offset), knownTotal ?? (await this.count(where)));
  }

  /** `possible` holds every match; `matchesFilter` decides each candidate. */
  async inJs(possible: SqlFragment): Promise<Result> {
    const { filter, limit, offset } = this.query;
    const { sql, params } = this.select(possible);
    // SQL order is exact unless the sort is on a body member: then keep all matches and sort them here.
    const keepAll = this.sort.bodyPath !== null;
    const kept: StoredRecord[] = [];
    let matched = 0;
    await this.session.each<RecordRow>(sql, params, (row) => {
      const stored = rowToStored(row);
      if (!matchesFilter(stored, filter)) return;
      if (keepAll || (matched >= offset && kept.length < limit)) kept.push(stored);
      matched++;
    });
    const items = keepAll ? kept.sort(compareForSort(this.query.sort)).slice(offset, offset + limit) : kept;
    return this.result(items, matched);
  }
}

export function runQuery(db: SqliteDatabase, query: ParsedQuery): Promise<Result> {
  const filter = compileFilter(query.filter);
  const sort = compileSort(query.sort);
  return db.transaction('DEFERRED', async (session) => {
    const run = new QueryRun(session, query, sort);
    if (filter.exact) return run.inSql(filter.sure, null);
    if (containsRegex(query.filter)) return run.inJs(filter.possible);
    const counts = await session.get<{ possible: number; sure: number }>(
      `SELECT COUNT(*) AS possible, COALESCE(SUM(${filter.sure.sql}), 0) AS sure FROM records WHERE ${filter.possible.sql}`,
      [...filter.sure.params, ...filter.possible.params],
    );
    if (counts && counts.possible === counts.sure) return run.inSql(filter.sure, counts.sure);
    return run.inJs(filter.possible);
  });
}
