/**
 * The README cannot drift from code that runs: every code block preceded by
 * `<!-- example: <path> -->` must be that file exactly, and the files run
 * here: the SDK client in TypeScript (compiled) and in plain JavaScript
 * against a live server with auth on, and the embedding example on a free port.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { bootstrapAdmin, type Credential } from './helpers/auth.js';
import { startServer, type StartedServer } from './helpers/start-server.js';
import { runReadmeCommands } from './helpers/readme-run.js';

const run = promisify(execFile);
/** The checkout's root (dist/test/ → ../..). */
const ROOT = resolve(fileURLToPath(new URL('.', import.meta.url)), '../..');

async function readmeExamples(): Promise<Array<{ path: string; block: string }>> {
  const readme = await readFile(join(ROOT, 'README.md'), 'utf8');
  return [...readme.matchAll(/<!-- example: (\S+) -->\n```[a-z]*\n([\s\S]*?)```\n/g)].map((match) => ({ path: match[1]!, block: match[2]! }));
}

describe('README examples', function () {
  this.timeout(60_000);
  let server: StartedServer;
  let admin: Credential;

  before(async () => {
    server = await startServer({ auth: { required: true } });
    admin = await bootstrapAdmin(server.url);
  });
  after(() => server?.stop());

  it('every marked snippet is its file under examples/, exactly', async () => {
    const examples = await readmeExamples();
    expect(examples.map((e) => e.path)).to.include.members(['examples/sdk-client/client.ts', 'examples/embed/main.ts']);
    for (const { path, block } of examples) {
      expect(path, path).to.match(/^examples\//);
      expect(block, `README block of ${path}`).to.equal(await readFile(join(ROOT, path), 'utf8'));
    }
  });

  for (const [label, file] of [
    ['TypeScript (compiled)', 'dist/examples/sdk-client/client.js'],
    ['JavaScript', 'examples/sdk-client/client.mjs'],
  ] as const) {
    it(`the SDK client in ${label} stores a record and reads it back`, async () => {
      const { stdout } = await run(process.execPath, [join(ROOT, file)], { cwd: ROOT, env: { ...process.env, LOOM_URL: server.url, LOOM_TOKEN: admin.token } });
      const lines = stdout.trim().split('\n');
      expect(lines[0]).to.equal('201 true');
      expect(stdout).to.contain("'did:sync:user:alice': 0");
      expect(lines[lines.length - 1]).to.equal('1');
    });
  }

  it('the SDK client says AUTH_REQUIRED without a token', async () => {
    const result = await run(process.execPath, [join(ROOT, 'examples/sdk-client/client.mjs')], { cwd: ROOT, env: { ...process.env, LOOM_URL: server.url, LOOM_TOKEN: '' } });
    expect(result.stderr).to.match(/^AUTH_REQUIRED /);
  });

  it('the embedding example starts, answers /health and stops', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'loom-embed-example-'));
    try {
      const { stdout } = await run(process.execPath, [join(ROOT, 'dist/examples/embed/main.js')], { cwd: ROOT, env: { ...process.env, LOOM_PORT: '0', LOOM_DATA_DIR: dataDir } });
      expect(stdout).to.match(/listening on http:\/\/127\.0\.0\.1:\d+/);
      expect(stdout).to.contain('health 200');
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });

  it("every complete `loom …` command in the README's prose parses (run with --help)", async () => {
    const readme = await readFile(join(ROOT, 'README.md'), 'utf8');
    const spans = [...readme.matchAll(/`(loom [^`]+)`/g)].map((m) => m[1]!.replace(/\s+/g, ' ').trim());
    // A span with a placeholder or a choice (…, <x>, a|b, [optional]) is a pattern, not a command.
    const commands = [...new Set(spans.filter((span) => !/[…<|[]/.test(span)))];
    expect(commands.length).to.be.greaterThan(10);
    for (const command of commands) {
      const args = command.split(' ').slice(1);
      const result = await run(process.execPath, [join(ROOT, 'dist/bin/loom.js'), ...args, '--help'], { cwd: ROOT, env: { ...process.env, LOOM_URL: server.url } }).then(
        () => null,
        (error: { stderr: string }) => error.stderr,
      );
      expect(result, command).to.equal(null);
    }
  });

  it('every shell command of the README runs against live servers, or says why it cannot', async function () {
    this.timeout(240_000);
    const outcome = await runReadmeCommands(ROOT);
    expect(outcome.unusedExemptions, 'exemptions that match no README command').to.deep.equal([]);
    expect(outcome.failure, outcome.log).to.equal(null);
    expect(outcome.ran).to.be.greaterThan(40);
  });
});
