/**
 * A throwaway PostgreSQL cluster for tests and benchmarks: `initdb` in a
 * temporary directory, a server on 127.0.0.1 at a free port (and its Unix
 * socket in that directory), trust authentication, stopped and deleted by
 * `stop()` or when the process exits. Uses the server binaries of Debian's
 * `postgresql` package (/usr/lib/postgresql/<version>/bin); as root, they run
 * as the `postgres` user, since PostgreSQL refuses to run as root.
 */
import { execFile, execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { chown, mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';

const run = promisify(execFile);

/** The newest installed server's bin directory, or null. */
export function postgresBinDir(): string | null {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return null;
  const versions = readdirSync(root)
    .filter((v) => existsSync(join(root, v, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a));
  return versions.length > 0 ? join(root, versions[0]!, 'bin') : null;
}

/** Why no cluster can be started here, or null when one can. */
export function postgresUnavailable(): string | null {
  if (!postgresBinDir()) return 'PostgreSQL server binaries not found under /usr/lib/postgresql (apt-get install postgresql)';
  if (process.getuid?.() === 0 && !systemUser('postgres')) return 'running as root and there is no postgres user to run the server as';
  return null;
}

function systemUser(name: string): { uid: number; gid: number } | null {
  try {
    const line = readFileSync('/etc/passwd', 'utf8').split('\n').find((l) => l.startsWith(`${name}:`));
    if (!line) return null;
    const [, , uid, gid] = line.split(':');
    return { uid: Number(uid), gid: Number(gid) };
  } catch {
    return null;
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

export interface ClusterOptions {
  /** fsync on (the default, as in production) or off (faster tests; a server crash could lose data, a client crash cannot). */
  readonly fsync?: boolean;
  readonly maxConnections?: number;
}

export class ThrowawayCluster {
  private stopped = false;
  private readonly onExit = () => this.stopNow();

  private constructor(
    readonly directory: string,
    readonly port: number,
    private readonly bin: string,
    private readonly asUser: string[],
  ) {
    process.on('exit', this.onExit);
  }

  /** postgres://postgres@127.0.0.1:<port>/<database> */
  url(database = 'postgres'): string {
    return `postgres://postgres@127.0.0.1:${this.port}/${database}`;
  }

  static async start(options: ClusterOptions = {}): Promise<ThrowawayCluster> {
    const problem = postgresUnavailable();
    if (problem) throw new Error(problem);
    const bin = postgresBinDir()!;
    const directory = await mkdtemp(join(tmpdir(), 'loom-pg-'));
    const asRoot = process.getuid?.() === 0;
    const asUser = asRoot ? ['runuser', '-u', 'postgres', '--'] : [];
    if (asRoot) {
      const user = systemUser('postgres')!;
      await chown(directory, user.uid, user.gid);
    }
    const command = async (program: string, args: string[]) => {
      const [file, ...rest] = [...asUser, join(bin, program), ...args];
      return run(file!, rest, { maxBuffer: 16 * 1024 * 1024 });
    };
    const data = join(directory, 'data');
    await command('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '--encoding=UTF8', '--locale=C', '--no-sync']);
    const port = await freePort();
    const settings = [
      `-p ${port}`,
      `-k ${directory}`,
      `-c listen_addresses=127.0.0.1`,
      `-c max_connections=${options.maxConnections ?? 200}`,
      `-c fsync=${options.fsync === false ? 'off' : 'on'}`,
      `-c shared_buffers=128MB`,
    ].join(' ');
    await command('pg_ctl', ['-D', data, '-o', settings, '-l', join(directory, 'server.log'), '-w', '-t', '60', 'start']);
    const cluster = new ThrowawayCluster(directory, port, bin, asUser);
    return cluster;
  }

  /** Creates an empty database and returns its URL. */
  async createDatabase(name: string): Promise<string> {
    if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new TypeError(`database name ${name} must be a plain identifier`);
    const client = new pg.Client({ connectionString: this.url() });
    await client.connect();
    try {
      await client.query(`CREATE DATABASE ${name}`);
    } finally {
      await client.end();
    }
    return this.url(name);
  }

  /** The server log so far (for a failing test's message). */
  log(): string {
    try {
      return readFileSync(join(this.directory, 'server.log'), 'utf8');
    } catch {
      return '';
    }
  }

  private stopNow(): void {
    if (this.stopped) return;
    this.stopped = true;
    process.off('exit', this.onExit);
    const [file, ...rest] = [...this.asUser, join(this.bin, 'pg_ctl'), '-D', join(this.directory, 'data'), '-m', 'immediate', '-w', 'stop'];
    try {
      execFileSync(file!, rest, { stdio: 'ignore' });
    } catch {
      // already stopped
    }
    execFileSync('rm', ['-rf', this.directory]);
  }

  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    process.off('exit', this.onExit);
    const [file, ...rest] = [...this.asUser, join(this.bin, 'pg_ctl'), '-D', join(this.directory, 'data'), '-m', 'fast', '-w', 'stop'];
    await run(file!, rest).catch(() => undefined);
    await rm(this.directory, { recursive: true, force: true });
  }
}

let shared: Promise<ThrowawayCluster> | null = null;

/** One cluster for the whole test process (fsync off), started on first use, stopped at exit. */
export function sharedTestCluster(): Promise<ThrowawayCluster> {
  shared ??= ThrowawayCluster.start({ fsync: false });
  return shared;
}
