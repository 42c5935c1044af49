// The README's embedding example: the library root with the driver and plugins this program
// chooses. LOOM_PORT picks the port (default 9200, beside a `loom serve` on 9100; 0 for any free one).
import { createLoom } from 'loom';
import { SqliteRecordStore } from 'loom/storage/sqlite';   // or loom/storage/level, or your own RecordStore
import { ledgerPlugin } from 'loom/plugins/ledger';
import { authPlugin } from 'loom/plugins/auth';
import { wordCountPlugin } from '../custom-plugin/word-count-plugin.js';

const dataDir = process.env.LOOM_DATA_DIR ?? './data-embedded';
const loom = await createLoom({
  store: new SqliteRecordStore({ path: `${dataDir}/loom.sqlite` }),
  dataDir,
  port: Number(process.env.LOOM_PORT ?? 9200),
  plugins: [ledgerPlugin, { plugin: authPlugin, options: { required: false } }, { plugin: wordCountPlugin, options: { minLength: 3 } }],
});
const url = await loom.start();  // opens storage, rebuilds folds, plugin start hooks, loops, listens
console.log(`listening on ${url}`);
const health = await fetch(`${url}/health`);
console.log(`health ${health.status}`);
await loom.stop();               // in-flight requests finish, loops stop, plugins stop, storage flushes
