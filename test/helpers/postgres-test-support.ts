/**
 * Starting PostgreSQL for a test file: the shared throwaway cluster, or, where
 * none can be started, a loud skip (a failure under CI, which must run them).
 */
import { postgresUnavailable, sharedTestCluster, type ThrowawayCluster } from '../../storage/postgres/throwaway-cluster.js';

/** For a describe's `before`: the cluster, or skips the describe (fails under CI). */
export async function clusterOrSkip(context: Mocha.Context): Promise<ThrowawayCluster> {
  const problem = postgresUnavailable();
  if (problem) {
    if (process.env['CI']) throw new Error(`PostgreSQL tests cannot run: ${problem}`);
    process.stderr.write(`\n  !!! SKIPPING PostgreSQL tests: ${problem}\n\n`);
    context.skip();
  }
  return sharedTestCluster();
}

let databaseCount = 0;

/** A fresh database on the shared cluster. */
export async function freshDatabase(cluster: ThrowawayCluster, prefix = 'loom'): Promise<string> {
  return cluster.createDatabase(`${prefix}_${process.pid}_${++databaseCount}`);
}
