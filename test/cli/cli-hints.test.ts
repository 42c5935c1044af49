/**
 * The CLI's small courtesies (issue 38, defect 10): a mistyped command gets
 * the nearest one in one line, a --url without a scheme gets the fix,
 * `loom emit` takes its body from a file or stdin, `loom data put` infers the
 * media type, and `loom thread list` keeps its columns aligned.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { LOOM_CLI, runLoom } from '../helpers/cli-run.js';
import { get, newThread, postJson, startServer, type StartedServer } from '../helpers/http-server.js';

describe('loom CLI hints and inputs', function () {
  this.timeout(60_000);
  let server: StartedServer;
  let dir: string;
  let config: string;
  const loom = (args: readonly string[]) => runLoom(args, { url: server.url, config });

  before(async () => {
    server = await startServer();
    dir = await mkdtemp(join(tmpdir(), 'loom-cli-hints-'));
    config = join(dir, 'config.json');
  });
  after(async () => {
    await server?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('an unknown command: the nearest one, in one line, exit 2', async () => {
    const result = await loom(['thraed', 'list']);
    expect(result.code).to.equal(2);
    expect(result.stderr).to.contain('did you mean "loom thread"');
    expect(result.stderr.trim().split('\n')).to.have.length(1);
  });

  it('a --url without a scheme: the URL it probably meant', async () => {
    const env: NodeJS.ProcessEnv = { ...process.env, LOOM_CONFIG: config };
    delete env['LOOM_URL'];
    const result = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
      const child = spawn(process.execPath, [LOOM_CLI, 'thread', 'list', '--url', '127.0.0.1:9100'], { env });
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      child.once('exit', (code) => resolve({ code, stderr }));
    });
    expect(result.code).to.equal(2);
    expect(result.stderr).to.contain('http://127.0.0.1:9100');
  });

  it('loom emit --body @file and --body - (stdin)', async () => {
    const thread = newThread();
    await writeFile(join(dir, 'body.json'), '{"observation": "from a file"}');
    const fromFile = await loom(['emit', '--thread', thread, '--actor', 'did:sync:user:a', '--body', `@${join(dir, 'body.json')}`, '--json']);
    expect(fromFile.code, fromFile.stderr).to.equal(0);
    expect(JSON.parse(fromFile.stdout).body).to.deep.equal({ observation: 'from a file' });

    const env: NodeJS.ProcessEnv = { ...process.env, LOOM_CONFIG: config };
    delete env['LOOM_URL'];
    delete env['LOOM_TOKEN'];
    const stdout = await new Promise<string>((resolve, reject) => {
      const child = spawn(process.execPath, [LOOM_CLI, 'emit', '--thread', thread, '--actor', 'did:sync:user:a', '--body', '-', '--json', '--url', server.url], { env });
      let out = '';
      child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
      child.once('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`exit ${code}`))));
      child.stdin.end('{"observation": "from stdin"}');
    });
    expect(JSON.parse(stdout).body).to.deep.equal({ observation: 'from stdin' });

    const missing = await loom(['emit', '--thread', thread, '--body', '@/nonexistent/body.json']);
    expect(missing.code).to.equal(2);
    expect(missing.stderr).to.match(/^loom: --body @\/nonexistent\/body\.json: cannot read/);
  });

  it('loom data put infers the media type from the name, and --content-type wins', async () => {
    await writeFile(join(dir, 'notes.json'), '{"a": 1}');
    expect((await loom(['data', 'put', join(dir, 'notes.json'), '/hints/notes.json'])).code).to.equal(0);
    expect((await get(server.url, '/v1/data/stat?path=/hints/notes.json')).json.content_type).to.equal('application/json');
    expect((await loom(['data', 'put', join(dir, 'notes.json'), '/hints/other.json', '--content-type', 'text/plain'])).code).to.equal(0);
    expect((await get(server.url, '/v1/data/stat?path=/hints/other.json')).json.content_type).to.equal('text/plain');
  });

  it('loom thread list: every row starts each column where the header does, reserved threads included', async () => {
    await postJson(server.url, '/v1/config/auth_cors_origins', { origins: [] }); // a record on th_engine_config
    await loom(['emit', '--thread', newThread(), '--actor', 'did:sync:user:a', '--act', 'INTEND', '--body', '{"goal":"align"}']);
    const { stdout, code } = await loom(['thread', 'list']);
    expect(code).to.equal(0);
    const [header, ...rows] = stdout.trimEnd().split('\n');
    expect(rows.some((row) => row.startsWith('th_engine_config '))).to.equal(true);
    const starts = ['status', 'records', 'clock', 'who', 'goal'].map((title) => header!.indexOf(title));
    for (const row of rows) for (const start of starts) expect(row[start - 1], `${row}\n${header}`).to.equal(' ') && expect(row[start - 2]).to.equal(' ');
  });
});
