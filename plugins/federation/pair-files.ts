/**
 * What a sync pair keeps outside the log, in the plugin's data directory:
 * - `pair-secrets.json` (mode 0600): each pair's peer bearer. Never a record,
 *   never echoed by a route, never logged.
 * - `pair-cursors.json`: each pair's feed cursor, saved at most every
 *   `flushMs` and at stop. A cursor lost to a crash only means re-reading a
 *   few pages, which deduplicate.
 * Both are written atomically (temporary file, fsync, rename).
 */
import { chmod, mkdir, open, readFile, rename } from 'node:fs/promises';
import { join } from 'node:path';
import type { PairKeeping } from './pair-keeping.js';

async function writeAtomically(path: string, text: string, mode: number): Promise<void> {
  const temporary = `${path}.tmp`;
  const handle = await open(temporary, 'w', mode);
  try {
    await handle.writeFile(text);
    await handle.sync();
  } finally {
    await handle.close();
  }
  await chmod(temporary, mode);
  await rename(temporary, path);
}

async function readJson(path: string): Promise<Record<string, string>> {
  try {
    const value = JSON.parse(await readFile(path, 'utf8')) as unknown;
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return {};
    return Object.fromEntries(Object.entries(value).filter((e): e is [string, string] => typeof e[1] === 'string'));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw new Error(`${path} is unreadable; fix or remove it (${(error as Error).name})`);
  }
}

export class PairFiles implements PairKeeping {
  private secrets: Record<string, string> = {};
  private cursors: Record<string, string> = {};
  private dirty = false;
  private timer: NodeJS.Timeout | null = null;
  private writing: Promise<void> = Promise.resolve();

  /** `dir` null: in memory only (a store that is not persistent). */
  constructor(private readonly dir: string | null, private readonly flushMs = 200) {}

  async load(): Promise<void> {
    if (!this.dir) return;
    await mkdir(this.dir, { recursive: true, mode: 0o700 });
    this.secrets = await readJson(join(this.dir, 'pair-secrets.json'));
    this.cursors = await readJson(join(this.dir, 'pair-cursors.json'));
  }

  /** Everything is in memory since `load`. */
  async refresh(): Promise<void> {}

  secret(pairId: string): string | undefined {
    return this.secrets[pairId];
  }

  async setSecret(pairId: string, token: string | null): Promise<void> {
    if (token === null) delete this.secrets[pairId];
    else this.secrets[pairId] = token;
    if (this.dir) await writeAtomically(join(this.dir, 'pair-secrets.json'), JSON.stringify(this.secrets), 0o600);
  }

  cursor(pairId: string): string | undefined {
    return this.cursors[pairId];
  }

  setCursor(pairId: string, cursor: string | null): void {
    if (cursor === null) delete this.cursors[pairId];
    else this.cursors[pairId] = cursor;
    this.dirty = true;
    if (this.dir && !this.timer) {
      this.timer = setTimeout(() => {
        this.timer = null;
        void this.flush();
      }, this.flushMs);
      this.timer.unref();
    }
  }

  /** Writes the cursors now (at stop, and after the debounce). */
  flush(): Promise<void> {
    if (!this.dir || !this.dirty) return this.writing;
    this.dirty = false;
    const text = JSON.stringify(this.cursors);
    const path = join(this.dir, 'pair-cursors.json');
    this.writing = this.writing.then(() => writeAtomically(path, text, 0o600)).catch(() => {
      this.dirty = true;
    });
    return this.writing;
  }

  async close(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.flush();
  }
}
