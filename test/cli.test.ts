import { createServer, type AddressInfo } from 'node:net';
import { expect } from 'chai';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const LOOM = fileURLToPath(new URL('../bin/loom.js', import.meta.url));
const run = promisify(execFile);
const TH = 'th_' + 'd'.repeat(64);

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs the CLI with a clean token environment: LOOM_TOKEN from the shell
 * running the tests never leaks in, and the config file is the test's own.
 * `env` entries override (undefined removes one).
 */
async function loom(args: string[], url: string, config: string, env: Record<string, string | undefined> = {}): Promise<Run> {
  const merged: NodeJS.ProcessEnv = { ...process.env, LOOM_URL: url, LOOM_ACTOR: 'did:sync:user:cli-test', LOOM_CONFIG: config };
  delete merged['LOOM_TOKEN'];
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) delete merged[name];
    else merged[name] = value;
  }
  try {
    const { stdout, stderr } = await run(process.execPath, [LOOM, ...args], { env: merged });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

describe('loom CLI', function () {
  this.timeout(60_000);
  let root: string;
  let config: string;
  let server: ChildProcess;
  let url: string;
  let output = '';
  let jsonLines = '';
  let admin: { service_account_id: string; namespace: string; token_id: string; config_path: string; saved: boolean };
  const cli = (args: string[], env?: Record<string, string | undefined>) => loom(args, url, config, env);
  const json = async (args: string[], env?: Record<string, string | undefined>) => {
    const result = await cli([...args, '--json'], env);
    expect(result.code, result.stderr).to.equal(0);
    return JSON.parse(result.stdout) as Record<string, unknown>;
  };
  const savedToken = async () => (JSON.parse(await readFile(config, 'utf8')) as { servers: Record<string, { token: string; service_account_id: string }> }).servers[url]!;

  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'loom-cli-'));
    // A directory that does not exist yet: bootstrap creates it (0700).
    config = join(root, 'home', 'loom', 'config.json');
    server = spawn(process.execPath, [LOOM, 'serve', '--port', '0', '--data-dir', join(root, 'data'), '--durability', 'normal'], { stdio: ['ignore', 'pipe', 'pipe'] });
    // The startup line for people is on stderr; stdout is JSON lines.
    server.stdout!.on('data', (chunk: Buffer) => (jsonLines += chunk.toString()));
    server.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no startup line: ${output}`)), 30_000);
      server.stderr!.on('data', () => {
        const match = /listening on (http:\/\/127\.0\.0\.1:\d+) \(storage sqlite, data dir .+, instance did:sync:system:/.exec(output);
        if (match) {
          clearTimeout(timer);
          resolve(match[1]!);
        }
      });
    });
    const bootstrap = await cli(['bootstrap', '--json']);
    expect(bootstrap.code, bootstrap.stderr).to.equal(0);
    admin = JSON.parse(bootstrap.stdout);
  });

  after(async () => {
    if (server.exitCode === null) server.kill('SIGKILL');
    await rm(root, { recursive: true, force: true });
  });

  it('bootstraps an admin whose token is saved, owner-only, for the server URL', async () => {
    expect(admin).to.include({ namespace: 'default', config_path: config, saved: true });
    expect(admin.service_account_id).to.match(/^sa_[a-z2-7]{20}$/);
    expect(admin).to.not.have.property('token');
    expect((await stat(config)).mode & 0o777).to.equal(0o600);
    expect((await stat(dirname(config))).mode & 0o777).to.equal(0o700);
    const saved = await savedToken();
    expect(saved.service_account_id).to.equal(admin.service_account_id);
    expect(saved.token).to.match(new RegExp(`^loom_prod_${admin.service_account_id}_[A-Za-z0-9.~-]{43}$`));
    const me = await cli(['whoami']);
    expect(me.code, me.stderr).to.equal(0);
    expect(me.stdout).to.contain(admin.service_account_id).and.to.contain('scopes: admin').and.to.contain(`token from: ${config}`);
  });

  it('emits records with the next clock found from the thread state', async () => {
    const first = await cli(['emit', '--thread', TH, '--act', 'INTEND', '--body', '{"goal":"cli walkthrough"}', '--json']);
    expect(first.code, first.stderr).to.equal(0);
    expect(JSON.parse(first.stdout)).to.include({ clock: 0, act: 'INTEND', actor: 'did:sync:user:cli-test' });
    const second = await cli(['emit', '--thread', TH, '--body', '{"observation":"done"}', '--json']);
    expect(JSON.parse(second.stdout).clock).to.equal(1);
  });

  it('lists and shows threads, and queries, as text and as JSON', async () => {
    const list = await cli(['thread', 'list', '--json']);
    expect(JSON.parse(list.stdout).data[0]).to.include({ thread: TH, record_count: 2, status: 'open' });
    const show = await cli(['thread', 'show', TH]);
    expect(show.stdout).to.contain('cli walkthrough');
    const query = await cli(['query', '--filter', '{"act":"KNOW"}', '--json']);
    expect(JSON.parse(query.stdout)).to.include({ matched_total: 1 });
  });

  it('prints the server code and message on refusal, never a stack trace', async () => {
    const duplicate = await cli(['emit', '--thread', TH, '--body', '{"other":true}', '--clock', '0']);
    expect(duplicate.code).to.equal(1);
    expect(duplicate.stderr).to.match(/^loom: DUPLICATE_CLOCK \(409\): /);
    expect(duplicate.stderr).to.not.contain('    at ');
    const badQuery = await cli(['query', '--filter', '{"act":{"$nope":1}}']);
    expect(badQuery.stderr).to.match(/^loom: INVALID_QUERY \(400\)/);
    const badJson = await cli(['query', '--filter', '{oops'], {});
    expect(badJson.code).to.equal(2);
    // A port nothing listens on: bound, then closed.
    const closed = await new Promise<number>((done) => {
      const probe = createServer().listen(0, '127.0.0.1', () => {
        const { port } = probe.address() as AddressInfo;
        probe.close(() => done(port));
      });
    });
    const nowhere = `http://127.0.0.1:${closed}`;
    const unreachable = await loom(['thread', 'list'], nowhere, config);
    expect(unreachable.stderr).to.contain(`cannot reach ${nowhere}: connection refused: nothing listens there`);
    expect(unreachable.stderr).to.contain('(ECONNREFUSED)');
    // --json: the failure is also an envelope on stdout, and the exit code still says it failed.
    const asJson = await loom(['thread', 'list', '--json'], nowhere, config);
    expect(asJson.code).to.equal(1);
    expect(JSON.parse(asJson.stdout)).to.include({ object: 'error', code: 'UNREACHABLE' });
    const refusedJson = await cli(['query', '--filter', '{"act":{"$nope":1}}', '--json']);
    expect(refusedJson.code).to.equal(1);
    expect(JSON.parse(refusedJson.stdout)).to.include({ object: 'error', code: 'INVALID_QUERY', status: 400 });
    const usageJson = await cli(['query', '--filter', '{oops', '--json'], {});
    expect(usageJson.code).to.equal(2);
    expect(JSON.parse(usageJson.stdout)).to.include({ object: 'error', code: 'USAGE' });
  });

  it('refuses a request without any token with AUTH_REQUIRED (401)', async () => {
    const anonymous = await cli(['thread', 'list'], { LOOM_CONFIG: join(root, 'no-such-config.json') });
    expect(anonymous.code).to.equal(1);
    expect(anonymous.stderr).to.match(/^loom: AUTH_REQUIRED \(401\): /);
    expect(anonymous.stderr.trim().split('\n')).to.have.length(1);
  });

  it('declares a namespace so records in it are accepted', async () => {
    // A thread of its own: a thread holds records of one namespace, and TH is in default.
    const TH_CLITEST = 'th_' + 'c'.repeat(64);
    const refused = await cli(['emit', '--thread', TH_CLITEST, '--body', '{"namespace":"clitest"}']);
    expect(refused.stderr).to.contain('NAMESPACE_REJECTED').and.to.contain('loom namespace create clitest');
    const created = await cli(['namespace', 'create', 'clitest']);
    expect(created.code, created.stderr).to.equal(0);
    expect(created.stdout).to.match(/^namespace clitest created \(record [0-9a-f]{64}\)/);
    // Idempotent: a second create writes nothing and says so.
    const again = await cli(['namespace', 'create', 'clitest', '--json']);
    expect(again.code, again.stderr).to.equal(0);
    expect(JSON.parse(again.stdout)).to.deep.equal({ namespace: 'clitest', state: 'active', changed: false });
    expect((await cli(['emit', '--thread', TH_CLITEST, '--body', '{"namespace":"clitest"}'])).code).to.equal(0);
  });

  it('bootstrap is closed once the namespace has an account, and the saved token stays', async () => {
    const before = await savedToken();
    const again = await cli(['bootstrap']);
    expect(again.code).to.equal(1);
    expect(again.stderr).to.match(/^loom: BOOTSTRAP_CLOSED \(409\): /);
    expect(await savedToken()).to.deep.equal(before);
  });

  it('bootstrap of another namespace keeps a live saved token and prints the new one instead', async () => {
    const before = await savedToken();
    const other = await cli(['bootstrap', '--namespace', 'clitest', '--scopes', 'records:read,records:write', '--id', 'sa_clitest']);
    expect(other.code, other.stderr).to.equal(0);
    expect(other.stdout).to.contain('NOT saved');
    const token = /export LOOM_TOKEN='([^']+)'/.exec(other.stdout)?.[1];
    expect(token).to.match(/^loom_prod_sa_clitest_/);
    expect(await savedToken()).to.deep.equal(before);
    expect(await json(['whoami', '--token', token!])).to.include({ service_account_id: 'sa_clitest' });
  });

  it('sa create prints an api_key that works, and sa list shows the account', async () => {
    const created = await cli(['sa', 'create', 'worker', '--scopes', 'records:read']);
    expect(created.code, created.stderr).to.equal(0);
    const id = /^created (sa_\S+) "worker"/.exec(created.stdout)?.[1];
    const key = /api_key \(shown only now\): (\S+)/.exec(created.stdout)?.[1];
    expect(key).to.match(new RegExp(`^loom_prod_${id}_`));
    const me = await json(['whoami', '--token', key!]);
    expect(me).to.include({ service_account_id: id, is_authenticated: true });
    expect(me['scopes']).to.deep.equal(['records:read']);
    const list = await cli(['sa', 'list']);
    expect(list.stdout.split('\n')[0]).to.match(/^id\s+name\s+state\s+namespace\s+live tokens\s+scopes$/);
    expect(list.stdout).to.match(new RegExp(`${id}\\s+worker\\s+active\\s+default\\s+1\\s+records:read`));
  });

  it('sa rotate makes the old key fail and the new one work', async () => {
    const created = await json(['sa', 'create', 'rotating']);
    const rotated = await json(['sa', 'rotate', String(created['id'])]);
    expect(rotated).to.include({ object: 'service_account_key', id: created['id'] });
    const old = await cli(['whoami', '--token', String(created['api_key'])]);
    expect(old.code).to.equal(1);
    expect(old.stderr).to.match(/^loom: AUTH_REQUIRED \(401\): .*\[token from --token\]$/m);
    expect(await json(['whoami', '--token', String(rotated['api_key'])])).to.include({ service_account_id: created['id'] });
  });

  it('sa revoke makes the key fail', async () => {
    const created = await json(['sa', 'create', 'revoked']);
    expect(await json(['sa', 'revoke', String(created['id'])])).to.deep.equal({ object: 'service_account', id: created['id'], status: 'revoked' });
    const refused = await cli(['whoami', '--token', String(created['api_key'])]);
    expect(refused.code).to.equal(1);
    expect(refused.stderr).to.match(/^loom: AUTH_REQUIRED \(401\)/);
    const list = (await json(['sa', 'list'])) as { data: { id: string; active: boolean; live_tokens: number }[] };
    expect(list.data.find((a) => a.id === created['id'])).to.include({ active: false, live_tokens: 0 });
  });

  it('--token beats LOOM_TOKEN beats the config file', async () => {
    const good = await json(['sa', 'create', 'good']);
    const bad = await json(['sa', 'create', 'bad']);
    await json(['sa', 'revoke', String(bad['id'])]);
    const goodKey = String(good['api_key']);
    const badKey = String(bad['api_key']);
    // The flag wins over the environment, whichever of them is the good one.
    expect(await json(['whoami', '--token', goodKey], { LOOM_TOKEN: badKey })).to.include({ service_account_id: good['id'] });
    const flagBad = await cli(['whoami', '--token', badKey], { LOOM_TOKEN: goodKey });
    expect(flagBad.stderr).to.match(/^loom: AUTH_REQUIRED \(401\): .*\[token from --token\]/);
    // The environment wins over the saved (admin, live) token.
    expect(await json(['whoami'], { LOOM_TOKEN: goodKey })).to.include({ service_account_id: good['id'] });
    const envBad = await cli(['thread', 'list'], { LOOM_TOKEN: badKey });
    expect(envBad.code).to.equal(1);
    expect(envBad.stderr).to.match(/^loom: AUTH_REQUIRED \(401\): .*\[token from LOOM_TOKEN[\] ]/);
    // Neither given: the saved token.
    expect(await json(['whoami'])).to.include({ service_account_id: admin.service_account_id });
    // An empty --token is refused rather than silently replaced by another token.
    expect((await cli(['whoami', '--token', ''])).code).to.equal(2);
  });

  it('sa rotate --save replaces the saved token with the new key', async () => {
    const ops = await json(['sa', 'create', 'ops', '--scopes', 'admin']);
    const rotated = await json(['sa', 'rotate', String(ops['id']), '--save']);
    expect(rotated).to.include({ config_path: config });
    expect(await savedToken()).to.include({ token: rotated['api_key'], service_account_id: ops['id'] });
    expect((await stat(config)).mode & 0o777).to.equal(0o600);
    expect(await json(['whoami'])).to.include({ service_account_id: ops['id'] });
    expect((await cli(['thread', 'list'])).code).to.equal(0);
  });

  it('serve prints only JSON lines on stdout, the startup line for people on stderr, with the absolute data directory', () => {
    const lines = jsonLines.split('\n').filter((line) => line.trim() !== '');
    expect(lines.length).to.be.greaterThan(0);
    const parsed = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    const started = parsed.find((entry) => entry['data_dir'] !== undefined)!;
    expect(started['data_dir']).to.equal(join(root, 'data'));
    expect(output).to.contain(`data dir ${join(root, 'data')}`);
  });

  it('prints its version, and fails with the usage when given no command', async () => {
    const version = await cli(['--version']);
    expect(version.code).to.equal(0);
    expect(version.stdout).to.match(/^loom \d+\.\d+\.\d+\n$/);
    const none = await cli([]);
    expect(none.code).to.equal(2);
    expect(none.stderr).to.contain('no command given');
    expect(none.stderr).to.contain('usage: loom <command>');
  });

  it('every command answers --help with its usage', async () => {
    for (const args of [['--help'], ['serve', '--help'], ['bootstrap', '--help'], ['whoami', '--help'], ['sa', '--help'], ['sa', 'create', '--help'], ['emit', '--help'], ['thread', '--help'], ['thread', 'list', '--help'], ['query', '--help'], ['namespace', '--help'], ['doctor', '--help'], ['export', '--help'], ['backup', '--help']]) {
      const help = await cli(args);
      expect(help.code, `${args.join(' ')}: ${help.stderr}`).to.equal(0);
      expect(help.stdout, args.join(' ')).to.match(/loom /);
    }
    // Defaults are shown where they apply.
    expect((await cli(['emit', '--help'])).stdout).to.contain('--act KNOW').and.to.contain('did:sync:user:<your login name>');
    expect((await cli(['sa', 'list', 'extra'])).code).to.equal(2);
    expect((await cli(['sa', 'revoke', 'sa_x', '--scopes', 'admin'])).code).to.equal(2);
  });

  it('doctor checks the data directory, the configuration, the server and the token, and says what to do', async () => {
    const healthy = await cli(['doctor', '--data-dir', join(root, 'data'), '--json']);
    expect(healthy.code, healthy.stdout + healthy.stderr).to.equal(0);
    const report = JSON.parse(healthy.stdout) as { ok: boolean; checks: Array<{ check: string; outcome: string; detail: string }> };
    expect(report.ok).to.equal(true);
    const byName = Object.fromEntries(report.checks.map((c) => [c.check, c]));
    expect(byName['log']!.detail).to.contain('sqlite');
    expect(byName['server']!.outcome).to.equal('ok');
    expect(byName['identity']).to.include({ outcome: 'ok' });
    expect(byName['identity']!.detail).to.match(/^sa_\w+ with scopes /);
    const refused = await cli(['doctor', '--data-dir', join(root, 'data'), '--token', 'loom_prod_sa_nobody_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx']);
    expect(refused.code).to.equal(1);
    expect(refused.stdout).to.match(/FAIL {2}identity: the token was refused: AUTH_REQUIRED/);
    const down = await loom(['doctor', '--data-dir', join(root, 'nowhere')], 'http://127.0.0.1:9', config);
    expect(down.code).to.equal(1);
    expect(down.stdout).to.contain('warn  data directory:').and.to.contain('FAIL  server: cannot reach http://127.0.0.1:9').and.to.contain('→ start it with: loom serve');
  });

  it('shuts down cleanly on SIGTERM, logging structured lines', async () => {
    const exited = new Promise<number | null>((resolve) => server.once('exit', (code) => resolve(code)));
    server.kill('SIGTERM');
    expect(await exited).to.equal(0);
    const logs = jsonLines.split('\n').filter((line) => line.trim() !== '').map((line) => JSON.parse(line) as { msg: string });
    expect(logs.map((l) => l.msg)).to.include.members(['started', 'stopping', 'stopped']);
  });
});
