/**
 * The console plugin serves the built console (dist/console/, written by
 * `npm run build`) at /console/ as a static site: a strict CSP on every
 * answer, hashed assets cached `immutable`, the entry page revalidated, any
 * other path under /console/ answered with the entry page (client-side
 * routes), a stale hash 404, and no route added to the router (the API's
 * operations stay exactly the OpenAPI document's).
 */
import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { readdir } from 'node:fs/promises';
import { CONSOLE_BUILD_DIR, CONSOLE_CSP, consoleBuilt } from '../../plugins/console/index.js';
import { definePlugin } from '../../core/plugin/plugin.js';
import { startServer, type StartedServer } from '../helpers/http-server.js';

/** Test 6 of issue 39: the console's assets, gzipped, in total. */
const ASSET_BUDGET_GZIP = 150 * 1024;

describe('console plugin: /console/ (HTTP)', () => {
  let server: StartedServer;
  before(async function () {
    if (!consoleBuilt()) throw new Error('dist/console is missing: npm run build builds the console');
    server = await startServer();
  });
  after(async () => server?.stop());

  const get = (path: string, init: RequestInit = {}) => fetch(server.url + path, { redirect: 'manual', ...init });

  it('answers the entry page with the CSP, no-cache, and only same-origin hashed assets', async () => {
    const answer = await get('/console/');
    expect(answer.status).to.equal(200);
    expect(answer.headers.get('content-type')).to.match(/^text\/html/);
    expect(answer.headers.get('content-security-policy')).to.equal(CONSOLE_CSP);
    expect(answer.headers.get('content-security-policy')).to.match(/default-src 'self'/);
    expect(answer.headers.get('cache-control')).to.equal('no-cache');
    expect(answer.headers.get('x-content-type-options')).to.equal('nosniff');
    const html = await answer.text();
    expect(html).to.not.match(/<script(?![^>]*\bsrc=)[^>]*>/, 'no inline script');
    expect(html).to.not.match(/<style/, 'no inline style');
    const urls = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((match) => match[1]!);
    // The entry script, the stylesheet, and the chunks the entry imports (modulepreload).
    expect(urls.length).to.be.at.least(2);
    for (const url of urls) expect(url).to.match(/^\/console\/assets\/[a-z]+-[A-Z0-9]{8}\.(js|css)$/);
  });

  it('serves hashed assets immutable, compressed, within 150 KB gzip in total', async () => {
    // Every file the build wrote, the chunks loaded on a view's first visit included.
    const files = await readdir(join(CONSOLE_BUILD_DIR, 'assets'));
    expect(files.filter((file) => file.endsWith('.js')).length).to.be.at.least(2);
    let total = 0;
    for (const url of files.map((file) => `/console/assets/${file}`)) {
      const answer = await get(url!, { headers: { 'accept-encoding': 'gzip' } });
      expect(answer.status, url).to.equal(200);
      expect(answer.headers.get('cache-control')).to.equal('public, max-age=31536000, immutable');
      expect(answer.headers.get('content-security-policy')).to.equal(CONSOLE_CSP);
      expect(answer.headers.get('content-type')).to.match(url!.endsWith('.js') ? /^text\/javascript/ : /^text\/css/);
      // fetch decodes gzip itself: measure the gzipped size independently of whether hapi compressed.
      const bytes = Buffer.from(await answer.arrayBuffer());
      total += gzipSync(bytes, { level: 9 }).length;
    }
    console.log(`      console assets: ${(total / 1024).toFixed(1)} KB gzip`);
    expect(total).to.be.at.most(ASSET_BUDGET_GZIP);
  });

  it('answers the entry page for client-side routes and redirects /console to /console/', async () => {
    for (const path of ['/console/threads', '/console/threads/th_x/whatever', '/console/records/abc?x=1', '/console/invite']) {
      const answer = await get(path);
      expect(answer.status, path).to.equal(200);
      expect(answer.headers.get('content-type'), path).to.match(/^text\/html/);
      expect(answer.headers.get('content-security-policy'), path).to.equal(CONSOLE_CSP);
    }
    const bare = await get('/console');
    expect(bare.status).to.equal(302);
    expect(bare.headers.get('location')).to.equal('/console/');
  });

  it('refuses a stale asset, a traversal and a write with the API envelope, never the page', async () => {
    for (const path of ['/console/assets/main-AAAAAAAA.js', '/console/assets/..%2findex.html']) {
      const answer = await get(path);
      expect(answer.status, path).to.equal(404);
      expect(((await answer.json()) as { code: string }).code).to.equal('NOT_FOUND');
    }
    const traversal = await get('/console/%2e%2e/%2e%2e/package.json');
    expect(await traversal.text()).to.not.include('"dependencies"');
    const post = await get('/console/', { method: 'POST' });
    expect(post.status).to.equal(404);
  });

  it('adds no route: the router holds only declared API operations', () => {
    const paths = server.loom.server.table().map((route) => route.path);
    expect(paths.filter((path) => path.startsWith('/console'))).to.deep.equal([]);
  });

  it('refuses a second site on the same prefix, and one under /v1', async () => {
    for (const prefix of ['/console', '/console/more', '/v1/ui']) {
      const squatter = definePlugin({
        name: 'squatter',
        version: '1.0.0',
        register(scope) {
          scope.staticSite({ prefix, root: CONSOLE_BUILD_DIR, fallback: 'index.html', assets: 'assets', headers: {} });
        },
      });
      let refused: unknown = null;
      try {
        const extra = await startServer({ plugins: [squatter], ...(prefix === '/v1/ui' ? { console: false } : {}) });
        await extra.stop();
      } catch (error) {
        refused = error;
      }
      expect(String(refused), prefix).to.match(/static site prefix/);
    }
  });

  it('loom serve prints the console URL at start, and the URL answers the console', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'loom-console-serve-'));
    const bin = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'bin', 'loom.js');
    const child = spawn(process.execPath, [bin, 'serve', '--port', '0', '--data-dir', dataDir], { stdio: ['ignore', 'ignore', 'pipe'] });
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let text = '';
        const timer = setTimeout(() => reject(new Error(`no console line in: ${text}`)), 20_000);
        child.stderr.on('data', (chunk: Buffer) => {
          text += chunk.toString();
          const found = /^console: (http:\/\/127\.0\.0\.1:\d+\/console\/)$/m.exec(text);
          if (found) (clearTimeout(timer), resolve(found[1]!));
        });
        child.on('exit', (code) => reject(new Error(`loom serve exited (${code}): ${text}`)));
      });
      const answer = await fetch(url);
      expect(answer.status).to.equal(200);
      expect(answer.headers.get('content-security-policy')).to.equal(CONSOLE_CSP);
    } finally {
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('exit', resolve));
      await rm(dataDir, { recursive: true, force: true });
    }
  });

  it('is left out when the reference server is told so', async () => {
    const without = await startServer({ console: false });
    try {
      expect(without.loom.plugins).to.not.include('console');
      expect((await fetch(`${without.url}/console/`)).status).to.equal(404);
    } finally {
      await without.stop();
    }
  });
});
