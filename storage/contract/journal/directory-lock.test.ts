import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { DirectoryLock, LOCK_FILE_NAME } from './directory-lock.js';
import { refusalOf as refusal } from '../../../core/errors/refusal-of.js';

/** A child process that just waits, so its pid is alive and not ours. */
function sleeper(): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });
  return new Promise((resolve, reject) => {
    child.once('spawn', () => resolve(child));
    child.once('error', reject);
  });
}

function exited(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once('exit', () => resolve());
  });
}

describe('journal directory lock', () => {
  let dir: string;
  let lockPath: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'loom-lock-'));
    lockPath = join(dir, LOCK_FILE_NAME);
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('writes this process id into LOCK and removes the file on release', async () => {
    const lock = await DirectoryLock.acquire(dir);
    expect(await readFile(lockPath, 'utf8')).to.equal(`${process.pid}\n`);
    await lock.release();
    expect(existsSync(lockPath)).to.equal(false);
    await lock.release();
    await (await DirectoryLock.acquire(dir)).release();
  });

  it('refuses a second holder in this process until the first releases', async () => {
    const lock = await DirectoryLock.acquire(dir);
    const error = await refusal(DirectoryLock.acquire(dir));
    expect(error.code).to.equal('SERVICE_UNAVAILABLE');
    expect(error.message).to.contain('another store in this process').and.to.contain(lockPath);
    await lock.release();
    await (await DirectoryLock.acquire(dir)).release();
  });

  it('refuses while another live process holds it, naming that process', async () => {
    const child = await sleeper();
    try {
      await writeFile(lockPath, `${child.pid}\n`);
      const error = await refusal(DirectoryLock.acquire(dir));
      expect(error.code).to.equal('SERVICE_UNAVAILABLE');
      expect(error.message).to.contain(`process ${child.pid}`).and.to.contain('one Loom process per data directory');
      expect(await readFile(lockPath, 'utf8')).to.equal(`${child.pid}\n`);
    } finally {
      child.kill('SIGKILL');
      await exited(child);
    }
    // Once it is gone (killed, as in a crash), its lock is stale and taken over.
    const lock = await DirectoryLock.acquire(dir);
    expect(await readFile(lockPath, 'utf8')).to.equal(`${process.pid}\n`);
    await lock.release();
  });

  it('takes over a lock left with this process id by an earlier process (a container restart reuses pids)', async () => {
    await writeFile(lockPath, `${process.pid}\n`);
    const lock = await DirectoryLock.acquire(dir);
    await lock.release();
    expect(existsSync(lockPath)).to.equal(false);
  });

  for (const [what, content] of [
    ['empty', ''],
    ['not a pid', 'hello\n'],
    ['a negative pid', '-1\n'],
  ] as const) {
    it(`takes over a lock file that is ${what}`, async () => {
      await writeFile(lockPath, content);
      const lock = await DirectoryLock.acquire(dir);
      expect(await readFile(lockPath, 'utf8')).to.equal(`${process.pid}\n`);
      await lock.release();
    });
  }
});
