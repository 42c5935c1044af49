/**
 * The find index's snapshot when a server stops before the index caught up
 * with the log (issue 36): what was indexed is kept, and the next start goes
 * on from there instead of the start of the log.
 */
import { expect } from 'chai';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Value } from 'typebox/value';
import { SYSTEM } from '../../core/access/caller.js';
import type { ConsumerHandle } from '../../core/engine/log-consumer.js';
import { ENGINE_WRITE } from '../../core/engine/ingest.js';
import type { Logger } from '../../core/plugin/logger.js';
import { rec, startTestEngine, type TestEngine } from '../../test/helpers/test-engine.js';
import { SearchOptions } from './config.js';
import { FindService } from './find-service.js';
import { openFindSnapshot } from './find-snapshot.js';

const quiet: Logger = { log: () => undefined, child: () => quiet };

/** The kernel's handle, reduced to the cursor the service reads. */
function handleAt(cursor: { value: number }): ConsumerHandle {
  return { name: 'search.find', get cursor() { return cursor.value; }, status: () => ({}) as never, wake: () => undefined, rewind: (after) => void (cursor.value = after), caughtUp: async () => undefined };
}

describe('FindService snapshot at stop', () => {
  let test: TestEngine;
  let dir: string;
  before(async () => {
    test = await startTestEngine();
    dir = await mkdtemp(join(tmpdir(), 'loom-find-'));
    for (let clock = 0; clock < 40; clock++) await test.engine.ingestor.ingest(ENGINE_WRITE, rec({ clock, body: { text: `note ${clock} about the ${clock % 2 ? 'harbour' : 'glacier'}` } }));
  });
  after(async () => {
    await test.cleanup();
    await rm(dir, { recursive: true, force: true });
  });

  const service = (cursor: { value: number }) => {
    const options = Value.Default(SearchOptions, {}) as SearchOptions;
    const find = new FindService({ dir, reader: test.engine.reader, options: { ...options, findSnapshotMs: 1 }, log: quiet, now: Date.now });
    find.attach(handleAt(cursor));
    return find;
  };

  it('a service stopped half way through its first pass saves the records it indexed; the next one starts after them', async () => {
    const all = await test.engine.reader.changesSince(SYSTEM, 0, 100);
    const cursor = { value: 0 };
    const first = service(cursor);
    first.start();
    expect(await first.startAt.after()).to.equal(0);
    const half = all.slice(0, 25);
    await first.handle(half);
    cursor.value = half[half.length - 1]!.sequence;
    // Still rebuilding: it never caught up with the log since it started.
    expect(first.stats().rebuilding).to.not.equal(null);
    await first.stop();

    const opened = await openFindSnapshot(dir);
    expect(opened?.header.through).to.equal(cursor.value);
    await opened?.close();

    const next = service({ value: 0 });
    next.start();
    expect(await next.startAt.after()).to.equal(cursor.value);
  });
});
