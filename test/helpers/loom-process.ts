/**
 * A real `loom serve` in a child process on 127.0.0.1 (port 0), for tests
 * that need separate processes (federation between two instances, crashes).
 * The URL is read from the startup line; stderr is kept for failure messages.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** How long a `stop()` waits for a clean exit before it kills the process. */
const STOP_DEADLINE_MS = 30_000;

const LOOM = resolve(fileURLToPath(new URL('.', import.meta.url)), '../../bin/loom.js');

export interface LoomProcess {
  readonly url: string;
  readonly dataDir: string;
  readonly child: ChildProcess;
  /** Everything the process wrote to stderr so far. */
  stderr(): string;
  /** SIGTERM and wait (clean shutdown). */
  stop(): Promise<void>;
  /** SIGKILL and wait (a crash). */
  kill(): Promise<void>;
  /** Removes the data directory (after stop or kill). */
  remove(): Promise<void>;
}

export interface LoomProcessOptions {
  readonly storage?: 'sqlite' | 'level' | 'postgres';
  /** Reuse a data directory (a restart). */
  readonly dataDir?: string;
  readonly args?: readonly string[];
  readonly env?: Readonly<Record<string, string>>;
  /** Options for node itself, before the script (e.g. `--expose-gc`). */
  readonly nodeArgs?: readonly string[];
}

export async function startLoomProcess(options: LoomProcessOptions = {}): Promise<LoomProcess> {
  const dataDir = options.dataDir ?? (await mkdtemp(join(tmpdir(), 'loom-proc-')));
  const child = spawn(
    process.execPath,
    [...(options.nodeArgs ?? []), LOOM, 'serve', '--port', '0', '--data-dir', dataDir, '--storage', options.storage ?? 'sqlite', '--log-level', 'warn', ...(options.args ?? [])],
    { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...options.env } },
  );
  let err = '';
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
    err = (err + chunk).slice(-20_000);
  });
  child.stdout!.resume();
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  // The startup line for people is on stderr (stdout is JSON lines).
  const url = await new Promise<string>((done, fail) => {
    let out = '';
    const onData = (chunk: string) => {
      out += chunk;
      const match = /listening on (http:\/\/[^\s]+)/.exec(out);
      if (match) {
        child.stderr!.off('data', onData);
        done(match[1]!);
      }
    };
    child.stderr!.on('data', onData);
    child.once('exit', (code) => fail(new Error(`loom serve exited with ${code} before listening:\n${err}`)));
  });
  const end = async (signal: NodeJS.Signals) => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    if (signal === 'SIGKILL') return exited;
    // A clean stop has a deadline: a server that does not exit in time is killed (so no test run waits on it
    // forever) and the stop fails, since not stopping is a bug of its own.
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<'late'>((done) => (timer = setTimeout(() => done('late'), STOP_DEADLINE_MS)));
    const outcome = await Promise.race([exited.then(() => 'exited' as const), late]);
    clearTimeout(timer);
    if (outcome === 'late') {
      child.kill('SIGKILL');
      await exited;
      throw new Error(`loom serve did not exit within ${STOP_DEADLINE_MS / 1000} s of ${signal}; killed. Its stderr:\n${err}`);
    }
  };
  return {
    url,
    dataDir,
    child,
    stderr: () => err,
    stop: () => end('SIGTERM'),
    kill: () => end('SIGKILL'),
    remove: () => rm(dataDir, { recursive: true, force: true }),
  };
}
