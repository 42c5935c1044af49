import { expect } from 'chai';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const LOOM = fileURLToPath(new URL('../core/cli/loom.js', import.meta.url));
const run = promisify(execFile);
const TH = 'th_' + 'd'.repeat(64);

async function loom(args: string[], url: string): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [LOOM, ...args], { env: { ...process.env, LOOM_URL: url, LOOM_ACTOR: 'did:sync:user:cli-test' } });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

describe('loom CLI', function () {
  this.timeout(60_000);
  let dir: string;
  let server: ChildProcess;
  let url: string;
  let output = '';

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'loom-cli-'));
    server = spawn(process.execPath, [LOOM, 'serve', '--port', '0', '--data-dir', dir, '--durability', 'normal'], { stdio: ['ignore', 'pipe', 'pipe'] });
    server.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no startup line: ${output}`)), 30_000);
      server.stdout!.on('data', () => {
        const match = /listening on (http:\/\/127\.0\.0\.1:\d+) \(storage sqlite, data dir .+, instance did:sync:system:/.exec(output);
        if (match) {
          clearTimeout(timer);
          resolve(match[1]!);
        }
      });
    });
  });

  after(async () => {
    if (server.exitCode === null) server.kill('SIGKILL');
    await rm(dir, { recursive: true, force: true });
  });

  it('emits records with the next clock found from the thread state', async () => {
    const first = await loom(['emit', '--thread', TH, '--act', 'INTEND', '--body', '{"goal":"cli walkthrough"}', '--json'], url);
    expect(first.code, first.stderr).to.equal(0);
    expect(JSON.parse(first.stdout)).to.include({ clock: 0, act: 'INTEND', actor: 'did:sync:user:cli-test' });
    const second = await loom(['emit', '--thread', TH, '--body', '{"observation":"done"}', '--json'], url);
    expect(JSON.parse(second.stdout).clock).to.equal(1);
  });

  it('lists and shows threads, and queries, as text and as JSON', async () => {
    const list = await loom(['thread', 'list', '--json'], url);
    expect(JSON.parse(list.stdout).data[0]).to.include({ thread: TH, record_count: 2, status: 'open' });
    const show = await loom(['thread', 'show', TH], url);
    expect(show.stdout).to.contain('cli walkthrough');
    const query = await loom(['query', '--filter', '{"act":"KNOW"}', '--json'], url);
    expect(JSON.parse(query.stdout)).to.include({ matched_total: 1 });
  });

  it('prints the server code and message on refusal, never a stack trace', async () => {
    const duplicate = await loom(['emit', '--thread', TH, '--body', '{"other":true}', '--clock', '0'], url);
    expect(duplicate.code).to.equal(1);
    expect(duplicate.stderr).to.match(/^loom: DUPLICATE_CLOCK \(409\): /);
    expect(duplicate.stderr).to.not.contain('    at ');
    const badQuery = await loom(['query', '--filter', '{"act":{"$nope":1}}'], url);
    expect(badQuery.stderr).to.match(/^loom: INVALID_QUERY \(400\)/);
    const badJson = await loom(['query', '--filter', '{oops'], url);
    expect(badJson.code).to.equal(2);
    const unreachable = await loom(['thread', 'list'], 'http://127.0.0.1:1');
    expect(unreachable.stderr).to.contain('cannot reach');
  });

  it('declares a namespace so records in it are accepted', async () => {
    const refused = await loom(['emit', '--thread', TH, '--body', '{"namespace":"clitest"}'], url);
    expect(refused.stderr).to.contain('NAMESPACE_REJECTED').and.to.contain('loom namespace create clitest');
    expect((await loom(['namespace', 'create', 'clitest'], url)).code).to.equal(0);
    expect((await loom(['emit', '--thread', TH, '--body', '{"namespace":"clitest"}'], url)).code).to.equal(0);
  });

  it('shuts down cleanly on SIGTERM, logging structured lines', async () => {
    const exited = new Promise<number | null>((resolve) => server.once('exit', (code) => resolve(code)));
    server.kill('SIGTERM');
    expect(await exited).to.equal(0);
    const logs = output.split('\n').filter((line) => line.startsWith('{')).map((line) => JSON.parse(line) as { msg: string });
    expect(logs.map((l) => l.msg)).to.include.members(['started', 'stopping', 'stopped']);
  });
});
