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

  it('members: versions with what changed, revert and retire by the owner; evals; others see no owner verb and no 403', async () => {
    const writer = await createAccount(server.url, admin, 'views-writer', ['records:read', 'records:write']);
    const call = (method: string, path: string, json?: unknown) => request(server.url, method, path, { headers: bearer(writer), ...(json === undefined ? {} : { json }) });
    const defined = await call('POST', '/v1/actors/define', { label: 'Reviewer', work_loop: { model: 'claude-sonnet-4-6', max_turns: 5 } });
    expect(defined.status, defined.text).to.equal(201);
    const did = defined.json.actor_did as string;
    expect((await call('PATCH', `/v1/actors/${did}/definition`, { max_turns: 7 })).status).to.equal(200);
    expect((await call('PATCH', `/v1/actors/${did}/definition`, { model: 'claude-haiku-4-5' })).status).to.equal(200);

    const page = await open(writer.token, '/members');
    await page.getByRole('link', { name: 'Reviewer' }).click();
    await page.waitForSelector('[data-version="3"]');
    expect(await page.locator('[data-version="2"] [data-changed]').evaluateAll((rows) => rows.map((row) => row.textContent))).to.deep.equal(['max_turns57']);
    expect(await page.locator('[data-version="3"] [data-changed]').evaluateAll((rows) => rows.map((row) => row.getAttribute('data-changed')))).to.deep.equal(['model']);
    await page.waitForSelector('[data-grades="0"]');
    await page.getByRole('button', { name: 'Revert to v1' }).click();
    await page.waitForSelector('[data-member-version="4"]');
    const history = (await call('GET', `/v1/actors/${did}/history`)).json;
    expect(history.data[0]).to.include({ version: 4, max_turns: 5, model: 'claude-sonnet-4-6' });

    // The admin is no owner: no history call (it would be OWNER_ONLY), but retire (an operator's).
    const statuses: number[] = [];
    const adminPage = await open(admin.token, `/members/${encodeURIComponent(did)}`);
    adminPage.on('response', (response) => statuses.push(response.status()));
    await adminPage.waitForSelector('[data-member-version="4"]');
    await adminPage.waitForLoadState('networkidle');
    expect(await adminPage.locator('[data-version]').count()).to.equal(0);
    expect(await adminPage.locator('[data-write]').count()).to.equal(1);
    const readerPage = await open(reader.token, `/members/${encodeURIComponent(did)}`);
    readerPage.on('response', (response) => statuses.push(response.status()));
    await readerPage.waitForSelector('[data-member-version="4"]');
    await readerPage.waitForLoadState('networkidle');
    expect(await readerPage.locator('[data-write]').count()).to.equal(0);
    expect(statuses.filter((status) => status === 401 || status === 403)).to.deep.equal([]);

    await page.getByRole('button', { name: 'Retire' }).click();
    await page.getByRole('button', { name: 'Retire Reviewer' }).click();
    await page.waitForSelector('[data-retired="yes"]');
    expect(await page.getByRole('button', { name: /Revert/ }).count(), 'a retired member cannot be reverted').to.equal(0);
    const roster = (await call('GET', '/v1/actors/roster?include_retired=true')).json.data as Array<{ did: string; retired: boolean }>;
    expect(roster.find((row) => row.did === did)!.retired).to.equal(true);
  });

  it('every request was an OpenAPI operation, none off loopback (test 5)', () => {
    expect(log.undeclared()).to.deep.equal([]);
    expect(log.offLoopback).to.deep.equal([]);
  });
});
