/**
 * SortSpec → ORDER BY, ties by ascending sequence. SQLite orders NULL
 * (missing or JSON null) < numbers (JSON booleans as 1/0) < text (objects and
 * arrays as their minified JSON, which is the JSON.stringify text stored),
 * which is the reference's `compareSortKeys`, with one exception the runner
 * repairs: body numbers SQLite read a few ulps off (see `uncertaintyBand`).
 */
import type { SortSpec } from '../contract/query/filter-ast.js';
import { COLUMN_SQL } from './compile-filter.js';
import { BODY_NUMBER, BODY_NUMBER_INEXACT, jsonPath, sql, uncertaintyBand, type SqlFragment } from './sql-fragment.js';

export interface SortSql {
  readonly orderBy: SqlFragment;
  /**
   * The JSON path when sorting on a body member: SQL's order is then right
   * except among numbers within a few ulps of each other, so the runner
   * re-sorts what it fetched in JS and checks the page boundary.
   */
  readonly bodyPath: string | null;
}

export function compileSort(sort: SortSpec | null): SortSql {
  if (!sort) return { orderBy: sql('seq ASC'), bodyPath: null };
  const direction = sort.direction === 1 ? 'ASC' : 'DESC';
  if (sort.field.kind === 'column') {
    const column = sort.field.column;
    return { orderBy: sql(column === 'sequence' ? `seq ${direction}` : `${COLUMN_SQL[column]} ${direction}, seq ASC`), bodyPath: null };
  }
  const path = jsonPath(sort.field.path);
  // Integers are cast so that those above 2^53 order as the doubles JS reads.
  const key = `CASE json_type(body, ?) WHEN 'integer' THEN ${BODY_NUMBER} ELSE json_extract(body, ?) END`;
  return { orderBy: sql(`${key} ${direction}, seq ASC`, path, path, path), bodyPath: path };
}

/**
 * Rows whose sort position SQLite may have swapped with a row holding
 * `boundary` (the sort value of the last row of a page): numbers (or
 * booleans) within the uncertainty band of it, with another JSON text, and
 * read inexactly on at least one side. When none exist, the rows SQL puts up
 * to the boundary are exactly the rows the reference puts there.
 */
export function sortNeighbours(path: string, boundary: number | boolean): SqlFragment {
  const value = typeof boundary === 'number' ? boundary : boundary ? 1 : 0;
  const boundaryInexact = typeof boundary === 'number' && !Number.isSafeInteger(boundary) ? 1 : 0;
  return sql(
    `(COALESCE(json_type(body, ?), '') IN ('integer', 'real', 'true', 'false')
      AND (body -> ?) <> ?
      AND (${BODY_NUMBER_INEXACT} OR ?)
      AND COALESCE(ABS(${BODY_NUMBER} - ?) <= ?, 1))`,
    path,
    path,
    JSON.stringify(boundary),
    path,
    boundaryInexact,
    path,
    value,
    uncertaintyBand(value),
  );
}
