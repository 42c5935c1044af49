/**
 * The access view in Chromium (issue 39): an admin issues an invite in the
 * console and copies its link; the link signs a new member in; the admin
 * revokes that member in the console and the member's next call returns
 * them to sign-in with the server's message. A service account made in the
 * console shows its key once, and the key works until revoked there. A
 * non-admin's access view makes no admin call (no 403) and offers no verb.
 * The fold browser shows the API's watermark; the instance view shows
 * health to anyone and the engine and fleet to an operator only.
 */
import { expect } from 'chai';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { bearer, bootstrapAdmin, createAccount, type Credential } from '../helpers/auth.js';
import { newThread as taskThread, request, startServer, type StartedServer } from '../helpers/http-server.js';
import { consoleContext, launch, RequestLog } from './browser.js';

describe('web console: access, folds and instance in Chromium (issue 39)', function () {
  this.timeout(120_000);
  let browser: Browser;
  let server: StartedServer;
  let admin: Credential;
  const log = new RequestLog();
  const contexts: BrowserContext[] = [];

  before(async function () {
    browser = await launch(this);
    server = await startServer({ auth: { required: true } });
    admin = await bootstrapAdmin(server.url);
  });
  after(async () => {
    for (const context of contexts) await context.close().catch(() => {});
    await browser?.close();
    await server?.stop();
  });

  async function open(token: string | null, path: string): Promise<Page> {
    const context = await consoleContext(browser, log, token);
    contexts.push(context);
    const page = await context.newPage();
    await page.goto(`${server.url}/console${path}`);
    return page;
  }

  it('an invite made in the console signs a member in through its link; revoking the member there sends them back to sign-in', async () => {
    const page = await open(admin.token, '/access');
    await page.getByRole('heading', { name: 'Invites' }).waitFor();
    await page.getByLabel('Role').selectOption('reader');
    await page.getByLabel('Label (optional)').fill('carol');
    await page.getByRole('button', { name: 'Create invite' }).click();
    const link = await page.getByLabel('Invite link').inputValue();
    expect(link).to.match(new RegExp(`^${server.url.replace(/[.]/g, '\\.')}/console/invite#.+`));
    await page.waitForSelector('[data-invite]');

    const member = await open(null, link.slice(`${server.url}/console`.length));
    await member.getByRole('heading', { name: 'Threads' }).waitFor();
    const token = await member.evaluate(() => (globalThis as unknown as { sessionStorage: { getItem(key: string): string | null } }).sessionStorage.getItem('loom.console.token'));
    expect((await request(server.url, 'GET', '/v1/self', { headers: bearer(token!) })).status).to.equal(200);

    await page.reload();
    await page.waitForSelector('[data-member="carol"] [data-state="active"]');
    await page.getByRole('button', { name: 'Revoke member carol' }).click();
    await page.waitForSelector('[data-member="carol"] [data-state="revoked"]');

    // The member's next call is refused: back to sign-in with the server's words.
    const refused = await request(server.url, 'GET', '/v1/self', { headers: bearer(token!) });
    expect(refused.status).to.equal(401);
    await member.getByRole('link', { name: 'Runs' }).click();
    const alert = member.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).to.equal(refused.json.message);
    await member.getByLabel('Bearer token').waitFor();
  });

  it('a service account made in the console shows its key once; the key works until revoked there', async () => {
    const page = await open(admin.token, '/access');
    await page.getByLabel('Name').fill('ci-bot');
    await page.getByLabel('Scopes').selectOption('reader');
    await page.getByRole('button', { name: 'Create service account' }).click();
    const key = await page.getByLabel('API key').inputValue();
    expect((await request(server.url, 'GET', '/v1/threads', { headers: bearer(key) })).status).to.equal(200);
    await page.reload();
    await page.getByRole('button', { name: 'Revoke account ci-bot' }).waitFor();
    expect(await page.getByLabel('API key').count(), 'the key is not shown again').to.equal(0);
    await page.getByRole('button', { name: 'Revoke account ci-bot' }).click();
    await page.getByRole('button', { name: 'Revoke account ci-bot' }).waitFor({ state: 'detached' });
    expect((await request(server.url, 'GET', '/v1/threads', { headers: bearer(key) })).status).to.equal(401);
  });

  it('a non-admin sees the access view with no 403 and no verb', async () => {
    const reader = await createAccount(server.url, admin, 'reader-only', ['records:read']);
    const statuses: number[] = [];
    const page = await open(reader.token, '/threads');
    page.on('response', (response) => statuses.push(response.status()));
    await page.getByRole('link', { name: 'Access' }).click();
    await page.getByRole('heading', { name: 'Members' }).waitFor();
    await page.waitForLoadState('networkidle');
    expect(statuses.filter((status) => status === 403 || status === 401)).to.deep.equal([]);
    expect(await page.locator('[data-write]').count()).to.equal(0);
    expect(await page.getByRole('heading', { name: 'Invites' }).count()).to.equal(0);
  });

  it('the fold browser reads a thread fold and a global fold with the watermark the API gives', async () => {
    const thread = taskThread();
    const batch = Array.from({ length: 5 }, (_, i) => ({ thread, actor: 'did:sync:user:alice', act: 'KNOW', body: { text: `n${i}` }, clock: i, data_type: 'SCALAR' }));
    expect((await request(server.url, 'POST', '/v1/records/batch', { json: batch, headers: bearer(admin) })).status).to.equal(200);
    const folds = (await request(server.url, 'GET', '/v1/folds', { headers: bearer(admin) })).json.data as Array<{ name: string; scope: string }>;
    const threadFold = folds.find((fold) => fold.scope === 'thread')!;
    const globalFold = folds.find((fold) => fold.scope === 'global')!;
    const page = await open(admin.token, '/folds');
    await page.getByLabel('Fold').selectOption(threadFold.name);
    await page.getByLabel('Thread').fill(thread);
    await page.getByRole('button', { name: 'Read' }).click();
    await page.waitForSelector(`[data-fold="${threadFold.name}"]`);
    const api = await request(server.url, 'GET', `/v1/folds/${threadFold.name}/${thread}`, { headers: bearer(admin) });
    expect(await page.getAttribute('[data-fold]', 'data-watermark')).to.equal(String(api.json.watermark));
    await page.getByLabel('Fold').selectOption(globalFold.name);
    await page.getByRole('button', { name: 'Read' }).click();
    await page.waitForSelector(`[data-fold="${globalFold.name}"]`);
    expect(Number(await page.getAttribute('[data-fold]', 'data-watermark'))).to.be.at.least(0);
    expect(await page.getByText(/read at/).count()).to.equal(1);
  });

  it('the instance view shows health to anyone, and the engine and fleet to an operator only', async () => {
    const health = (await request(server.url, 'GET', '/health')).json;
    const operator = await open(admin.token, '/instance');
    await operator.waitForSelector('[data-health="ok"]');
    await operator.getByText(health.instance_did).waitFor();
    await operator.waitForSelector('[data-engine]');
    await operator.waitForSelector('[data-emergency="off"]');
    // An admin freezes a namespace and thaws it, each read back from the fleet.
    await operator.getByLabel('Namespace').fill('sandbox');
    await operator.getByRole('button', { name: 'Freeze' }).click();
    await operator.waitForSelector('[data-freeze="sandbox"]');
    const frozen = await request(server.url, 'GET', '/v1/fleet', { headers: bearer(admin) });
    expect(frozen.json.freezes.map((freeze: { namespace: string }) => freeze.namespace)).to.include('sandbox');
    await operator.getByRole('button', { name: 'Thaw sandbox' }).click();
    await operator.waitForSelector('[data-freeze="sandbox"]', { state: 'detached' });
    const reader = await createAccount(server.url, admin, 'instance-reader', ['records:read']);
    const statuses: number[] = [];
    const page = await open(reader.token, '/threads');
    page.on('response', (response) => statuses.push(response.status()));
    await page.getByRole('link', { name: 'Instance' }).click();
    await page.waitForSelector('[data-health="ok"]');
    await page.waitForSelector('[data-read-at]');
    expect(await page.locator('[data-engine]').count()).to.equal(0);
    expect(await page.locator('[data-write]').count()).to.equal(0);
    expect(statuses.filter((status) => status === 403 || status === 401)).to.deep.equal([]);
  });

  it('search finds a record\'s words, marks them in the snippet, and links into its thread at the record', async () => {
    const thread = taskThread();
    const written = await request(server.url, 'POST', '/v1/records', {
      json: { thread, actor: 'did:sync:user:alice', act: 'KNOW', body: { text: 'The quokka census is due on Friday.' }, clock: 0, data_type: 'SCALAR' },
      headers: bearer(admin),
    });
    expect(written.status, written.text).to.equal(201);
    // The index follows the log: wait until the API finds it.
    for (let tries = 0; ; tries++) {
      const found = await request(server.url, 'GET', '/v1/find?q=quokka', { headers: bearer(admin) });
      if (found.json.data?.length > 0) break;
      if (tries > 100) throw new Error(`find never answered: ${found.text}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const page = await open(admin.token, '/threads');
    await page.getByRole('link', { name: 'Search' }).click();
    await page.getByLabel('Find').fill('quokka');
    await page.getByRole('button', { name: 'Search' }).click();
    const hit = page.locator(`[data-hit="${thread}"]`);
    await hit.waitFor();
    expect((await hit.locator('mark').first().textContent())?.toLowerCase()).to.equal('quokka');
    expect(page.url()).to.match(/\/console\/search\?q=quokka$/);
    await hit.getByRole('link').click();
    await page.waitForSelector(`[role=listitem][data-id="${written.json.id}"][aria-current="location"]`);
  });

  it('every request was an OpenAPI operation, none off loopback (test 5)', () => {
    console.log(`      operations used: ${log.operationsSeen().join(', ')}`);
    expect(log.undeclared()).to.deep.equal([]);
    expect(log.offLoopback).to.deep.equal([]);
  });
});
