/** The PostgreSQL driver's rows are the shared SQL record row, plus the body as jsonb for queries. */
export { RECORD_COLUMNS, rowToStored, type RecordRow } from '../contract/sql-record-row.js';

/**
 * The body as jsonb for queries, or null when jsonb cannot hold it exactly
 * (a `\u0000` escape or a lone surrogate): those rows are decided in JS.
 * JSON.stringify escapes lone surrogates and never escapes paired ones.
 */
export function queryableBody(bodyJson: string): string | null {
  return /\\u0000|\\ud[89a-f]/i.test(bodyJson) ? null : bodyJson;
}
