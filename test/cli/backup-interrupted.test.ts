/**
 * `loom backup` never leaves a file that looks complete: an answer cut short
 * and a Ctrl-C mid-transfer both leave neither the file nor its `.part`, and
 * exit non-zero (130 for SIGINT). The server here is a raw node:http one that
 * sends part of an archive and then fails or stalls.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { createServer, type Server, type ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { LOOM_CLI } from '../helpers/cli-run.js';

function runBackup(url: string, file: string): { exited: Promise<{ code: number | null; stderr: string }>; kill(signal: NodeJS.Signals): void } {
  const env: NodeJS.ProcessEnv = { ...process.env, LOOM_TOKEN: 'loom_prod_sa_x_secretsecretsecretsecret' };
  delete env['LOOM_URL'];
  const child = spawn(process.execPath, [LOOM_CLI, 'backup', '-o', file, '--url', url], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return { exited: new Promise((resolve) => child.once('exit', (code) => resolve({ code, stderr }))), kill: (signal) => child.kill(signal) };
}

describe('loom backup, interrupted', function () {
  this.timeout(30_000);
  let dir: string;
  let server: Server;
  let url: string;
  let behaviour: (res: ServerResponse) => void;
  const open = new Set<ServerResponse>();

  before(async () => {
    server = createServer((req, res) => {
      req.resume();
      open.add(res);
      res.writeHead(200, { 'content-type': 'application/gzip', 'x-loom-backup-watermark': '7' });
      behaviour(res);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  });
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'loom-backup-cut-'));
  });
  afterEach(async () => {
    for (const res of open) res.destroy();
    open.clear();
    await rm(dir, { recursive: true, force: true });
  });
  after(() => new Promise((resolve) => server.close(resolve)));

  it('an answer cut short: exit 1, and neither the file nor its .part', async () => {
    behaviour = (res) => {
      res.write(Buffer.alloc(1024 * 1024, 7));
      setTimeout(() => res.socket?.destroy(), 100);
    };
    const { code, stderr } = await runBackup(url, join(dir, 'nightly.tar.gz')).exited;
    expect(code, stderr).to.equal(1);
    expect(stderr).to.match(/^loom: .*cut short/m);
    expect(await readdir(dir)).to.deep.equal([]);
  });

  it('Ctrl-C mid-transfer: exit 130, and neither the file nor its .part', async () => {
    let started!: () => void;
    const sending = new Promise<void>((resolve) => (started = resolve));
    behaviour = (res) => {
      res.write(Buffer.alloc(1024 * 1024, 7), () => started()); // then stalls, as a large backup would between chunks
    };
    const run = runBackup(url, join(dir, 'nightly.tar.gz'));
    await sending;
    for (let i = 0; i < 50 && !(await readdir(dir)).includes('nightly.tar.gz.part'); i++) await new Promise((r) => setTimeout(r, 50));
    run.kill('SIGINT');
    const { code, stderr } = await run.exited;
    expect(code, stderr).to.equal(130);
    expect(await readdir(dir)).to.deep.equal([]);
  });
});
