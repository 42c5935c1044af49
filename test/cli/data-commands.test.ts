/**
 * `loom data …` against a real server with 64 KiB chunks: the built CLI runs
 * as a child process, sometimes through a small recording proxy that sees
 * every request (and can hold one chunk PUT unanswered, as a stalled network
 * would). Covered: put / ls / stat / get round trips (byte-identical, to a
 * file and to stdout), preconditions, mv, rm -r, publish, url, usage --json
 * (the server's answer as is), a put interrupted with Ctrl-C and run again
 * (only the missing chunks go), and a get continuing a .part file (a Range
 * request), or starting over when the .part held other bytes.
 */
import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { get } from '../helpers/http-server.js';
import { startServer, type StartedServer } from '../helpers/start-server.js';

const LOOM = fileURLToPath(new URL('../../bin/loom.js', import.meta.url));
const CHUNK = 64 * 1024;
const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: Buffer;
  stderr: string;
}

interface Seen {
  method: string;
  path: string;
  range: string | null;
  contentRange: string | null;
}

/** A pass-through proxy that records requests; `holdPut(n)` leaves the n-th PUT from now unanswered and resolves when it arrives. */
class RecordingProxy {
  readonly seen: Seen[] = [];
  private server!: Server;
  private hold: { at: number; arrived: () => void } | null = null;

  constructor(private readonly target: string) {}

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      const header = (name: string) => (req.headers[name] as string | undefined) ?? null;
      this.seen.push({ method: req.method!, path: req.url!.split('?')[0]!, range: header('range'), contentRange: header('content-range') });
      if (req.method === 'PUT' && this.hold && this.puts().length === this.hold.at) {
        this.hold.arrived();
        this.hold = null;
        return;
      }
      const upstream = httpRequest(new URL(req.url!, this.target), { method: req.method, headers: req.headers }, (answer) => {
        res.writeHead(answer.statusCode!, answer.headers);
        answer.pipe(res);
      });
      upstream.on('error', () => res.destroy());
      req.pipe(upstream);
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }

  puts(): Seen[] {
    return this.seen.filter((s) => s.method === 'PUT');
  }

  holdPut(nth: number): Promise<void> {
    return new Promise((resolve) => (this.hold = { at: this.puts().length + nth, arrived: resolve }));
  }

  reset(): void {
    this.seen.length = 0;
  }
}

