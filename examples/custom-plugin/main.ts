/**
 * Runs Loom with the word-count plugin: `node dist/examples/custom-plugin/main.js`.
 * Ingests two records over HTTP and reads the plugin's route and fold.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLoom, silentLogger } from '../../core/index.js';
import { SqliteRecordStore } from '../../storage/sqlite/index.js';
import { ledgerPlugin } from '../../plugins/ledger/index.js';
import { wordCountPlugin } from './word-count-plugin.js';

export async function main(): Promise<void> {
  const dataDir = await mkdtemp(join(tmpdir(), 'loom-word-count-'));
  const loom = await createLoom({
    store: new SqliteRecordStore({ path: join(dataDir, 'loom.sqlite') }),
    dataDir,
    port: 0,
    logger: silentLogger,
    plugins: [ledgerPlugin, { plugin: wordCountPlugin, options: { minLength: 2 } }],
  });
  const url = await loom.start();
  try {
    const thread = 'th_' + '1'.repeat(64);
    for (const [clock, text] of ['plugins add routes', 'and folds too'].entries()) {
      await fetch(`${url}/v1/records`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ thread, actor: 'did:sync:user:alice', act: 'KNOW', body: { observation: text }, clock, data_type: 'SCALAR' }),
      });
    }
    console.log(await (await fetch(`${url}/v1/word-count/${thread}`)).json());
  } finally {
    await loom.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
