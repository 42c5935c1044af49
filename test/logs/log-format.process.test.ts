/**
 * `loom serve --log-format pretty|json` (and LOOM_LOG_FORMAT) in a real
 * process: stdout is the log. Piped, as here, the default is JSON lines.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';

const LOOM = resolve(fileURLToPath(new URL('.', import.meta.url)), '../../bin/loom.js');

/** Starts `loom serve`, waits for its `started` entry, stops it; answers all it wrote and how it ended. */
async function serveOnce(args: readonly string[], env: Record<string, string> = {}): Promise<{ stdout: string; stderr: string; code: number | null; signal: string | null }> {
  const dataDir = await mkdtemp(join(tmpdir(), 'loom-log-format-'));
  try {
    const child = spawn(process.execPath, [LOOM, 'serve', '--port', '0', '--data-dir', dataDir, '--log-level', 'info', ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, LOOM_LOG_FORMAT: '', ...env },
    });
    let stdout = '';
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const exited = new Promise<{ code: number | null; signal: string | null }>((done) => child.once('close', (code, signal) => done({ code, signal })));
    await new Promise<void>((done) => {
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
        stdout += chunk;
        if (/INFO: started$|"msg":"started"/m.test(stdout)) done();
      });
      child.once('exit', () => done());
    });
    if (child.exitCode === null) child.kill('SIGTERM');
    const { code, signal } = await exited;
    return { stdout, stderr, code, signal };
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
}

describe('loom serve --log-format', function () {
  this.timeout(120_000);

  it('writes JSON lines by default when stdout is not a terminal', async () => {
    const { stdout } = await serveOnce([]);
    const entries = stdout.trim().split('\n').map((line) => JSON.parse(line) as { level: string; msg: string });
    expect(entries.map((entry) => entry.msg)).to.include('started');
  });

  it("--log-format pretty writes pino-pretty's lines, without colour codes into a pipe", async () => {
    const { stdout } = await serveOnce(['--log-format', 'pretty']);
    expect(stdout).to.match(/^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: started$/m);
    expect(stdout).to.match(/^ {4}url: "http:\/\/127\.0\.0\.1:\d+"$/m);
    expect(stdout).not.to.contain('\u001b[');
    expect(stdout).not.to.match(/^\{/m);
  });

  it('LOOM_LOG_FORMAT=pretty does the same', async () => {
    const fromEnv = await serveOnce([], { LOOM_LOG_FORMAT: 'pretty' });
    expect(fromEnv.stdout).to.match(/INFO: started$/m);
  });

  it('refuses a format it does not know, before starting', async () => {
    const { code, stdout } = await serveOnce(['--log-format', 'xml']);
    expect(code).to.not.equal(0);
    expect(stdout).to.equal('');
  });
});
