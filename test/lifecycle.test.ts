import { expect } from 'chai';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeFile } from 'node:fs/promises';
import { definePlugin } from '../core/plugin/plugin.js';
import { jsonLogger, silentLogger } from '../core/plugin/logger.js';
import { computeRecordId } from '../core/records/record-id.js';
import { makeRecord, type RecordFields } from '../core/records/record.js';
import { encodeFrame } from '../storage/contract/journal/journal-frame.js';
import { createReferenceLoom as createLoom } from '../server/reference-loom.js';
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

  it('logs what opening replayed: nothing after a clean stop, the journal records and a torn frame after a crash', async () => {
    const lines: Array<Record<string, unknown>> = [];
    const logger = jsonLogger({ write: (line) => lines.push(JSON.parse(line) as Record<string, unknown>) });
    const first = await createLoom({ dataDir: dir, port: 0, logger, auth: { required: false } });
    await first.initialize();
    await first.stop();
    const store = new SqliteRecordStore({ path: join(dir, 'loom.sqlite') });
    await store.open();
    const watermark = await store.watermark();
    await store.close();
    const clean = lines.find((line) => line.msg === 'store opened: clean stop, nothing to replay');
    expect(clean, JSON.stringify(lines)).to.include({ level: 'info', replayedRecords: 0, tornTail: null });
    lines.length = 0;

    // What a crash leaves: a journal frame acknowledged but not yet applied to SQLite, and half of the next one.
    const accepted = [1, 2, 3].map((n) => {
      const fields: RecordFields = { parents: [], thread: TH, actor: 'did:sync:agent:crash', act: 'KNOW', body: { n }, clock: n, data_type: 'SCALAR', judged_by: null };
      return { stored: { sequence: watermark + n, createdAt: Date.now(), record: makeRecord(computeRecordId(fields), fields) }, namespace: 'default' };
    });
    const torn = encodeFrame([{ ...accepted[0]!, stored: { ...accepted[0]!.stored, sequence: watermark + 4 } }]);
    const segment = join(dir, 'loom.sqlite.journal', `segment-${String(watermark + 1).padStart(16, '0')}.log`);
    await writeFile(segment, Buffer.concat([encodeFrame(accepted), torn.subarray(0, 10)]));

    const second = await createLoom({ dataDir: dir, port: 0, logger, auth: { required: false } });
    await second.initialize();
    try {
      const recovery = lines.find((line) => line.msg === 'crash recovery: replayed the ingest journal');
      expect(recovery, JSON.stringify(lines)).to.include({ level: 'warn', replayedRecords: 3, replayedFrom: watermark + 1, replayedTo: watermark + 3, driverWatermark: watermark });
      expect(recovery!.tornTail).to.include({ segment, atByte: encodeFrame(accepted).length, droppedBytes: 10 });
      for (const { stored } of accepted) {
        const response = await second.server.inject({ method: 'GET', url: `/v1/records/${stored.record.id}` });
        expect(response.statusCode).to.equal(200);
      }
    } finally {
      await second.stop();
    }
  });
});
