/**
 * A real Loom over loopback HTTP for cross-cutting tests: the reference
 * composition (ledger, openapi, auth) on 127.0.0.1, port 0 (the OS picks a
 * free port), SQLite in a fresh temporary directory and a silent logger.
 * Auth is loaded but not required unless a test asks (`auth: {required: true}`),
 * so tests of other surfaces run as the local caller. Heartbeats are off unless
 * a test asks (`fleet: {heartbeat: true}`), so the log holds only the test's own
 * records. Any option may be
 * overridden. `stop()` stops the server and removes the directory.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { silentLogger } from '../../core/plugin/logger.js';
import type { Loom } from '../../core/server/create-loom.js';
import { createReferenceLoom, type ReferenceLoomOptions } from '../../server/reference-loom.js';

export interface StartedServer {
  /** Base URL, e.g. `http://127.0.0.1:54321`. */
  readonly url: string;
  readonly loom: Loom;
  /** Where the store keeps its files; removed by `stop()`. */
  readonly dataDir: string;
  stop(): Promise<void>;
}

export async function startServer(options: ReferenceLoomOptions & { keepDataDir?: boolean } = {}): Promise<StartedServer> {
  const { keepDataDir, ...rest } = options;
  const dataDir = rest.dataDir ?? (await mkdtemp(join(tmpdir(), 'loom-test-')));
  let loom: Loom | undefined;
  try {
    loom = await createReferenceLoom({ host: '127.0.0.1', port: 0, storage: 'sqlite', logger: silentLogger, ...rest, dataDir, auth: { required: false, ...rest.auth }, fleet: { heartbeat: false, ...rest.fleet } });
    const url = await loom.start();
    const started = loom;
    return {
      url,
      loom: started,
      dataDir,
      async stop() {
        try {
          await started.stop();
        } finally {
          if (!keepDataDir) await rm(dataDir, { recursive: true, force: true });
        }
      },
    };
  } catch (error) {
    await loom?.stop().catch(() => {});
    if (!keepDataDir) await rm(dataDir, { recursive: true, force: true });
    throw error;
  }
}
