/**
 * Runs a parsed structured query in one REPEATABLE READ, READ ONLY
 * transaction, so the page and the total come from one snapshot.
 *
 * - Exact filter: one page statement with LIMIT/OFFSET, and a COUNT(*) only
 *   when the page cannot tell the total.
 * - Inexact (compile-filter.ts): one statement counts rows that possibly and
 *   surely match; when they are the same rows SQL decides. Otherwise (always
 *   with `$regex`) candidates are read in pages and `matchesFilter` decides.
 * - Sorts on columns are exact in SQL ("C" collation, NULLs first ascending).
 *   A sort on a body member is exact in SQL (rank: missing/null, then numbers
 *   and booleans as numeric, then strings) unless a candidate holds an object
 *   or an array there (the reference orders those by their JSON.stringify
 *   text) or an opaque body: then every match is sorted in JS.
 */
import type pg from 'pg';
import { containsRegex, fieldsOf, type FilterNode, type ParsedQuery, type SortSpec } from '../contract/query/filter-ast.js';
import { compareForSort, matchesFilter } from '../contract/query/evaluate-filter.js';
import type { QueryPlan, QueryResult } from '../contract/record-store.js';
import type { StoredRecord } from '../contract/stored-record.js';
import { COLUMN_SQL, compileFilter } from './compile-filter.js';
import { RECORD_COLUMNS, rowToStored, type RecordRow } from './record-row.js';
import { joinSql, numbered, pathArray, sql, type SqlFragment } from './sql-fragment.js';

type Result = Omit<QueryResult, 'capped'>;

const INDEXED_FIELDS: ReadonlySet<string> = new Set(['thread', 'actor', 'id', 'sequence']);
const CANDIDATE_PAGE = 5000;

interface SortSql {
  readonly orderBy: SqlFragment;
  /** Rows for which SQL's order may differ from the reference's (body sorts only). */
  readonly unsortable: SqlFragment | null;
}

function compileSort(sort: SortSpec | null): SortSql {
  if (!sort) return { orderBy: sql('seq ASC'), unsortable: null };
  const direction = sort.direction === 1 ? 'ASC' : 'DESC';
  const nulls = sort.direction === 1 ? 'NULLS FIRST' : 'NULLS LAST';
  if (sort.field.kind === 'column') {
    const column = sort.field.column;
    return { orderBy: sql(column === 'sequence' ? `seq ${direction}` : `${COLUMN_SQL[column]} ${direction} ${nulls}, seq ASC`), unsortable: null };
  }
  const path = pathArray(sort.field.path);
  const guards: string[] = [];
  const guardParams: string[][] = [];
  for (let i = 1; i < path.length; i++) {
    guards.push(`jsonb_typeof(body_doc #> ?::text[]) = 'object'`);
    guardParams.push(path.slice(0, i));
  }
  const present = guards.length > 0 ? `(${guards.join(' AND ')})` : 'TRUE';
  // The member's type when every prefix is an object, else NULL (missing).
  const type = `CASE WHEN ${present} THEN jsonb_typeof(body_doc #> ?::text[]) END`;
  const typeParams = [...guardParams, path];
  const rank = `CASE ${type} WHEN 'number' THEN 1 WHEN 'boolean' THEN 1 WHEN 'string' THEN 2 WHEN 'object' THEN 2 WHEN 'array' THEN 2 ELSE 0 END`;
  const numberKey = `CASE ${type} WHEN 'number' THEN (body_doc #>> ?::text[])::numeric WHEN 'boolean' THEN (CASE WHEN (body_doc #>> ?::text[])::boolean THEN 1 ELSE 0 END) END`;
  const textKey = `CASE ${type} WHEN 'string' THEN (body_doc #>> ?::text[]) END COLLATE "C"`;
  return {
    orderBy: sql(
      `${rank} ${direction}, ${numberKey} ${direction}, ${textKey} ${direction}, seq ASC`,
      ...typeParams,
      ...typeParams,
      path,
      path,
      ...typeParams,
      path,
    ),
    unsortable: sql(`(body_doc IS NULL OR COALESCE(${type} IN ('object', 'array'), FALSE))`, ...typeParams),
  };
}

function planOf(filter: FilterNode, text: string, bindCount: number): QueryPlan {
  const fields = [...fieldsOf(filter)];
  return { sql: text, bind_count: bindCount, indexed_fields: fields.filter((f) => INDEXED_FIELDS.has(f)), unindexed_fields: fields.filter((f) => !INDEXED_FIELDS.has(f)) };
}

class QueryRun {
  private plan: { text: string; values: readonly unknown[] } | null = null;

