import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { refusalOf } from '../../core/errors/refusal-of.js';
import { ProcessLock } from './process-lock.js';

/** Another process holding the lock on `databasePath`; resolves once it holds it. */
function lockingChild(databasePath: string): Promise<ChildProcess> {
  const moduleUrl = new URL('./process-lock.js', import.meta.url).href;
  const script =
    'const { ProcessLock } = await import(process.argv[1]);' +
    'await ProcessLock.acquire(process.argv[2]);' +
    "process.stdout.write('locked\\n');" +
    'setInterval(() => {}, 60000);';
  const child = spawn(process.execPath, ['--input-type=module', '-e', script, moduleUrl, databasePath], { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('locked')) resolve(child);
    });
    child.once('exit', (code) => reject(new Error(`locking child exited with ${code} before it held the lock`)));
  });
}

function exited(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once('exit', () => resolve());
  });
}

describe('SQLite process lock', () => {
  let dir: string;
  let database: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'loom-lock-'));
    database = join(dir, 'loom.sqlite');
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('refuses a second holder in this process, even through a symlinked path, until the first releases', async () => {
    const lock = await ProcessLock.acquire(database);
    const error = await refusalOf(ProcessLock.acquire(database));
    expect(error.code).to.equal('SERVICE_UNAVAILABLE');
    expect(error.message).to.contain('one Loom process per data directory').and.to.contain(`${database}.lock`);
    const linked = join(dir, 'linked');
    await symlink(dir, linked);
    expect((await refusalOf(ProcessLock.acquire(join(linked, 'loom.sqlite')))).code).to.equal('SERVICE_UNAVAILABLE');
    await lock.release();
    await lock.release();
    await (await ProcessLock.acquire(database)).release();
  });

  it('refuses while another process holds it, and is free as soon as that process is killed', async () => {
    const child = await lockingChild(database);
    try {
      const error = await refusalOf(ProcessLock.acquire(database));
      expect(error.code).to.equal('SERVICE_UNAVAILABLE');
    } finally {
      // SIGKILL, as in a crash: no clean-up runs, the operating system drops the lock.
      child.kill('SIGKILL');
      await exited(child);
    }
    await (await ProcessLock.acquire(database)).release();
  });
});
