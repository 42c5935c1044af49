/**
 * The record, access and instance views' later parts in Chromium (issue 39),
 * one server (auth on) and one browser for the file: a record shows the
 * records that correct and cancel it, and its parents and the records it
 * points at are links; grants show as chains (who granted what to whom, via
 * which grant), a delegate revokes only what it issued and an admin's
 * revocation cascades on the server; the instance view summarises GET
 * /metrics and engages and clears the emergency stop behind a confirmation;
 * a reader meets no 403 and no write control.
 */
import { expect } from 'chai';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { bearer, bootstrapAdmin, createAccount, type Credential } from '../helpers/auth.js';
import { newThread, request, startServer, type StartedServer } from '../helpers/http-server.js';
import { consoleContext, launch, RequestLog } from './browser.js';

describe('web console: record corrections, grant chains, metrics and the emergency stop in Chromium (issue 39)', function () {
  this.timeout(120_000);
  let browser: Browser;
  let server: StartedServer;
  let admin: Credential;
  let reader: Credential;
  const log = new RequestLog();
  const contexts: BrowserContext[] = [];

  before(async function () {
    browser = await launch(this);
    server = await startServer({ auth: { required: true } });
    admin = await bootstrapAdmin(server.url);
    reader = await createAccount(server.url, admin, 'views-reader', ['records:read']);
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
  const write = async (json: Record<string, unknown>) => {
    const answer = await request(server.url, 'POST', '/v1/records', { headers: bearer(admin), json: { actor: 'did:sync:user:alice', data_type: 'SCALAR', parents: [], ...json } });
    expect(answer.status, answer.text).to.equal(201);
    return answer.json.id as string;
  };

  it('a record lists the records that correct and cancel it; parents and pointers navigate', async () => {
    const thread = newThread('corrections');
    const original = await write({ thread, act: 'KNOW', body: { text: 'the shed is red' }, clock: 0 });
    const correction = await write({ thread, act: 'KNOW', body: { topic: 'correction', supersedes: original, reason: 'it is blue', text: 'the shed is blue' }, clock: 1, parents: [original] });
    const cancellation = await write({ thread, act: 'DO', body: { cancels: original, reason: 'withdrawn' }, clock: 2 });
    await write({ thread, act: 'KNOW', body: { text: 'unrelated' }, clock: 3 });
    const page = await open(reader.token, `/records/${original}`);
    await page.waitForSelector('[data-pointing="2"]');
    expect(await page.locator('[data-pointer]').evaluateAll((items) => items.map((item) => item.getAttribute('data-pointer')))).to.deep.equal(['supersedes', 'cancels']);
    expect(await page.locator('[data-pointer="cancels"]').textContent()).to.contain('withdrawn');
    await page.locator('[data-pointer="supersedes"] a').click();
    await page.waitForURL(`**/console/records/${correction}`);
    await page.waitForSelector('[data-points-at]');
    expect(await page.locator('[data-points-at] dt').textContent()).to.equal('Corrects');
    await page.waitForSelector('[data-pointing="0"]');
    // The parent link goes back to the corrected record.
    await page.locator('dl.fields').first().getByRole('link', { name: original }).click();
    await page.waitForURL(`**/console/records/${original}`);
    await page.waitForSelector('[data-pointing="2"]');
    const cancelled = await open(reader.token, `/records/${cancellation}`);
    await cancelled.waitForSelector('[data-points-at]');
    expect(await cancelled.locator('[data-points-at] dt').textContent()).to.equal('Cancels');
    expect(await cancelled.locator('[data-write]').count()).to.equal(0);
  });

  it('grants show as chains; a delegate revokes only what it issued; an admin revocation cascades on the server', async () => {
    const root = await request(server.url, 'POST', '/v1/grants', { headers: bearer(admin), json: { aud: 'did:sync:user:bob', scopes: ['records:read'], caveats: { max_depth: 2 }, with_token: true, note: 'bob reads' } });
    expect(root.status, root.text).to.equal(201);
    const child = await request(server.url, 'POST', '/v1/grants', { headers: bearer(root.json.token), json: { aud: 'did:sync:user:carol', scopes: ['records:read'], caveats: { max_depth: 1 }, with_token: true } });
    expect(child.status, child.text).to.equal(201);
    expect(child.json.chain).to.deep.equal([root.json.grant_id]);

    const page = await open(admin.token, '/access');
    await page.waitForSelector(`[data-grant="${root.json.grant_id}"] > ul [data-grant="${child.json.grant_id}"]`);
    expect(await page.locator(`[data-grant="${child.json.grant_id}"] .grant`).textContent()).to.match(/did:sync:user:bob.*granted.*did:sync:user:carol.*records:read/);

    // Bob sees his grant and the one he issued; only the latter offers him revocation.
    const bob = await open(root.json.token, '/access');
    await bob.waitForSelector(`[data-grant="${child.json.grant_id}"] button[data-write]`);
    expect(await bob.locator(`[data-grant="${root.json.grant_id}"] > .grant button`).count()).to.equal(0);
    expect(await bob.locator('[data-write]').count()).to.equal(1);

    await page.getByRole('button', { name: /and the 1 below it/ }).click();
    await page.waitForSelector(`[data-grant="${child.json.grant_id}"][data-standing="revoked"]`);
    await page.waitForSelector(`[data-grant="${root.json.grant_id}"][data-standing="revoked"]`);
    const fold = await request(server.url, 'GET', '/v1/folds/grant', { headers: bearer(admin) });
    const standing = Object.fromEntries((fold.json.value.grants as Array<{ grant_id: string; standing: string }>).map((grant) => [grant.grant_id, grant.standing]));
    expect(standing[child.json.grant_id]).to.equal('revoked');
    expect((await request(server.url, 'GET', '/v1/threads', { headers: bearer(child.json.token) })).status).to.equal(401);
  });

  it('the instance view summarises GET /metrics; the emergency stop engages only after confirming, and clears', async () => {
    const page = await open(admin.token, '/instance');
    await page.waitForSelector('[data-metric="loom_records_published_total"]');
    const text = (await request(server.url, 'GET', '/metrics', { headers: bearer(admin) })).text;
    const published = Number(/^loom_records_published_total (\S+)$/m.exec(text)![1]);
    expect(published).to.be.greaterThan(0);
    expect(Number(await page.getAttribute('[data-metric="loom_records_published_total"]', 'data-value'))).to.be.within(published - 5, published + 50);
    expect(Number(await page.getAttribute('[data-metric="process_resident_memory_bytes"]', 'data-value'))).to.be.greaterThan(1_000_000);

    const fleet = async () => (await request(server.url, 'GET', '/v1/fleet', { headers: bearer(admin) })).json;
    await page.getByLabel('Reason (optional)').fill('console drill');
    await page.getByRole('button', { name: 'Emergency stop' }).click();
    expect((await fleet()).emergency, 'the first press only asks').to.equal(null);
    await page.getByRole('button', { name: 'Engage the emergency stop' }).click();
    await page.waitForSelector('[data-emergency="on"]');
    const engaged = await fleet();
    expect(engaged.emergency.reason).to.equal('console drill');
    await page.getByRole('button', { name: 'Release the emergency stop' }).click();
    await page.waitForSelector('[data-emergency="off"]');
    expect((await fleet()).emergency).to.equal(null);
  });

  it('an operator sees the metrics without a verb; a reader sees neither, and no page gets a 403', async () => {
    const operator = await createAccount(server.url, admin, 'views-operator', ['records:read', 'config:read']);
    const page = await open(operator.token, '/instance');
    await page.waitForSelector('[data-metrics]');
    expect(await page.locator('[data-write]').count()).to.equal(0);
    const statuses: number[] = [];
    const readerPage = await open(reader.token, '/threads');
    readerPage.on('response', (response) => statuses.push(response.status()));
    for (const view of ['Access', 'Instance']) {
      await readerPage.getByRole('link', { name: view }).click();
      await readerPage.getByRole('heading', { name: view, level: 1 }).waitFor();
      await readerPage.waitForLoadState('networkidle');
      expect(await readerPage.locator('[data-write]').count(), view).to.equal(0);
    }
    expect(await readerPage.locator('[data-metrics]').count()).to.equal(0);
    expect(statuses.filter((status) => status === 401 || status === 403)).to.deep.equal([]);
  });

  it('every request was an OpenAPI operation, none off loopback (test 5)', () => {
    expect(log.undeclared()).to.deep.equal([]);
    expect(log.offLoopback).to.deep.equal([]);
  });
});
