/**
 * The package's root export, as an embedder meets it: it loads on its own
 * (no `import 'reflect-metadata'` first), and composes with only the driver
 * and plugins the embedder names.
 */
import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../core/index.js', import.meta.url));
const SQLITE = fileURLToPath(new URL('../storage/sqlite/index.js', import.meta.url));
const LEDGER = fileURLToPath(new URL('../plugins/ledger/index.js', import.meta.url));

describe('root export', function () {
  this.timeout(30_000);

  it('imports and composes in a fresh process without the reflect polyfill imported first', async () => {
    const script = `
      const loom = await import(${JSON.stringify(ROOT)});
      const { SqliteRecordStore } = await import(${JSON.stringify(SQLITE)});
      const { ledgerPlugin } = await import(${JSON.stringify(LEDGER)});
      const { mkdtemp, rm } = await import('node:fs/promises');
      const { join } = await import('node:path');
      const { tmpdir } = await import('node:os');
      const dir = await mkdtemp(join(tmpdir(), 'loom-root-'));
      const app = await loom.createLoom({ store: new SqliteRecordStore({ path: join(dir, 'db.sqlite') }), plugins: [ledgerPlugin], port: 0, logger: loom.silentLogger });
      const url = await app.start();
      const health = await (await fetch(url + '/health')).json();
      await app.stop();
      await rm(dir, { recursive: true, force: true });
      console.log(JSON.stringify({ status: health.status, plugins: app.plugins, exports: ['createLoom', 'RecordReader', 'LOCAL', 'covers'].filter((n) => n in loom) }));
    `;
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script]);
    expect(JSON.parse(stdout.trim())).to.deep.equal({ status: 'ok', plugins: ['ledger'], exports: ['createLoom', 'RecordReader', 'LOCAL', 'covers'] });
  });

  it('loom/server (the reference composition) also loads on its own', async () => {
    const server = fileURLToPath(new URL('../server/reference-loom.js', import.meta.url));
    const script = `const m = await import(${JSON.stringify(server)}); console.log(typeof m.createReferenceLoom);`;
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script]);
    expect(stdout.trim()).to.equal('function');
  });
});
