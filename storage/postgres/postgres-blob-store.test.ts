import { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { runBlobStoreCompliance } from '../compliance/index.js';
import { clusterOrSkip, freshDatabase } from '../../test/helpers/postgres-test-support.js';
import { CHUNK_BYTES } from './postgres-blob-store.js';
import { PostgresRecordStore } from './postgres-record-store.js';
import type { ThrowawayCluster } from './throwaway-cluster.js';

describe('PostgreSQL blob driver', function () {
  this.timeout(60_000);
  let cluster: ThrowawayCluster;
  let url: string;
  let schemas = 0;
  const openRecords = async (schema = `blobs_${++schemas}`) => {
    const records = new PostgresRecordStore({ connectionString: url, schema, poolSize: 4 });
    await records.open();
    return records;
  };

  before(async function () {
    cluster = await clusterOrSkip(this);
    url = await freshDatabase(cluster, 'blobs');
  });

  runBlobStoreCompliance({
    name: 'PostgresBlobStore',
    async factory() {
      const records = await openRecords();
      const store = records.blobStore();
      await store.open();
      return {
        store,
        cleanup: async () => {
          await store.close();
          await records.close();
        },
      };
    },
  });

  it('keeps a blob in chunk rows, reads a range from only the chunks it covers, and is seen by another server', async () => {
    const [one, two] = [await openRecords('blobs_shared'), await openRecords('blobs_shared')];
    try {
      const content = randomBytes(5 * CHUNK_BYTES + 123);
      const stored = await one.blobStore().put(Readable.from([content]));
      const other = two.blobStore();
      expect(other.shared).to.equal(true);
      expect(await other.stat(stored.hash)).to.equal(content.length);
      const start = 3 * CHUNK_BYTES + 10;
      expect((await buffer(other.read(stored.hash, start, start + 100))).equals(content.subarray(start, start + 101))).to.equal(true);
      const pool = (one as unknown as { db: import('pg').Pool }).db;
      const { rows } = await pool.query<{ n: string; biggest: number }>('SELECT count(*) AS n, max(octet_length(bytes)) AS biggest FROM blob_chunks WHERE owner = $1', [stored.hash]);
      expect(Number(rows[0]!.n)).to.equal(6);
      expect(rows[0]!.biggest).to.equal(CHUNK_BYTES);
      // Staging rows are gone once the put finished.
      expect((await pool.query('SELECT count(*)::int AS n FROM blob_staging')).rows[0].n).to.equal(0);
    } finally {
      await one.close();
      await two.close();
    }
  });
});
