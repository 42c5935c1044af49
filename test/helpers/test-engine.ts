/** Test helper: a LoomEngine over a real SQLite store in a temporary directory. */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteRecordStore } from '../../storage/sqlite/index.js';
import { LoomEngine } from '../../core/engine/loom-engine.js';

export interface TestEngine {
  engine: LoomEngine;
  dir: string;
  /** Stops this engine and starts a new one on the same files. */
  restart(): Promise<LoomEngine>;
  cleanup(): Promise<void>;
}

export async function startTestEngine(): Promise<TestEngine> {
  const dir = await mkdtemp(join(tmpdir(), 'loom-engine-'));
  const make = () => new LoomEngine({ store: new SqliteRecordStore({ path: join(dir, 'loom.sqlite'), durability: 'normal' }) });
  const handle: TestEngine = {
    engine: make(),
    dir,
    async restart() {
      await handle.engine.stop();
      handle.engine = make();
      await handle.engine.start();
      return handle.engine;
    },
    async cleanup() {
      await handle.engine.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
  await handle.engine.start();
  return handle;
}

export const TH_A = 'th_' + 'a'.repeat(64);
export const TH_B = 'th_' + 'b'.repeat(64);

export function rec(fields: { thread?: string; actor?: string; act?: string; body?: Record<string, unknown>; clock: number; parents?: string[]; data_type?: string }) {
  return {
    thread: fields.thread ?? TH_A,
    actor: fields.actor ?? 'did:sync:user:alice',
    act: fields.act ?? 'KNOW',
    body: fields.body ?? {},
    clock: fields.clock,
    data_type: fields.data_type ?? 'SCALAR',
    ...(fields.parents ? { parents: fields.parents } : {}),
  };
}