  constructor(
    private readonly client: pg.ClientBase,
    private readonly query: ParsedQuery,
    private readonly sort: SortSql,
  ) {}

  private async all(fragment: SqlFragment, remember = false): Promise<StoredRecord[]> {
    const { text, values } = numbered(fragment);
    if (remember) this.plan = { text, values };
    const { rows } = await this.client.query<RecordRow>(text, values as unknown[]);
    return rows.map(rowToStored);
  }

  private async scalar(fragment: SqlFragment): Promise<Record<string, unknown>> {
    const { text, values } = numbered(fragment);
    const { rows } = await this.client.query(text, values as unknown[]);
    return rows[0] ?? {};
  }

  async result(items: StoredRecord[], matchedTotal: number): Promise<Result> {
    if (!this.query.explain || !this.plan) return { items, matchedTotal };
    const { rows } = await this.client.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${this.plan.text}`, this.plan.values as unknown[]);
    return { items, matchedTotal, plan: { ...planOf(this.query.filter, this.plan.text, this.plan.values.length), database_plan: rows.map((row) => row['QUERY PLAN']) } };
  }

  private select(where: SqlFragment, tail: SqlFragment = sql('')): SqlFragment {
    return { sql: `SELECT ${RECORD_COLUMNS} FROM records WHERE ${where.sql} ORDER BY ${this.sort.orderBy.sql}${tail.sql}`, params: [...where.params, ...this.sort.orderBy.params, ...tail.params] };
  }

  private async count(where: SqlFragment): Promise<number> {
    return Number((await this.scalar(sql(`SELECT COUNT(*)::bigint AS n FROM records WHERE ${where.sql}`, ...where.params)))['n'] ?? 0);
  }

  /** Whether SQL's order is the reference's for every row matching `where`. */
  private async sortable(where: SqlFragment): Promise<boolean> {
    if (!this.sort.unsortable) return true;
    const risky = joinSql([where, this.sort.unsortable], 'AND');
    return !(await this.scalar(sql(`SELECT EXISTS (SELECT 1 FROM records WHERE ${risky.sql}) AS x`, ...risky.params)))['x'];
  }

  async inSql(where: SqlFragment, knownTotal: number | null): Promise<Result> {
    if (!(await this.sortable(where))) return this.inJs(where);
    const { limit, offset } = this.query;
    const items = await this.all(this.select(where, sql(' LIMIT ? OFFSET ?', limit, offset)), true);
    const ended = items.length < limit && (items.length > 0 || offset === 0);
    return this.result(items, knownTotal ?? (ended ? offset + items.length : await this.count(where)));
  }

  /** `possible` holds every match; `matchesFilter` decides each, read in pages of the snapshot. */
  async inJs(possible: SqlFragment): Promise<Result> {
    const { filter, limit, offset } = this.query;
    const keepAll = !(await this.sortable(possible));
    const kept: StoredRecord[] = [];
    let matched = 0;
    for (let skip = 0; ; skip += CANDIDATE_PAGE) {
      const page = await this.all(this.select(possible, sql(' LIMIT ? OFFSET ?', CANDIDATE_PAGE, skip)), skip === 0);
      for (const stored of page) {
        if (!matchesFilter(stored, filter)) continue;
        if (keepAll || (matched >= offset && kept.length < limit)) kept.push(stored);
        matched++;
      }
      if (page.length < CANDIDATE_PAGE) break;
    }
    const items = keepAll ? kept.sort(compareForSort(this.query.sort)).slice(offset, offset + limit) : kept;
    return this.result(items, matched);
  }
}

export async function runQuery(client: pg.ClientBase, query: ParsedQuery): Promise<Result> {
  const filter = compileFilter(query.filter);
  const run = new QueryRun(client, query, compileSort(query.sort));
  await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
  try {
    let result: Result;
    if (filter.exact) result = await run.inSql(filter.sure, null);
    else if (containsRegex(query.filter)) result = await run.inJs(filter.possible);
    else {
      const text = numbered(sql(`SELECT COUNT(*)::bigint AS possible, COUNT(*) FILTER (WHERE ${filter.sure.sql})::bigint AS sure FROM records WHERE ${filter.possible.sql}`, ...filter.sure.params, ...filter.possible.params));
      const { rows } = await client.query<{ possible: number; sure: number }>(text.text, text.values as unknown[]);
      const row = rows[0]!;
      result = Number(row.possible) === Number(row.sure) ? await run.inSql(filter.sure, Number(row.sure)) : await run.inJs(filter.possible);
    }
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
}
