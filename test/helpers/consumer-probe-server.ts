/**
 * A real server process with the probe consumer (test/helpers/consumer-probe.ts),
 * for the kill -9 and leadership tests: configured through the environment
 * (PROBE_STORAGE, PROBE_DATA_DIR, PROBE_DATABASE_URL, PROBE_FILE,
 * PROBE_LEADER_ONLY, PROBE_BATCH, PROBE_BATCH_MS); prints
 * "listening on <url>" on stderr like `loom serve`.
 */
import 'reflect-metadata';
import { probePlugin } from './consumer-probe.js';
import { startServer } from './start-server.js';

const env = process.env;
const { plugin } = probePlugin({
  file: env['PROBE_FILE']!,
  leaderOnly: env['PROBE_LEADER_ONLY'] === '1',
  batchSize: Number(env['PROBE_BATCH'] ?? 10),
  batchMs: Number(env['PROBE_BATCH_MS'] ?? 0),
});
const server = await startServer({
  storage: (env['PROBE_STORAGE'] ?? 'sqlite') as 'sqlite',
  dataDir: env['PROBE_DATA_DIR']!,
  keepDataDir: true,
  ...(env['PROBE_DATABASE_URL'] ? { databaseUrl: env['PROBE_DATABASE_URL'] } : {}),
  plugins: [{ plugin }],
});
process.stderr.write(`listening on ${server.url}\n`);
const stop = () => void server.stop().then(() => process.exit(0));
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
