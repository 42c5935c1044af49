/**
 * Crash durability: a child process (crash-writer.ts) appends at full speed
 * and prints every acknowledged record; the parent SIGKILLs it mid-stream,
 * reopens the location and requires every acknowledged record, with the
 * sequence it was acknowledged with. "Resolves only once the record is
 * durable" is exactly this promise.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { rm } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import type { StoredRecord } from '../contract/stored-record.js';
import type { CrashOptions } from './compliance-options.js';
import { actorDid, makePrepared, threadId } from './fixtures.js';
import { DEFAULT_OPENER_EXPORT, loadStoreOpener } from './load-store-opener.js';
import { makeTemporaryLocation } from './temporary-store-factory.js';
import { readAll, requireCapability, type SuiteContext } from './traits.js';

const WRITER = fileURLToPath(new URL('./crash-writer.js', import.meta.url));
const WAIT_FOR_ACKS_MS = 30_000;

interface WriterRun {
  /** id → sequence, for every line the child completed before it died. */
  readonly acknowledged: Map<string, number>;
  readonly stderr: string;
}

/** Runs the writer until `count` acknowledgements have arrived, then SIGKILLs it. */
function runAndKill(crash: CrashOptions, location: string, count: number): Promise<WriterRun> {
  const child: ChildProcess = fork(WRITER, [crash.driverModule, crash.exportName ?? DEFAULT_OPENER_EXPORT, location], {
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    execArgv: [],
  });
  const acknowledged = new Map<string, number>();
  let partial = '';
  let stderr = '';
  let killed = false;
  return new Promise<WriterRun>((resolve, reject) => {
    const timer = setTimeout(() => {
      killed = true;
      child.kill('SIGKILL');
      reject(new Error(`the writer acknowledged only ${acknowledged.size} of ${count} appends in ${WAIT_FOR_ACKS_MS} ms\n${stderr}`));
    }, WAIT_FOR_ACKS_MS);
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.stdout!.on('data', (chunk: Buffer) => {
      const lines = (partial + chunk.toString()).split('\n');
      // Only complete lines count: a torn last line was not fully acknowledged.
      partial = lines.pop()!;
      for (const line of lines) {
        const [sequence, id] = line.split(' ');
        acknowledged.set(id!, Number(sequence));
      }
      if (!killed && acknowledged.size >= count) {
        killed = true;
        child.kill('SIGKILL');
      }
    });
    child.on('error', reject);
    // 'close' waits for stdout to drain, so every line written before death is in.
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (signal !== 'SIGKILL') reject(new Error(`the writer exited on its own (code ${code}, signal ${signal})\n${stderr}`));
      else resolve({ acknowledged, stderr });
    });
  });
}

export function crashSuite(context: SuiteContext): void {
  describe('crash durability', () => {
    requireCapability(context, (c) => c.persistent);
    before(function () {
      if (!context.options.crash) this.skip();
    });

    it('keeps every acknowledged append after the writing process is SIGKILLed', async function () {
      this.timeout(WAIT_FOR_ACKS_MS + 30_000);
      const crash = context.options.crash!;
      const location = await makeTemporaryLocation('loom-crash-');
      try {
        const run = await runAndKill(crash, location, crash.acknowledgedBeforeKill ?? 300);
        const store = await (await loadStoreOpener(crash.driverModule, crash.exportName))(location);
        try {
          const missing: string[] = [];
          for (const [id, sequence] of run.acknowledged) {
            const stored = await store.get(id);
            if (stored?.sequence !== sequence) missing.push(`${id} (acknowledged as #${sequence}, found ${stored ? `#${stored.sequence}` : 'nothing'})`);
          }
          const lost = `${missing.length} of ${run.acknowledged.size} acknowledged appends lost, e.g.\n  ${missing.slice(0, 5).join('\n  ')}`;
          expect(missing.length, lost).to.equal(0);

          const all: StoredRecord[] = await readAll(store);
          all.forEach((s, i) => i > 0 && expect(s.sequence).to.be.greaterThan(all[i - 1]!.sequence));
          const watermark = await store.watermark();
          expect(watermark).to.equal(all[all.length - 1]!.sequence);
          // What opening reports replaying accounts exactly for the records the driver lacked.
          if (store.recovery) expect(store.recovery.driverWatermark + store.recovery.replayedRecords).to.equal(watermark);
          const after = await store.append(makePrepared({ thread: threadId('after-crash'), actor: actorDid('survivor'), clock: 0 }));
          expect(after.status).to.equal('inserted');
          expect((after as { stored: StoredRecord }).stored.sequence).to.be.greaterThan(watermark);
        } finally {
          await store.close();
        }
      } finally {
        await rm(location, { recursive: true, force: true, maxRetries: 3 });
      }
    });
  });
}
