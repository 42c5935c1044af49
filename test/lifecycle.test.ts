import { expect } from 'chai';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { definePlugin } from '../core/plugin/plugin.js';
import { silentLogger } from '../core/plugin/logger.js';
import { createReferenceLoom as createLoom } from '../core/cli/reference-loom.js';
import { SqliteRecordStore } from '../storage/sqlite/index.js';

const TH = 'th_' + 'e'.repeat(64);

describe('server lifecycle', () => {
  let dir: string;
  beforeEach(async () => (dir = await mkdtemp(join(tmpdir(), 'loom-lifecycle-'))));
  afterEach(async () => rm(dir, { recursive: true, force: true }));

  it('stop() lets in-flight ingests finish and flushes them to storage', async () => {
    const loom = await createLoom({ dataDir: dir, port: 0, logger: silentLogger, durability: 'normal', auth: { required: false } });
    const url = await loom.start();
    const sends = Array.from({ length: 200 }, (_, clock) =>
      fetch(`${url}/v1/records`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ thread: TH, actor: 'did:sync:agent:load', act: 'KNOW', body: { clock }, clock, data_type: 'SCALAR' }),
      }).then(
        async (response) => ({ status: response.status, id: ((await response.json()) as { id?: string }).id }),
        () => ({ status: 0, id: undefined }),
      ),
    );
    // Stop as soon as the first answer arrives, while the rest are in flight.
    await Promise.race(sends);
    const stopped = loom.stop();
    const answers = await Promise.all(sends);
    await stopped;
    const acknowledged = answers.filter((a) => a.status === 201).map((a) => a.id!);
    expect(acknowledged.length).to.be.greaterThan(0);
    // Every request either completed or was never accepted: no 5xx, no half answers.
    for (const answer of answers) expect([0, 201, 503]).to.include(answer.status);

    const store = new SqliteRecordStore({ path: join(dir, 'loom.sqlite') });
    await store.open();
    try {
      for (const id of acknowledged) expect(await store.get(id), id).to.not.equal(undefined);
    } finally {
      await store.close();
    }
  });

  it('starts plugin loops after the engine and stops them, then stop hooks, before storage closes', async () => {
    const events: string[] = [];
    const looping = definePlugin({
      name: 'looping',
      version: '1.0.0',
      dependencies: ['ledger'],
      register(scope) {
        scope.loop({
          name: 'ticker',
          start: () => void events.push('loop start'),
          stop: async () => void events.push('loop stop'),
        });
        scope.onStart(() => void events.push('on start'));
        scope.onStop(() => void events.push('on stop'));
      },
    });
    const loom = await createLoom({ dataDir: dir, port: 0, logger: silentLogger, plugins: [looping] });
    await loom.start();
    expect(loom.engine.store.status).to.equal('open');
    await loom.stop();
    // Plugins start before the loops that may use them and stop after them.
    expect(events).to.deep.equal(['on start', 'loop start', 'loop stop', 'on stop']);
    expect(loom.engine.store.status).to.equal('closed');
    // stop() is idempotent.
    await loom.stop();
  });
});
