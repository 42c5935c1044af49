/**
 * `loom fleet` and `loom engine` against a real server with auth required:
 * the built CLI runs as a child process with the admin's token (LOOM_TOKEN),
 * as an operator would use it in an incident: freeze, look, thaw; engage
 * and clear the emergency stop; read the engine's health.
 */
import { expect } from 'chai';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bearer, bootstrapAdmin, createAccount, type Credential } from '../helpers/auth.js';
import { recordInput, request } from '../helpers/http-server.js';
import { runLoom, type CliRun } from '../helpers/cli-run.js';
import { startServer, type StartedServer } from '../helpers/start-server.js';


type Run = CliRun;

describe('loom fleet and loom engine commands', function () {
  this.timeout(60_000);
  let server: StartedServer;
  let admin: Credential;
  let reader: Credential;
  let root: string;
  let config: string;

  /** Runs the CLI with --url and an empty config file; the token is LOOM_TOKEN (the admin's unless given). */
  function loom(args: string[], token: string = admin.token): Promise<Run> {
    return runLoom(args, { url: server.url, config, token });
  }
  async function json(args: string[], token?: string): Promise<Record<string, any>> {
    const result = await loom([...args, '--json'], token);
    expect(result.code, `loom ${args.join(' ')}: ${result.stderr}`).to.equal(0);
    return JSON.parse(result.stdout) as Record<string, any>;
  }
  async function human(args: string[], token?: string): Promise<string> {
    const result = await loom(args, token);
    expect(result.code, `loom ${args.join(' ')}: ${result.stderr}`).to.equal(0);
    return result.stdout;
  }

  before(async () => {
    // A 1 s heartbeat keeps the instance live (3 s) across CLI runs that take a few hundred ms each.
    server = await startServer({ auth: { required: true }, fleet: { heartbeat: true, heartbeatIntervalMs: 1000 } });
    admin = await bootstrapAdmin(server.url);
    reader = await createAccount(server.url, admin, 'reader', ['records:read', 'records:write', 'config:read']);
    root = await mkdtemp(join(tmpdir(), 'loom-fleet-cli-'));
    config = join(root, 'config.json');
  });

  after(async () => {
    await server?.stop();
    if (root) await rm(root, { recursive: true, force: true });
  });

  it('fleet freeze writes a freeze; fleet status shows it with the instances; fleet thaw lifts it', async () => {
    const frozen = await json(['fleet', 'freeze', 'acme', '--reason', 'cli drill']);
    expect(frozen).to.include({ object: 'fleet_control', changed: true });
    expect(frozen.record).to.include({ thread: 'th_fleet_control', act: 'LEARN', actor: admin.did });
    expect(frozen.record.body).to.include({ kind: 'core.fleet.freeze.v1', target_namespace: 'acme', level: 'soft', reason: 'cli drill' });
    expect(await human(['fleet', 'freeze', 'acme'])).to.equal('acme is already frozen (soft): nothing written\n');

    const hard = await human(['fleet', 'freeze', 'web', '--hard', '--grace', '30']);
    expect(hard).to.match(/^froze web \(hard, record [0-9a-f]{12}…\): no new INTEND, DO or CALL there, and no write at all from \d{4}-\d\d-\d\dT/);
    expect(hard).to.contain('thaw with: loom fleet thaw web');

    const status = await json(['fleet', 'status']);
    expect(status).to.include({ object: 'fleet', emergency: null });
    expect(status.freezes.map((f: { namespace: string; level: string }) => [f.namespace, f.level])).to.have.deep.members([
      ['acme', 'soft'],
      ['web', 'hard'],
    ]);
    const web = status.freezes.find((f: { namespace: string }) => f.namespace === 'web');
    expect(Date.parse(web.hard_after) - Date.parse(web.since)).to.equal(30_000);
    expect(status.instances.map((i: { instance_did: string }) => i.instance_did)).to.include(server.loom.info.instanceDid);

    const text = await human(['fleet', 'status']);
    expect(text).to.match(/^emergency stop: off\n/);
    expect(text).to.match(/\nfreezes:\nnamespace\s+level\s+state\s+since\s+reason\n/);
    expect(text).to.match(/\nacme\s+soft\s+work refused\s+\S+\s+cli drill\n/);
    expect(text).to.match(/\nweb\s+hard\s+grace until \S+\s+\S+\s+-\n/);
    expect(text).to.match(/\ninstances:\ninstance\s+live\s+age\s+version\s+health\s+uptime\s+dispatches\s+endpoint\n/);
    expect(text).to.match(new RegExp(`\\n${server.loom.info.instanceDid}\\s+yes\\s+\\d+s\\s+${server.loom.info.version.replace(/\./g, '\\.')}\\s+ok\\s`));

    // The freeze is in force: a DO in acme is refused with the thaw command.
    await declareAcme();
    const refused = await request(server.url, 'POST', '/v1/records', { json: recordInput({ actor: admin.did, body: { namespace: 'acme' } }), headers: bearer(admin) });
    expect(refused.status).to.equal(403);
    expect(refused.json.message).to.contain('loom fleet thaw acme');

    expect(await human(['fleet', 'thaw', 'acme', '--reason', 'over'])).to.match(/^thawed acme \(record [0-9a-f]{12}…\)\n$/);
    expect(await human(['fleet', 'thaw', 'acme'])).to.equal('acme is not frozen: nothing written\n');
    expect((await json(['fleet', 'thaw', 'web'])).changed).to.equal(true);
    expect((await json(['fleet', 'status'])).freezes).to.deep.equal([]);
    expect(await human(['fleet', 'status'])).to.contain('\nfreezes: none\n');
  });

  async function declareAcme(): Promise<void> {
    const answer = await request(server.url, 'POST', '/v1/records', {
      json: recordInput({ thread: 'th_namespace_registry', act: 'LEARN', actor: admin.did, body: { namespace_id: 'acme' } }),
      headers: bearer(admin),
    });
    expect(answer.status, answer.text).to.equal(201);
  }

  it('fleet emergency engages the stop; fleet status shows it; --clear lifts it', async () => {
    const engaged = await human(['fleet', 'emergency', '--reason', 'cli drill']);
    expect(engaged).to.match(/^emergency stop ENGAGED \(record [0-9a-f]{12}…\): no dispatch and no new INTEND, DO or CALL anywhere\n/);
    expect(engaged).to.contain('clear with: loom fleet emergency --clear');
    expect(await json(['fleet', 'emergency'])).to.deep.equal({ object: 'fleet_control', changed: false, record: null });

    const status = await json(['fleet', 'status']);
    expect(status.emergency).to.include({ reason: 'cli drill' });
    expect(await human(['fleet', 'status'])).to.match(/^emergency stop: ACTIVE since \S+ \(cli drill\); clear with: loom fleet emergency --clear\n/);
    const refused = await request(server.url, 'POST', '/v1/records', { json: recordInput({ actor: admin.did }), headers: bearer(admin) });
    expect(refused.status).to.equal(403);

    const cleared = await json(['fleet', 'emergency', '--clear', '--reason', 'done']);
    expect(cleared.changed).to.equal(true);
    expect(cleared.record.body).to.include({ kind: 'core.fleet.emergency.v1', active: false, reason: 'done' });
    expect((await json(['fleet', 'status'])).emergency).to.equal(null);
    expect(await human(['fleet', 'status'])).to.match(/^emergency stop: off\n/);
    expect(await human(['fleet', 'emergency', '--clear'])).to.equal('the emergency stop is not engaged: nothing written\n');
    expect((await request(server.url, 'POST', '/v1/records', { json: recordInput({ actor: admin.did }), headers: bearer(admin) })).status).to.equal(201);
  });

  it('engine health --json is the server\'s answer; without --json a summary of every part', async () => {
    const health = await json(['engine', 'health']);
    expect(health.object).to.equal('engine_health');
    expect(health.reconcile).to.include({ concurrency: 4, queue_capacity: 256 });
    expect(health).to.have.all.keys('object', 'status', 'uptime_secs', 'reconcile', 'tick', 'cron', 'triggers', 'permissions', 'routing', 'expression_cache', 'errors');

    const text = await human(['engine', 'health']);
    const lines = text.trimEnd().split('\n');
    expect(lines.map((line) => line.slice(0, line.indexOf(':')))).to.deep.equal(['engine', 'reconcile', 'tick', 'cron', 'triggers', 'permissions', 'routing', 'expression cache', 'errors']);
    expect(lines[0]).to.match(/^engine: (ok|degraded), up \d+s$/);
    expect(lines[1]).to.match(/^reconcile: queue \d+\/256 \(max \d+\), in flight \d+\/4 \(max \d+\); considered \d+, .*held \d+.*checkpoint \d+$/);
    expect(lines[3]).to.contain('rules.store-optimise (hourly');
    expect(lines[4]).to.match(/^triggers: \d+ loaded, \d+ firings; suppressed: cooldown \d+, max_concurrent \d+, causal_chain \d+, held \d+$/);
    expect(lines[5]).to.match(/^permissions: not enforced, \d+ rules, \d+ denials, \d+ evaluation errors$/);
    expect(lines[7]).to.match(/^expression cache: [\d.]+% hit rate \(\d+ hits, \d+ misses, \d+ compile errors\), \d+\/1024 entries/);
  });

  it('a reader can look but not control: the server\'s refusal, exit 1', async () => {
    expect((await json(['fleet', 'status'], reader.token)).object).to.equal('fleet');
    expect((await json(['engine', 'health'], reader.token)).object).to.equal('engine_health');
    for (const args of [['fleet', 'freeze', 'acme'], ['fleet', 'thaw', 'acme'], ['fleet', 'emergency']]) {
      const refused = await loom(args, reader.token);
      expect(refused.code, args.join(' ')).to.equal(1);
      expect(refused.stderr, args.join(' ')).to.match(/^loom: SCOPE_FORBIDDEN \(403\): /);
      expect(refused.stderr).to.not.contain('    at ');
    }
    const bad = await loom(['fleet', 'freeze', 'Not A Namespace']);
    expect(bad.code).to.equal(1);
    expect(bad.stderr).to.match(/^loom: INVALID_SHAPE \(400\): .*target_namespace/);
  });

  it('usage errors exit 2 before any request; every command answers --help with its usage', async () => {
    const usage = await Promise.all([
      loom(['fleet', 'freeze']),
      loom(['fleet', 'freeze', 'a', 'b']),
      loom(['fleet', 'freeze', 'acme', '--grace', '5']),
      loom(['fleet', 'freeze', 'acme', '--hard', '--grace=-1']),
      loom(['fleet', 'freeze', 'acme', '--hard', '--grace', '86401']),
      loom(['fleet', 'thaw', 'acme', '--hard']),
      loom(['fleet', 'emergency', 'now']),
      loom(['fleet', 'status', '--clear']),
      loom(['fleet', 'melt']),
      loom(['fleet']),
      loom(['engine']),
      loom(['engine', 'health', 'now']),
      loom(['engine', 'health', '--reason', 'x']),
    ]);
    expect(usage.map((r) => r.code)).to.deep.equal(usage.map(() => 2));
    expect(usage[2]!.stderr).to.contain('--grace applies to hard freezes only');
    expect(usage[5]!.stderr).to.contain('--hard applies to loom fleet freeze only');
    expect((await json(['fleet', 'status'])).freezes).to.deep.equal([]);

    const all = [['fleet', '--help'], ['fleet', 'freeze', '--help'], ['fleet', 'status', '-h'], ['fleet', 'help'], ['engine', '--help'], ['engine', 'health', '--help']];
    const helps = await Promise.all(all.map((args) => loom(args)));
    helps.forEach((help, i) => {
      expect(help.code, `${all[i]!.join(' ')}: ${help.stderr}`).to.equal(0);
      expect(help.stdout, all[i]!.join(' ')).to.match(/^loom (fleet|engine) /);
    });
    const fleetHelp = helps[0]!.stdout;
    for (const option of ['--hard', '--grace <secs>', '--reason <text>', '--clear', '--json', '--url', '--token']) expect(fleetHelp).to.contain(option);
    for (const sub of ['status', 'freeze <namespace>', 'thaw <namespace>', 'emergency']) expect(fleetHelp).to.contain(`loom fleet ${sub}`);
    expect(helps[4]!.stdout).to.contain('loom engine health [--url …] [--token …] [--json]');

    const top = await loom(['--help']);
    expect(top.stdout).to.contain('loom fleet freeze <namespace>').and.to.contain('loom engine health');
  });
});
