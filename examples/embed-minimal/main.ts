/**
 * Loom embedded in a few lines: the library root with a driver and the
 * plugins this program chooses (SQLite under a temporary directory, the
 * ledger plugin, no auth), one record ingested in-process, one read over
 * HTTP. Run: `node dist/examples/embed-minimal/main.js`.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLoom, ENGINE_WRITE, taskThreadId, newThreadNonce } from '../../core/index.js';
import { SqliteRecordStore } from '../../storage/sqlite/index.js';
import { ledgerPlugin } from '../../plugins/ledger/index.js';

export async function main(): Promise<void> {
  const dataDir = await mkdtemp(join(tmpdir(), 'loom-embed-'));
  const loom = await createLoom({
    store: new SqliteRecordStore({ path: join(dataDir, 'loom.sqlite') }),
    plugins: [ledgerPlugin],
    dataDir,
    port: 0,
    logger: { log() {}, child() { return this; } },
  });
  const url = await loom.start();
  try {
    const thread = taskThreadId('EMBED-1', newThreadNonce());
    const { stored } = await loom.engine.ingestor.ingest(ENGINE_WRITE, {
      thread,
      actor: 'did:sync:user:alice',
      act: 'INTEND',
      body: { goal: 'try Loom embedded', task: true },
      clock: 0,
      data_type: 'SCALAR',
    });
    const state = (await (await fetch(`${url}/v1/threads/${thread}/state`)).json()) as { value: { status: string } };
    console.log(`stored ${stored.record.id} at sequence ${stored.sequence}; thread is ${state.value.status}`);
  } finally {
    await loom.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
