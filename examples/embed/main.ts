// The README's embedding example: the library root with the driver and plugins this program
// chooses. LOOM_PORT picks the port (default 9300, clear of the README's servers on 9100-9202; 0 for
// any free one); LOOM_DATA_DIR keeps the data (default: a temporary directory, removed at the end).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLoom } from '@loom-ledger/server';
import { SqliteRecordStore } from '@loom-ledger/server/storage/sqlite';   // or @loom-ledger/server/storage/level, or your own RecordStore
import { ledgerPlugin } from '@loom-ledger/server/plugins/ledger';
import { authPlugin } from '@loom-ledger/server/plugins/auth';
import { wordCountPlugin } from '../custom-plugin/word-count-plugin.js';

const dataDir = process.env.LOOM_DATA_DIR ?? (await mkdtemp(join(tmpdir(), 'loom-embedded-')));
const loom = await createLoom({
  store: new SqliteRecordStore({ path: `${dataDir}/loom.sqlite` }),
  dataDir,
  port: Number(process.env.LOOM_PORT ?? 9300),
  plugins: [ledgerPlugin, { plugin: authPlugin, options: { required: false } }, { plugin: wordCountPlugin, options: { minLength: 3 } }],
});
const url = await loom.start();  // opens storage, rebuilds folds, plugin start hooks, loops, listens
console.log(`listening on ${url}`);
const health = await fetch(`${url}/health`);
console.log(`health ${health.status}`);
await loom.stop();               // in-flight requests finish, loops stop, plugins stop, storage flushes
if (!process.env.LOOM_DATA_DIR) await rm(dataDir, { recursive: true, force: true });
