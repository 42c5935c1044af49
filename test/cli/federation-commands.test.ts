/**
 * `loom sync` and `loom consent` against two real servers with federation
 * (in-process, loopback HTTP): the built CLI runs as a child process. The
 * target pairs with the source through `loom sync add` (the peer token from a
 * file, never printed), replicates, and the pair is shown, paused, resumed,
 * kicked, measured and removed; consent grants are written as th_consent
 * records by `loom consent grant`, listed with the level they are served at,
 * and revoked. Refusals are one line on stderr with the server's code.
 */
import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { TH_CONSENT } from '../../core/records/reserved-threads.js';
import { bootstrapAdmin, createAccount } from '../helpers/auth.js';
import { get, newThread, postJson, recordInput, startServer, type StartedServer } from '../helpers/http-server.js';

const LOOM = fileURLToPath(new URL('../../bin/loom.js', import.meta.url));
const run = promisify(execFile);

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

describe('loom sync and loom consent commands', function () {
  this.timeout(90_000);
  let source: StartedServer;
  let target: StartedServer;
  let root: string;
  let sourceDid: string;
  /** A bearer of the source with the scopes a pulling peer needs. */
  let PEER_TOKEN: string;

  async function loom(url: string, args: string[], env: NodeJS.ProcessEnv = {}): Promise<Run> {
    const childEnv: NodeJS.ProcessEnv = { ...process.env, LOOM_CONFIG: join(root, 'config.json'), LOOM_ACTOR: 'did:sync:user:operator', ...env };
    delete childEnv['LOOM_URL'];
    delete childEnv['LOOM_TOKEN'];
    if (!('LOOM_PEER_TOKEN' in env)) delete childEnv['LOOM_PEER_TOKEN'];
    try {
      const { stdout, stderr } = await run(process.execPath, [LOOM, ...args, '--url', url], { env: childEnv });
      return { code: 0, stdout, stderr };
    } catch (error) {
      const e = error as { code: number; stdout: string; stderr: string };
      return { code: e.code, stdout: e.stdout, stderr: e.stderr };
    }
  }
  async function json(url: string, args: string[]): Promise<any> {
    const result = await loom(url, [...args, '--json']);
    expect(result.code, `loom ${args.join(' ')}: ${result.stderr}`).to.equal(0);
    return JSON.parse(result.stdout);
  }
  async function human(url: string, args: string[]): Promise<string> {
    const result = await loom(url, args);
    expect(result.code, `loom ${args.join(' ')}: ${result.stderr}`).to.equal(0);
    expect(result.stdout).not.to.match(/ +\n/);
    return result.stdout;
  }
  async function refused(url: string, args: string[], code: number, env: NodeJS.ProcessEnv = {}): Promise<string> {
    const result = await loom(url, args, env);
    expect(result.code, `loom ${args.join(' ')}: ${result.stdout}`).to.equal(code);
    expect(result.stderr).to.match(/^loom: /);
    expect(result.stderr).not.to.contain('    at ');
    return result.stderr;
  }
  async function until<T>(what: string, probe: () => Promise<T | null | undefined | false>): Promise<T> {
    for (let i = 0; i < 200; i++) {
      const value = await probe();
      if (value) return value;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(`timed out waiting for ${what}`);
  }

  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'loom-cli-federation-'));
    source = await startServer({ federation: {} });
    target = await startServer({ federation: {} });
    sourceDid = (await get(source.url, '/health')).json.instance_did;
    const admin = await bootstrapAdmin(source.url);
    PEER_TOKEN = (await createAccount(source.url, admin, 'peer', ['federation:sync', 'federation:subscribe', 'records:read'])).token;
  });
  after(async () => {
    await target?.stop();
    await source?.stop();
    await rm(root, { recursive: true, force: true });
  });

  it('sync add pairs the target with the source (token from a file, never printed); records replicate; show, pause, resume, kick, stats, health, rm', async () => {
    const thread = newThread('cli-sync');
    for (let clock = 0; clock < 25; clock++) expect((await postJson(source.url, '/v1/records', recordInput({ thread, clock, body: { n: clock } }))).status).to.equal(201);
    const tokenFile = join(root, 'peer-token');
    await writeFile(tokenFile, PEER_TOKEN + '\n', { mode: 0o600 });

    const added = await loom(target.url, ['sync', 'add', '--peer-did', sourceDid, '--peer-url', source.url, '--peer-token-file', tokenFile, '--thread', thread, '--mode', 'polling', '--poll-interval-ms', '50']);
    expect(added.code, added.stderr).to.equal(0);
    expect(added.stdout + added.stderr).not.to.contain(PEER_TOKEN);
    const id = /pair\s+(sp_[0-9a-f]{24})/.exec(added.stdout)![1]!;
    expect(added.stdout).to.match(/mode\s+polling every 50 ms/);

    await until('the 25 records on the target', async () => (await get(target.url, `/v1/threads/${thread}/records?limit=100`)).json.data?.length === 25);
    const shown = await json(target.url, ['sync', 'show', id]);
    expect(shown).to.include({ object: 'sync_pair', pair_id: id, peer_did: sourceDid, thread_id: thread, mode: 'polling' });
    expect(shown.cursor).to.be.a('string');
    expect(JSON.stringify(shown)).not.to.contain(PEER_TOKEN);

    const pairs = await json(target.url, ['sync', 'pairs']);
    expect(pairs.data.map((p: any) => p.pair_id)).to.deep.equal([id]);
    expect(await human(target.url, ['sync', 'pairs'])).to.match(new RegExp(`^pair .*\\n${id} `));

    expect(await human(target.url, ['sync', 'pause', id])).to.match(new RegExp(`^paused ${id} at cursor `));
    expect((await json(target.url, ['sync', 'show', id])).state).to.equal('paused');
    // While paused nothing is pulled; after resume the new record arrives.
    expect((await postJson(source.url, '/v1/records', recordInput({ thread, clock: 25, body: { n: 25 } }))).status).to.equal(201);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect((await get(target.url, `/v1/threads/${thread}/records?limit=100`)).json.data).to.have.length(25);
    expect(await human(target.url, ['sync', 'resume', id])).to.match(new RegExp(`^resumed ${id} from cursor `));
    await until('the 26th record', async () => (await get(target.url, `/v1/threads/${thread}/records?limit=100`)).json.data?.length === 26);
    expect(await human(target.url, ['sync', 'kick', id])).to.equal(`kicked ${id} (running)\n`);

    const stats = await json(target.url, ['sync', 'stats', id]);
    expect(stats).to.include({ object: 'sync_pair_stats', pair_id: id });
    expect(stats.counters.pulled).to.equal(26);
    expect(await human(target.url, ['sync', 'stats', id])).to.match(/totals\s+pulled 26/);
    const health = await json(target.url, ['sync', 'health']);
    expect(health).to.include({ object: 'sync_health', pairs_total: 1 });
    expect(await human(target.url, ['sync', 'health'])).to.match(/pairs\s+1 \(1 running, 0 failing, 0 paused\)/);

    expect(await human(target.url, ['sync', 'rm', id])).to.equal(`removed ${id}; records already pulled stay\n`);
    expect(await refused(target.url, ['sync', 'show', id], 1)).to.match(/PAIR_NOT_FOUND \(404\)/);
    expect((await get(target.url, `/v1/threads/${thread}/records?limit=100`)).json.data).to.have.length(26);
  });

  it('sync add takes the token from LOOM_PEER_TOKEN, and warns on stderr when the target pairs with itself', async () => {
    const targetDid = (await get(target.url, '/health')).json.instance_did;
    const result = await loom(target.url, ['sync', 'add', '--peer-did', targetDid, '--peer-url', target.url, '--mode', 'polling'], { LOOM_PEER_TOKEN: PEER_TOKEN });
    expect(result.code, result.stderr).to.equal(0);
    expect(result.stderr).to.match(/^loom: warning: .*own DID/);
    const id = /pair\s+(sp_[0-9a-f]{24})/.exec(result.stdout)![1]!;
    await json(target.url, ['sync', 'rm', id]);
  });

  it('sync refuses what it cannot send, naming the problem', async () => {
    expect(await refused(target.url, ['sync', 'add', '--peer-url', source.url, '--peer-token', PEER_TOKEN], 2)).to.match(/--peer-did is required/);
    expect(await refused(target.url, ['sync', 'add', '--peer-did', sourceDid, '--peer-url', source.url], 2)).to.match(/a peer token is required/);
    expect(await refused(target.url, ['sync', 'add', '--peer-did', sourceDid, '--peer-url', source.url, '--peer-token', PEER_TOKEN, '--mode', 'push'], 2)).to.match(/--mode must be one of/);
    expect(await refused(target.url, ['sync', 'add', '--peer-did', 'did:web:nope', '--peer-url', source.url, '--peer-token', PEER_TOKEN], 1)).to.match(/INVALID_SHAPE \(400\)/);
    expect(await refused(target.url, ['sync', 'show'], 2)).to.match(/takes one pair id/);
    expect(await refused(target.url, ['sync', 'pairs', '--thread', 'x'], 2)).to.match(/--thread applies to loom sync add only/);
    expect(await refused(target.url, ['sync', 'frobnicate'], 2)).to.match(/unknown subcommand/);
    expect(await refused(target.url, ['sync', 'stats', 'sp_000000000000000000000000'], 1)).to.match(/PAIR_NOT_FOUND \(404\)/);
  });

  it('consent grant writes a th_consent record, list shows it with the level it is served at, revoke ends it', async () => {
    const granted = await json(source.url, ['consent', 'grant', '--source', 'acme', '--target', 'partner', '--levels', 'L2,L3', '--purpose', 'weekly review', '--expires-in', '86400']);
    expect(granted).to.include({ thread: TH_CONSENT, act: 'LEARN', actor: 'did:sync:user:operator' });
    expect(granted.body).to.include({ kind: 'core.consent.grant.v1', source_namespace: 'acme', target_namespace: 'partner', purpose: 'weekly review' });
    expect(granted.body.hash_levels).to.deep.equal(['L2', 'L3']);
    expect(Date.parse(granted.body.expires_at) - Date.now()).to.be.within(86_300_000, 86_400_000);

    // L0 one-sided is served at the strongest level below it; the human list says why.
    const exact = await json(source.url, ['consent', 'grant', '--source', 'beta', '--target', 'partner', '--levels', 'L0,L1']);
    let list = await json(source.url, ['consent', 'list']);
    const byId = new Map(list.data.map((g: any) => [g.id, g]));
    expect(byId.get(granted.id)).to.include({ served_level: 'L2', two_sided: false, purpose: 'weekly review' });
    expect(byId.get(exact.id)).to.include({ served_level: 'L1', two_sided: false });
    expect(await human(source.url, ['consent', 'list'])).to.contain('L1 (L0 needs a grant back)');

    // The grant back makes L0 two-sided.
    await json(source.url, ['consent', 'grant', '--source', 'partner', '--target', 'beta', '--levels', 'L0']);
    list = await json(source.url, ['consent', 'list']);
    expect(list.data.find((g: any) => g.id === exact.id)).to.include({ served_level: 'L0', two_sided: true });

    expect(await human(source.url, ['consent', 'revoke', granted.id])).to.match(new RegExp(`^revoked ${granted.id} \\(record `));
    list = await json(source.url, ['consent', 'list']);
    expect(list.data.map((g: any) => g.id)).not.to.include(granted.id);
    expect(list.data).to.have.length(2);
  });

  it('consent refuses a malformed grant before and at the server', async () => {
    expect(await refused(source.url, ['consent', 'grant', '--target', 'partner'], 2)).to.match(/--source is required/);
    expect(await refused(source.url, ['consent', 'grant', '--source', 'acme', '--target', 'partner', '--levels', 'L5'], 2)).to.match(/--levels must list L0, L1, L2, L3/);
    expect(await refused(source.url, ['consent', 'grant', '--source', 'acme', '--target', 'acme'], 2)).to.match(/the same namespace/);
    expect(await refused(source.url, ['consent', 'grant', '--source', 'acme', '--target', 'partner', '--expires-at', 'soon'], 2)).to.match(/--expires-at must be an ISO 8601 time/);
    expect(await refused(source.url, ['consent', 'grant', '--source', 'Not A Namespace!', '--target', 'partner'], 1)).to.match(/^loom: \w+ \(4\d\d\): .*source_namespace/);
    expect(await refused(source.url, ['consent', 'revoke', 'not-a-record-id'], 1)).to.match(/body\.grant/);
    expect(await refused(source.url, ['consent', 'list', '--levels', 'L1'], 2)).to.match(/--levels applies to loom consent grant only/);
  });

  it('a server without federation: the commands say how to turn it on', async () => {
    const plain = await startServer();
    try {
      expect(await refused(plain.url, ['sync', 'pairs'], 1)).to.contain('federation is off').and.to.contain('loom serve --federation');
      expect(await refused(plain.url, ['consent', 'list'], 1)).to.contain('loom serve --federation');
    } finally {
      await plain.stop();
    }
  });
});
