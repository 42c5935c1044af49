/**
 * The PostgreSQL store's shared vectors (storage/contract/shared-vectors.ts):
 * `search_vectors` holds one row per model and record sequence (the vector
 * as float32 little-endian bytea), `search_vector_progress` one row per model
 * (frontier, dimensions, latest refused sequences). A batch's vectors and its
 * progress are written in one transaction, so whoever reads the frontier
 * then pages the vectors sees every vector at or below it.
 */
import type pg from 'pg';
import type { SharedVectorProgress, SharedVectorRow, SharedVectors } from '../contract/shared-vectors.js';

/** Refused sequences kept per model (the newest). */
const FAILED_KEPT = 1000;

export class PostgresSharedVectors implements SharedVectors {
  constructor(
    /** Runs `work` on a pooled connection (the store's: failures answer 503). */
    private readonly withClient: <T>(work: (client: pg.PoolClient) => Promise<T>) => Promise<T>,
    private readonly query: <R extends pg.QueryResultRow>(text: string, values: unknown[]) => Promise<pg.QueryResult<R>>,
  ) {}

  async progress(model: string): Promise<SharedVectorProgress | null> {
    const { rows } = await this.query<{ frontier: number; dims: number; failed: string[] }>('SELECT frontier, dims, failed FROM search_vector_progress WHERE model = $1', [model]);
    const row = rows[0];
    return row ? { frontier: Number(row.frontier), dims: row.dims, failed: row.failed.map(Number) } : null;
  }

  async page(model: string, after: number, limit: number): Promise<SharedVectorRow[]> {
    const { rows } = await this.query<{ seq: number; meta: string; vector: Buffer }>('SELECT seq, meta, vector FROM search_vectors WHERE model = $1 AND seq > $2 ORDER BY seq LIMIT $3', [model, after, limit]);
    return rows.map((row) => {
      // A copy: the driver's buffer may be a view into a pooled slab with any alignment.
      const bytes = new Uint8Array(row.vector.byteLength);
      bytes.set(row.vector);
      return { sequence: Number(row.seq), meta: row.meta, vector: new Float32Array(bytes.buffer) };
    });
  }

  append(model: string, rows: readonly SharedVectorRow[], progress: SharedVectorProgress): Promise<void> {
    return this.withClient(async (client) => {
      await client.query('BEGIN');
      try {
        if (rows.length > 0) {
          await client.query(
            'INSERT INTO search_vectors (model, seq, meta, vector) SELECT $1, * FROM unnest($2::bigint[], $3::text[], $4::bytea[]) ON CONFLICT (model, seq) DO NOTHING',
            [model, rows.map((row) => row.sequence), rows.map((row) => row.meta), rows.map((row) => Buffer.from(row.vector.buffer, row.vector.byteOffset, row.vector.byteLength))],
          );
        }
        await client.query(
          `INSERT INTO search_vector_progress AS p (model, frontier, dims, failed) VALUES ($1, $2, $3, $4::bigint[])
           ON CONFLICT (model) DO UPDATE SET
             frontier = GREATEST(p.frontier, excluded.frontier),
             dims = CASE WHEN p.dims = 0 THEN excluded.dims ELSE p.dims END,
             failed = CASE WHEN cardinality(excluded.failed) = 0 THEN p.failed
                      ELSE (SELECT coalesce(array_agg(x ORDER BY x), '{}') FROM (SELECT DISTINCT x FROM unnest(p.failed || excluded.failed) AS x ORDER BY x DESC LIMIT ${FAILED_KEPT}) AS newest) END`,
          [model, progress.frontier, progress.dims, progress.failed.slice(-FAILED_KEPT)],
        );
        await client.query('COMMIT');
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw error;
      }
    });
  }
}
