/**
 * A real Loom over loopback HTTP for cross-cutting tests: createLoom on
 * 127.0.0.1, port 0 (the OS picks a free port), SQLite in a fresh temporary
 * directory and a silent logger. Any LoomOptions may be overridden.
 * `stop()` stops the server and removes the directory.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { silentLogger } from '../../core/plugin/logger.js';
import { createLoom, type Loom, type LoomOptions } from '../../core/server/compose.js';

export interface StartedServer {
  /** Base URL, e.g. `http://127.0.0.1:54321`. */
  readonly url: string;
  readonly loom: Loom;
  /** Where the store keeps its files; removed by `stop()`. */
  readonly dataDir: string;
  stop(): Promise<void>;
}

export async function startServer(options: LoomOptions = {}): Promise<StartedServer> {
  const dataDir = await mkdtemp(join(tmpdir(), 'loom-test-'));
  let loom: Loom | undefined;
  try {
    loom = await createLoom({ host: '127.0.0.1', port: 0, storage: 'sqlite', dataDir, logger: silentLogger, ...options });
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
          await rm(dataDir, { recursive: true, force: true });
        }
      },
    };
  } catch (error) {
    await loom?.stop().catch(() => {});
    await rm(dataDir, { recursive: true, force: true });
    throw error;
  }
}
