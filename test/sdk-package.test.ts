/**
 * The SDK from another project, as its user meets it: `npm pack` this
 * package, install the tarball into a scratch project outside the checkout,
 * and run the README's SDK example there (it imports
 * `@loom-ledger/server/sdk`) against a live server; the `loom` binary comes
 * with it. The scratch project gets a lockfile naming the very versions this
 * checkout's lockfile pins (its runtime entries), so `npm ci --prefer-offline`
 * takes every tarball from the npm cache the checkout's own install filled
 * and asks the registry only for what the cache lacks. Install scripts are
 * skipped: a client of the SDK needs no native module built.
 */
import { execFile } from 'node:child_process';
import { copyFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { LOOM_PACKAGE_NAME, LOOM_VERSION } from '../core/server/version.js';
import { bootstrapAdmin, type Credential } from './helpers/auth.js';
import { startServer, type StartedServer } from './helpers/start-server.js';

const run = promisify(execFile);
const ROOT = resolve(fileURLToPath(new URL('.', import.meta.url)), '../..');
const NPM_ENV = { ...process.env, npm_config_audit: 'false', npm_config_fund: 'false', npm_config_update_notifier: 'false', npm_config_loglevel: 'error' };

interface LockEntry {
  dev?: boolean;
  link?: boolean;
  [key: string]: unknown;
}

/** A lockfile for a project depending only on the tarball: the tarball's entry plus this checkout's runtime entries. */
async function consumerLock(tarball: string): Promise<{ pkg: object; lock: object }> {
  const own = JSON.parse(await readFile(join(ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, LockEntry> };
  const root = own.packages['']!;
  const spec = `file:${tarball}`;
  const packages: Record<string, unknown> = {
    '': { name: 'sdk-consumer', dependencies: { [LOOM_PACKAGE_NAME]: spec } },
    [`node_modules/${LOOM_PACKAGE_NAME}`]: {
      version: root['version'],
      resolved: spec,
      license: root['license'],
      dependencies: root['dependencies'],
      optionalDependencies: root['optionalDependencies'],
      engines: root['engines'],
      bin: root['bin'],
    },
  };
  for (const [path, entry] of Object.entries(own.packages)) if (path !== '' && !entry.dev && !entry.link) packages[path] = entry;
  return {
    pkg: { name: 'sdk-consumer', private: true, type: 'module', dependencies: { [LOOM_PACKAGE_NAME]: spec } },
    lock: { name: 'sdk-consumer', lockfileVersion: 3, requires: true, packages },
  };
}

describe('the SDK from another project (npm pack → npm ci → live server)', function () {
  this.timeout(300_000);
  let server: StartedServer;
  let admin: Credential;
  let scratch: string;

  before(async () => {
    scratch = await mkdtemp(join(tmpdir(), 'loom-sdk-consumer-'));
    server = await startServer({ auth: { required: true } });
    admin = await bootstrapAdmin(server.url);
  });
  after(async () => {
    await server?.stop();
    if (scratch) await rm(scratch, { recursive: true, force: true });
  });

  it('installs the packed tarball and runs the README SDK example against the server', async () => {
    // --ignore-scripts: `prepare` (the build) already ran for the suite; dist/ is what gets packed.
    const packed = await run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', scratch], { cwd: ROOT, env: NPM_ENV, maxBuffer: 64 * 1024 * 1024 });
    const [{ filename, files }] = JSON.parse(packed.stdout) as Array<{ filename: string; files: Array<{ path: string }> }>;
    expect(filename).to.equal(`loom-ledger-server-${LOOM_VERSION}.tgz`);
    const paths = files.map((file) => file.path);
    expect(paths).to.include.members(['package.json', 'dist/sdk/index.js', 'dist/sdk/index.d.ts', 'dist/bin/loom.js', 'openapi/loom.openapi.json']);
    expect(paths.filter((path) => /\.test\.js$/.test(path))).to.deep.equal([]);

    const project = join(scratch, 'app');
    await run('mkdir', ['-p', project]);
    const { pkg, lock } = await consumerLock(join(scratch, filename));
    await writeFile(join(project, 'package.json'), JSON.stringify(pkg, null, 2));
    await writeFile(join(project, 'package-lock.json'), JSON.stringify(lock, null, 2));
    await run('npm', ['ci', '--prefer-offline', '--ignore-scripts', '--omit=optional', '--omit=dev'], { cwd: project, env: NPM_ENV, maxBuffer: 64 * 1024 * 1024 });

    await copyFile(join(ROOT, 'examples/sdk-client/client.mjs'), join(project, 'client.mjs'));
    const { stdout } = await run(process.execPath, ['client.mjs'], { cwd: project, env: { ...process.env, LOOM_URL: server.url, LOOM_TOKEN: admin.token } });
    const lines = stdout.trim().split('\n');
    expect(lines[0]).to.equal('201 true');
    expect(stdout).to.contain("'did:sync:user:alice': 0");
    expect(lines[lines.length - 1]).to.equal('1');

    // The package resolved is the installed copy, not this checkout.
    const where = await run(process.execPath, ['--input-type=module', '-e', `console.log(import.meta.resolve('${LOOM_PACKAGE_NAME}/sdk'))`], { cwd: project });
    expect(where.stdout.trim()).to.equal(`file://${join(project, 'node_modules', LOOM_PACKAGE_NAME, 'dist/sdk/index.js')}`);
    // The binary keeps its name.
    const version = await run(join(project, 'node_modules/.bin/loom'), ['--version'], { cwd: project });
    expect(version.stdout.trim()).to.equal(`loom ${LOOM_VERSION}`);
  });
});
