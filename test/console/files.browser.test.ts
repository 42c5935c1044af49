/**
 * The files view in Chromium (issue 39): the data plane of a server with
 * auth on and 64 KiB chunks. A directory written through the SDK is browsed
 * in the console; a writer uploads a 320 KiB file with a progress bar,
 * pauses it half-way (chunk PUTs slowed by the test) and resumes it, and only
 * the missing chunks are sent; the file's signed link downloads the same
 * bytes without a bearer; a reader browses and links but gets no upload
 * control. One server and one browser for the file.
 */
import { expect } from 'chai';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { createLoomClient, uploadFile } from '../../sdk/index.js';
import { bearer, bootstrapAdmin, createAccount, type Credential } from '../helpers/auth.js';
import { request, startServer, type StartedServer } from '../helpers/http-server.js';
import { consoleContext, launch, RequestLog } from './browser.js';

declare const sessionStorage: any;

const CHUNK = 64 * 1024;

describe('web console: the files view in Chromium (issue 39)', function () {
  this.timeout(120_000);
  let browser: Browser;
  let server: StartedServer;
  let admin: Credential;
  let writer: Credential;
  let reader: Credential;
  const log = new RequestLog();
  const contexts: BrowserContext[] = [];

  before(async function () {
    browser = await launch(this);
    server = await startServer({ auth: { required: true }, data: { chunkSizeBytes: CHUNK } });
    admin = await bootstrapAdmin(server.url);
    writer = await createAccount(server.url, admin, 'files-writer', ['records:read', 'records:write']);
    reader = await createAccount(server.url, admin, 'files-reader', ['records:read']);
    const loom = createLoomClient({ baseUrl: server.url, token: writer.token });
    await uploadFile(loom, { path: '/docs/readme.txt', content: new Blob(['hello from the data plane']) });
  });
  after(async () => {
    for (const context of contexts) await context.close().catch(() => {});
    await browser?.close();
    await server?.stop();
  });

  async function open(token: string, path: string): Promise<Page> {
    const context = await consoleContext(browser, log, token);
    contexts.push(context);
    const page = await context.newPage();
    await page.goto(`${server.url}/console${path}`);
    return page;
  }

  it('browses a directory and downloads a file through its signed link, without a bearer', async () => {
    const page = await open(reader.token, '/files');
    await page.getByRole('link', { name: 'docs/' }).click();
    await page.waitForSelector('[data-node="/docs/readme.txt"]');
    expect(await page.locator('[data-write]').count(), 'a reader gets no upload control').to.equal(0);
    await page.getByRole('button', { name: 'Link for readme.txt' }).click();
    const link = await page.getByRole('link', { name: 'Download readme.txt' }).getAttribute('href');
    const fetched = await fetch(new URL(link!, server.url));
    expect(fetched.status).to.equal(200);
    expect(await fetched.text()).to.equal('hello from the data plane');
  });

  it('uploads with progress, pauses half-way and resumes sending only the missing chunks', async () => {
    const page = await open(writer.token, '/files');
    await page.waitForSelector('[data-node="/docs"]');
    const puts: string[] = [];
    await page.route('**/v1/blobs/upload/**', async (route) => {
      if (route.request().method() === 'PUT') {
        puts.push(route.request().headers()['content-range'] ?? '');
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
      await route.fallback();
    });
    const bytes = Buffer.alloc(5 * CHUNK, 0);
    for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 7) % 251;
    await page.getByLabel('Upload to /').setInputFiles({ name: 'big.bin', mimeType: 'application/octet-stream', buffer: bytes });
    await page.waitForSelector('[data-upload="sending"]');
    await page.waitForFunction(() => Number((globalThis as any).document.querySelector('[data-sent]')?.getAttribute('data-sent')) >= 2 * 64 * 1024);
    await page.getByRole('button', { name: 'Pause upload' }).click();
    await page.waitForSelector('[data-upload="paused"]');
    const uploadId = await page.evaluate(() => {
      for (let i = 0; i < sessionStorage.length; i++) {
        const key = sessionStorage.key(i);
        if (key.startsWith('loom.console.upload:')) return sessionStorage.getItem(key);
      }
      return null;
    });
    expect(uploadId).to.be.a('string');
    const partial = await request(server.url, 'GET', `/v1/blobs/upload/${uploadId}`, { headers: bearer(writer) });
    expect(partial.json.received_bytes).to.be.within(2 * CHUNK, 4 * CHUNK);
    const before = puts.length;
    await page.getByRole('button', { name: 'Resume upload' }).click();
    await page.waitForSelector('[data-upload="done"]');
    expect(await page.locator('[data-upload]').textContent()).to.contain('resumed');
    // Only the missing chunks went after the resume (the one cut short by the pause at most once more).
    expect(puts.length - before).to.equal(5 - partial.json.received_bytes / CHUNK);
    await page.waitForSelector('[data-node="/big.bin"]');
    const node = await request(server.url, 'GET', '/v1/data/stat?path=/big.bin', { headers: bearer(writer) });
    expect(node.json.size_bytes).to.equal(bytes.length);
    await page.getByRole('button', { name: 'Link for big.bin' }).click();
    const link = await page.getByRole('link', { name: 'Download big.bin' }).getAttribute('href');
    const fetched = Buffer.from(await (await fetch(new URL(link!, server.url))).arrayBuffer());
    expect(fetched.equals(bytes)).to.equal(true);
  });

  it('every request was an OpenAPI operation, none off loopback (test 5)', () => {
    expect(log.undeclared()).to.deep.equal([]);
    expect(log.offLoopback).to.deep.equal([]);
  });
});
