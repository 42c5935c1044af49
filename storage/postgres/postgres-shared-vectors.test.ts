import { expect } from 'chai';
import { PostgresRecordStore } from './postgres-record-store.js';
import { clusterOrSkip, freshDatabase } from '../../test/helpers/postgres-test-support.js';
import type { ThrowawayCluster } from './throwaway-cluster.js';

describe('PostgreSQL shared vectors', function () {
  this.timeout(60_000);
  let cluster: ThrowawayCluster;

  before(async function () {
    cluster = await clusterOrSkip(this);
  });

  it('pages vectors in sequence order, keeps the first of a sequence, and moves the frontier one way with its vectors', async () => {
    const url = await freshDatabase(cluster, 'vectors');
    const [one, two] = [new PostgresRecordStore({ connectionString: url }), new PostgresRecordStore({ connectionString: url })];
    await one.open();
    await two.open();
    try {
      const row = (sequence: number, x: number) => ({ sequence, meta: JSON.stringify({ sequence }), vector: new Float32Array([x, 0.5, -0.25]) });
      expect(await one.sharedVectors.progress('ollama:m')).to.equal(null);
      await one.sharedVectors.append('ollama:m', [row(3, 1), row(1, 2), row(7, 3)], { frontier: 8, dims: 3, failed: [5] });
      // Written again by a second leader: the first vector stays, the frontier never moves back, refusals accumulate.
      await two.sharedVectors.append('ollama:m', [row(3, 9), row(9, 4)], { frontier: 6, dims: 4, failed: [2] });
      expect(await two.sharedVectors.progress('ollama:m')).to.deep.equal({ frontier: 8, dims: 3, failed: [2, 5] });
      const first = await two.sharedVectors.page('ollama:m', 0, 2);
      expect(first.map((r) => r.sequence)).to.deep.equal([1, 3]);
      expect(Array.from(first[1]!.vector)).to.deep.equal([1, 0.5, -0.25]);
      expect(first[1]!.meta).to.equal('{"sequence":3}');
      expect((await two.sharedVectors.page('ollama:m', 3, 10)).map((r) => r.sequence)).to.deep.equal([7, 9]);
      expect(await two.sharedVectors.page('ollama:other', 0, 10)).to.deep.equal([]);
      // The newest 1000 refusals are kept.
      await one.sharedVectors.append('ollama:m', [], { frontier: 5000, dims: 3, failed: Array.from({ length: 1200 }, (_, i) => 10 + i) });
      const progress = (await one.sharedVectors.progress('ollama:m'))!;
      expect(progress.failed).to.have.length(1000);
      expect(progress.failed[0]).to.equal(210);
      expect(progress.frontier).to.equal(5000);
    } finally {
      await one.close();
      await two.close();
    }
  });
});
