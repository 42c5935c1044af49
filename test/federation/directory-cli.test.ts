/**
 * `loom directory` as a user runs it: keygen, genesis and update signed from
 * key files and submitted, the operations export fetched, then `verify`
 * offline: it prints the served did.json byte for byte, `--expect` matches,
 * and a tampered export fails naming the operation (exit 1, --json too).
 */
import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { TH_ENGINE_CONFIG } from '../../core/records/reserved-threads.js';
import { LOOM_CLI } from '../helpers/cli-run.js';
import { get, postJson, startServer, type StartedServer } from '../helpers/http-server.js';

const exec = promisify(execFile);

async function loom(args: readonly string[], dir: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const env: NodeJS.ProcessEnv = { ...process.env, LOOM_CONFIG: join(dir, 'config.json') };
  delete env['LOOM_URL'];
  delete env['LOOM_TOKEN'];
  try {
    const { stdout, stderr } = await exec(process.execPath, [LOOM_CLI, ...args], { env });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

describe('loom directory (CLI)', function () {
  this.timeout(60_000);
  let server: StartedServer;
  let dir: string;

  before(async () => {
    server = await startServer({ federation: {} });
    dir = await mkdtemp(join(tmpdir(), 'loom-directory-cli-'));
    const on = await postJson(server.url, '/v1/records', { thread: TH_ENGINE_CONFIG, actor: 'did:sync:user:operator', act: 'LEARN', body: { topic: 'directory_enabled', enabled: true }, clock: 0, data_type: 'SCALAR', parents: [] });
    expect(on.status, on.text).to.equal(201);
  });
  after(async () => {
    await server?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('keygen, genesis --submit, update --submit, then verify reproduces did.json byte for byte', async () => {
    const keyFile = join(dir, 'alice.key');
    const made = await loom(['directory', 'keygen', keyFile, '--json'], dir);
    expect(made.code, made.stderr).to.equal(0);
    const keyDid = JSON.parse(made.stdout).did as string;
    const genesis = await loom(['directory', 'genesis', '--key', keyFile, '--handle', 'alice.example', '--services', 'loom=LoomInstance=https://alice.example/loom', '--submit', '--json', '--url', server.url], dir);
    expect(genesis.code, genesis.stderr).to.equal(0);
    const did = JSON.parse(genesis.stdout).did as string;
    const update = await loom(['directory', 'update', did, '--key', keyFile, '--methods', `signing=${keyDid}`, '--handle', 'alice2.example', '--submit', '--url', server.url], dir);
    expect(update.code, update.stderr).to.equal(0);
    expect(update.stdout).to.match(/: active, head [0-9a-f]{64}/);

    const suffix = did.slice('did:sync:'.length);
    const ops = await get(server.url, `/directory/${suffix}/operations`);
    const served = await get(server.url, `/directory/${suffix}/did.json`);
    const opsFile = join(dir, 'operations.json');
    const docFile = join(dir, 'did.json');
    await writeFile(opsFile, ops.text);
    await writeFile(docFile, served.text);

    const printed = await loom(['directory', 'verify', opsFile], dir);
    expect(printed.code, printed.stderr).to.equal(0);
    expect(printed.stdout).to.equal(served.text + '\n');
    const compared = await loom(['directory', 'verify', opsFile, '--expect', docFile], dir);
    expect(compared.code, compared.stderr).to.equal(0);
    expect(compared.stdout).to.contain('matches byte for byte');

    // One changed byte in the second operation: exit 1, the operation named.
    const tampered = JSON.parse(ops.text);
    tampered.operations[1].operation.handle = 'mallory.example';
    await writeFile(opsFile, JSON.stringify(tampered));
    const failed = await loom(['directory', 'verify', opsFile, '--expect', docFile], dir);
    expect(failed.code).to.equal(1);
    expect(failed.stderr).to.match(/^verification failed at operation 1 \([0-9a-f]{64}\): DIRECTORY_SIGNATURE_INVALID/);
    const asJson = await loom(['directory', 'verify', opsFile, '--json'], dir);
    expect(asJson.code).to.equal(1);
    expect(JSON.parse(asJson.stdout)).to.deep.include({ ok: false, failure: JSON.parse(asJson.stdout).failure });
    expect(JSON.parse(asJson.stdout).failure).to.include({ index: 1, code: 'DIRECTORY_SIGNATURE_INVALID' });

    // A document that is not the one the operations give.
    await writeFile(opsFile, ops.text);
    await writeFile(docFile, served.text.replace('alice2', 'alice3'));
    const mismatch = await loom(['directory', 'verify', opsFile, '--expect', docFile], dir);
    expect(mismatch.code).to.equal(1);
    expect(mismatch.stderr).to.contain('differs from the document the operations give');
  });

  it('revoke --submit is terminal; verify reports the revoked state', async () => {
    const keyFile = join(dir, 'bob.key');
    expect((await loom(['directory', 'keygen', keyFile], dir)).code).to.equal(0);
    const genesis = await loom(['directory', 'genesis', '--key', keyFile, '--submit', '--json', '--url', server.url], dir);
    const did = JSON.parse(genesis.stdout).did as string;
    const revoked = await loom(['directory', 'revoke', did, '--key', keyFile, '--submit', '--url', server.url], dir);
    expect(revoked.code, revoked.stderr).to.equal(0);
    expect(revoked.stdout).to.contain('revoked');
    const again = await loom(['directory', 'revoke', did, '--key', keyFile, '--prev', 'a'.repeat(64), '--submit', '--url', server.url], dir);
    expect(again.code).to.not.equal(0);
    expect(again.stderr).to.contain('DIRECTORY_REVOKED');
    const opsFile = join(dir, 'bob-operations.json');
    await writeFile(opsFile, (await get(server.url, `/directory/${did.slice(9)}/operations`)).text);
    const verified = await loom(['directory', 'verify', opsFile], dir);
    expect(verified.code).to.equal(0);
    expect(verified.stdout).to.contain('revoked (no document)');
  });
});