describe('loom data commands', function () {
  this.timeout(60_000);
  let server: StartedServer;
  let proxy: RecordingProxy;
  let root: string;
  let stateDir: string;
  const content = randomBytes(CHUNK * 3 + 5000);
  const ranges = [0, 1, 2, 3].map((i) => `bytes ${i * CHUNK}-${Math.min((i + 1) * CHUNK, content.length) - 1}/${content.length}`);

  before(async () => {
    server = await startServer({ data: { chunkSizeBytes: CHUNK } });
    proxy = new RecordingProxy(server.url);
    await proxy.start();
    root = await mkdtemp(join(tmpdir(), 'loom-data-cli-'));
    stateDir = join(root, 'state');
    await writeFile(join(root, 'content.bin'), content);
  });
  after(async () => {
    await proxy?.stop();
    await server?.stop();
    if (root) await rm(root, { recursive: true, force: true });
  });

  /** Starts the CLI against `url` with an empty config file, no token and its own XDG_STATE_HOME. */
  function start(args: string[], url: string = server.url) {
    const env: NodeJS.ProcessEnv = { ...process.env, LOOM_CONFIG: join(root, 'config.json'), XDG_STATE_HOME: stateDir };
    delete env['LOOM_URL'];
    delete env['LOOM_TOKEN'];
    const child = spawn(process.execPath, [LOOM, 'data', ...args, '--url', url], { env, cwd: root });
    const stdout: Buffer[] = [];
    let stderr = '';
    child.stdout.on('data', (bytes: Buffer) => stdout.push(bytes));
    child.stderr.on('data', (bytes: Buffer) => (stderr += bytes.toString()));
    const done = new Promise<Run>((resolve) => child.on('close', (code, signal) => resolve({ code, signal, stdout: Buffer.concat(stdout), stderr })));
    return { child, done };
  }
  const loom = (args: string[], url?: string) => start(args, url).done;
  async function ok(args: string[], url?: string): Promise<string> {
    const result = await loom(args, url);
    expect(result.code, `loom data ${args.join(' ')}: ${result.stderr}`).to.equal(0);
    const text = result.stdout.toString();
    expect(text, 'no trailing spaces').not.to.match(/ +\n/);
    return text;
  }
  const json = async (args: string[], url?: string) => JSON.parse(await ok([...args, '--json'], url));
  /** A refusal: its exit status and one `loom: …` line on stderr, nothing on stdout, no stack trace. */
  async function refused(args: string[], code: number): Promise<string> {
    const result = await loom(args);
    expect(result.code, `loom data ${args.join(' ')}: ${result.stdout.toString()}`).to.equal(code);
    expect(result.stderr).to.match(/^loom: /);
    expect(result.stderr).not.to.contain('    at ');
    expect(result.stdout.length).to.equal(0);
    return result.stderr;
  }

  it('put, ls, stat and get round-trip the bytes exactly, to a file and to stdout', async () => {
    const written = await json(['put', 'content.bin', '/docs/a.bin', '--content-type', 'application/x-test']);
    expect(written).to.deep.include({ ok: true, path: '/docs/a.bin', size_bytes: content.length, content_hash: sha256(content) });
    expect(await readdir(join(stateDir, 'loom', 'uploads'))).to.deep.equal([]);

    // A remote path ending in / takes the local file's name.
    expect(await ok(['put', 'content.bin', '/docs/'])).to.match(/^wrote \/docs\/content\.bin \(\d+ bytes, sha256 [0-9a-f]{64}\), content already stored\n$/);

    const listing = await json(['ls', '/docs']);
    expect(listing).to.deep.equal((await get(server.url, '/v1/data/list?path=/docs')).json);
    expect(listing.entries.map((e: { name: string }) => e.name)).to.deep.equal(['a.bin', 'content.bin']);
    const table = await ok(['ls', '/docs']);
    expect(table.split('\n')[0]).to.match(/^kind +size +modified +sha256 +published +name$/);
    expect(table).to.match(new RegExp(`^file +${content.length} .* ${sha256(content).slice(0, 12)}… +- +a\\.bin$`, 'm'));
    expect(await ok(['ls'])).to.match(/^dir +- .* docs\/$/m);

    const stat = await json(['stat', '/docs/a.bin']);
    expect(stat).to.deep.include({ kind: 'file', content_hash: sha256(content), content_type: 'application/x-test', size_bytes: content.length });
    expect(await ok(['stat', '/docs/a.bin'])).to.match(new RegExp(`^sha256 +${sha256(content)}$`, 'm'));

    expect(await ok(['get', '/docs/a.bin', 'copy.bin'])).to.match(/^wrote .*copy\.bin \(\d+ bytes, sha256 [0-9a-f]{64}\)\n$/);
    expect((await readFile(join(root, 'copy.bin'))).equals(content)).to.equal(true);
    expect(await readdir(root)).not.to.include('copy.bin.part');
    const piped = await loom(['get', '/docs/a.bin', '-']);
    expect(piped.code, piped.stderr).to.equal(0);
    expect(piped.stdout.equals(content)).to.equal(true);
  });

  it('--if-absent refuses an existing path with PRECONDITION_FAILED; --if-match writes over that content only', async () => {
    await writeFile(join(root, 'v1.txt'), 'one');
    await writeFile(join(root, 'v2.txt'), 'two');
    const first = await json(['put', 'v1.txt', '/cas/file.txt', '--if-absent']);
    expect(await refused(['put', 'v2.txt', '/cas/file.txt', '--if-absent'], 1)).to.match(/^loom: PRECONDITION_FAILED \(409\): /);
    expect(await refused(['put', 'v2.txt', '/cas/file.txt', '--if-match', sha256(Buffer.from('other'))], 1)).to.match(/^loom: PRECONDITION_FAILED \(409\): /);
    const second = await json(['put', 'v2.txt', '/cas/file.txt', '--if-match', first.content_hash]);
    expect(second.content_hash).to.equal(sha256(Buffer.from('two')));
    // A refused write leaves no upload to resume.
    expect(await readdir(join(stateDir, 'loom', 'uploads'))).to.deep.equal([]);
    await refused(['put', 'v2.txt', '/cas/file.txt', '--if-match', first.content_hash, '--if-absent'], 2);
    await refused(['put', 'v2.txt', '/cas/file.txt', '--if-match', 'abc'], 2);
  });

  it('mv renames, rm needs -r for a non-empty directory, and both name what is missing afterwards', async () => {
    await writeFile(join(root, 'small.txt'), 'small');
    await ok(['put', 'small.txt', '/tree/x.txt']);
    await ok(['put', 'small.txt', '/tree/sub/y.txt']);

    expect(await ok(['mv', '/tree/x.txt', '/moved/x.txt'])).to.equal('moved /tree/x.txt to /moved/x.txt\n');
    expect(await refused(['stat', '/tree/x.txt'], 1)).to.match(/^loom: PATH_NOT_FOUND \(404\): /);
    expect((await json(['stat', '/moved/x.txt'])).content_hash).to.equal(sha256(Buffer.from('small')));

    expect(await refused(['rm', '/tree'], 1)).to.match(/^loom: DIRECTORY_NOT_EMPTY \(409\): /);
    const removed = await json(['rm', '-r', '/tree']);
    expect(removed).to.deep.include({ ok: true, changed: true });
    expect(removed.removed).to.be.at.least(3);
    expect(await refused(['ls', '/tree'], 1)).to.match(/^loom: PATH_NOT_FOUND \(404\): /);
  });

  it('publish pins a file and url signs a link that reads it without a token', async () => {
    await ok(['put', 'content.bin', '/pub/p.bin']);
    expect(await ok(['publish', '/pub/p.bin', '--storage-class', 'archive'])).to.equal('published /pub/p.bin\n');
    expect(await json(['stat', '/pub/p.bin'])).to.deep.include({ pin_state: 'pinned', storage_class: 'archive' });
    const link = await loom(['url', '/pub/p.bin', '--expires-in', '60']);
    expect(link.code, link.stderr).to.equal(0);
    expect(link.stderr).to.match(/^expires \S+ \(in 60 s\)\n$/);
    const read = await fetch(link.stdout.toString().trim());
    expect(sha256(Buffer.from(await read.arrayBuffer()))).to.equal(sha256(content));
  });

  it('usage --json is the server answer; the human form shows the same figures', async () => {
    const usage = await json(['usage']);
    expect(usage).to.deep.equal((await get(server.url, '/v1/data/usage')).json);
    expect(usage.object).to.equal('data_usage');
    const text = await ok(['usage']);
    expect(text).to.match(new RegExp(`^used +${usage.used_bytes} bytes`, 'm'));
    expect(text).to.match(new RegExp(`^files +${usage.files}$`, 'm'));
  });

  it('an interrupted put resumes: the same command sends only the chunks the server lacks', async () => {
    await writeFile(join(root, 'resume.bin'), content);
    proxy.reset();
    const third = proxy.holdPut(3);
    const first = start(['put', 'resume.bin', '/resume/r.bin'], proxy.url);
    await third;
    // Two chunks landed and the third is stuck in flight: the upload id is saved; Ctrl-C.
    const uploads = join(stateDir, 'loom', 'uploads');
    expect(await readdir(uploads)).to.have.length(1);
    first.child.kill('SIGINT');
    const stopped = await first.done;
    expect(stopped.code).to.equal(130);
    expect(stopped.stderr).to.contain('run the same command again to resume');
    expect(await readdir(uploads)).to.have.length(1);

    proxy.reset();
    const text = await ok(['put', 'resume.bin', '/resume/r.bin'], proxy.url);
    expect(text).to.match(/; resumed upload up_[0-9a-f]+, sent /);
    expect(proxy.puts().map((s) => s.contentRange)).to.deep.equal(ranges.slice(2));
    expect(proxy.seen.filter((s) => s.path === '/v1/data/write/init')).to.have.length(0);
    expect(await readdir(uploads)).to.deep.equal([]);
    expect((await json(['stat', '/resume/r.bin'])).content_hash).to.equal(sha256(content));
  });

  it('get continues a .part file with a Range request, and starts over when the .part held other bytes', async () => {
    await ok(['put', 'content.bin', '/dl/d.bin']);
    const hash = sha256(content);
    const cut = CHUNK + 777;

    await writeFile(join(root, 'd.bin.part'), content.subarray(0, cut));
    proxy.reset();
    expect(await ok(['get', '/dl/d.bin'], proxy.url)).to.contain(`; continued from byte ${cut} of `);
    expect(proxy.seen.filter((s) => s.path === `/v1/blobs/${hash}`).map((s) => s.range)).to.deep.equal([`bytes=${cut}-`]);
    expect((await readFile(join(root, 'd.bin'))).equals(content)).to.equal(true);
    expect(await readdir(root)).not.to.include('d.bin.part');

    await writeFile(join(root, 'stale.bin.part'), randomBytes(cut));
    proxy.reset();
    expect(await ok(['get', '/dl/d.bin', 'stale.bin'], proxy.url)).not.to.contain('continued');
    expect(proxy.seen.filter((s) => s.path === `/v1/blobs/${hash}`).map((s) => s.range)).to.deep.equal([`bytes=${cut}-`, null]);
    expect((await readFile(join(root, 'stale.bin'))).equals(content)).to.equal(true);
  });

  it('answers --help with its usage and refuses misuse with exit 2 before any request', async () => {
    expect(await ok(['--help'])).to.match(/^loom data ls /);
    expect(await ok(['put', '--help'])).to.contain('loom data put <local-file> <remote-path>');
    expect(await refused(['put', 'content.bin'], 2)).to.contain('loom data put takes 2 arguments, not 1');
    expect(await refused(['ls', '--recursive'], 2)).to.contain('--recursive applies to loom data rm only');
    expect(await refused(['frobnicate'], 2)).to.contain('unknown subcommand "data frobnicate"');
    expect(await refused(['put', 'missing.bin', '/x'], 1)).to.match(/^loom: cannot read missing\.bin: /);
  });
});
