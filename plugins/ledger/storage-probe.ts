/**
 * Whether this server can still read its log and write its disk, for the
 * health routes: a read of the store's watermark and, with a data directory,
 * a small file written and fsynced there (a disk that fails or is full, or a
 * read-only remount, fails it). Each check is bounded by a timeout and the
 * answer is kept for two seconds, so probes every second cost nothing.
 */
import { open, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { EngineStatus } from '../../core/engine/engine-status.js';

export interface ProbeResult {
  readonly ok: boolean;
  readonly checked_at: string;
  readonly read_ms: number | null;
  readonly write_ms: number | null;
  readonly error: string | null;
}

const CACHE_MS = 2_000;
const TIMEOUT_MS = 3_000;

function withTimeout<T>(work: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout;
  return Promise.race([work, new Promise<T>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what} took more than ${TIMEOUT_MS} ms`)), TIMEOUT_MS)))]).finally(() => clearTimeout(timer));
}

export class StorageProbe {
  private last: { at: number; result: ProbeResult } | null = null;
  private running: Promise<ProbeResult> | null = null;

  constructor(
    private readonly engine: Pick<EngineStatus, 'readHead' | 'persistent'>,
    private readonly dataDir: string | null,
  ) {}

  check(): Promise<ProbeResult> {
    if (this.last && Date.now() - this.last.at < CACHE_MS) return Promise.resolve(this.last.result);
    this.running ??= this.probe().finally(() => (this.running = null));
    return this.running;
  }

  private async probe(): Promise<ProbeResult> {
    let readMs: number | null = null;
    let writeMs: number | null = null;
    let error: string | null = null;
    try {
      const started = performance.now();
      await withTimeout(this.engine.readHead(), 'reading the log');
      readMs = Math.round((performance.now() - started) * 100) / 100;
      if (this.dataDir !== null && this.engine.persistent) {
        const begun = performance.now();
        await withTimeout(writeProbe(this.dataDir), 'writing the data directory');
        writeMs = Math.round((performance.now() - begun) * 100) / 100;
      }
    } catch (failure) {
      error = (failure as Error).message;
    }
    const result: ProbeResult = { ok: error === null, checked_at: new Date().toISOString(), read_ms: readMs, write_ms: writeMs, error };
    this.last = { at: Date.now(), result };
    return result;
  }
}

async function writeProbe(dir: string): Promise<void> {
  const file = join(dir, '.health-probe');
  const handle = await open(file, 'w');
  try {
    await handle.write(`${Date.now()}\n`);
    await handle.sync();
  } finally {
    await handle.close();
  }
  await rm(file, { force: true });
}
