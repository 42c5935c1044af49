/**
 * The federation view in Chromium (issue 39): two Looms in this process on
 * loopback, A (auth on, the console's) paired with B by the handshake, plus a
 * sync pair A pulls from B directly and a consent grant on A. The view shows
 * the pairs with state, lag and last error, the sync pair, the consent grant
 * and sync health as the API gives them; pause, resume, pull now and revoke
 * (asked twice) done in the console change the pair on the server; a reader
 * and an operator without federation:manage get a sentence, no call that
 * 403s and no write control; axe finds nothing in light or dark; the
 * keyboard reaches every verb. One browser and one pair of servers for the file.
 */
import { AxeBuilder } from '@axe-core/playwright';
import { expect } from 'chai';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { TH_CONSENT } from '../../core/records/reserved-threads.js';
import { bearer, bootstrapAdmin, createAccount, type Credential } from '../helpers/auth.js';
import { get, request, startServer, type StartedServer } from '../helpers/http-server.js';
import { until } from '../helpers/until.js';
import { consoleContext, launch, RequestLog } from './browser.js';

declare const document: any, getComputedStyle: any;

const OPTIONS = { handshakePollMs: 50, pairPollIntervalMs: 1_000, backoffBaseMs: 50 };

describe('web console: the federation view in Chromium (issue 39)', function () {
  this.timeout(120_000);
  let browser: Browser;
  let a: StartedServer;
  let b: StartedServer;
  let admin: Credential;
  let pairId: string;
  let syncPairId: string;
  const log = new RequestLog();
  const contexts: BrowserContext[] = [];

  before(async function () {
    browser = await launch(this);
    [a, b] = await Promise.all([startServer({ auth: { required: true }, federation: OPTIONS }), startServer({ federation: { ...OPTIONS, pairPosture: 'open' } })]);
    admin = await bootstrapAdmin(a.url);
    const paired = await request(a.url, 'POST', '/v1/federation/pairs', { json: { url: b.url }, headers: bearer(admin) });
    expect(paired.status, paired.text).to.equal(201);
    pairId = paired.json.pair_id;
    const bDid = (await get(b.url, '/health')).json.instance_did as string;
    const direct = await request(a.url, 'POST', '/v1/sync/pairs', { json: { peer_did: bDid, peer_url: b.url, peer_token: 'peer-token-for-b-1', mode: 'polling', poll_interval_ms: 1_000, target_namespace: 'from-b' }, headers: bearer(admin) });
    expect(direct.status, direct.text).to.equal(201);
    syncPairId = direct.json.pair_id ?? direct.json.pair?.pair_id;
    expect(syncPairId, direct.text).to.be.a('string');
    for (const [clock, namespace_id] of ['acme', 'beta'].entries()) {
      const declared = await request(a.url, 'POST', '/v1/records', { headers: bearer(admin), json: { thread: 'th_namespace_registry', actor: admin.did, act: 'LEARN', body: { namespace_id }, clock, data_type: 'SCALAR', parents: [] } });
      expect(declared.status, declared.text).to.equal(201);
    }
    const granted = await request(a.url, 'POST', '/v1/records', {
      headers: bearer(admin),
      json: { thread: TH_CONSENT, actor: admin.did, act: 'LEARN', body: { kind: 'core.consent.grant.v1', source_namespace: 'acme', target_namespace: 'beta', hash_levels: ['L2'], purpose: 'audit' }, clock: 0, data_type: 'SCALAR', parents: [] },
    });
    expect(granted.status, granted.text).to.equal(201);
  });
  after(async () => {
    for (const context of contexts) await context.close().catch(() => {});
    await browser?.close();
    await Promise.all([a?.stop(), b?.stop()]);
  });

  async function open(token: string, path = '/federation', colorScheme: 'light' | 'dark' = 'light'): Promise<Page> {
    const context = await consoleContext(browser, log, token, { colorScheme });
    contexts.push(context);
    const page = await context.newPage();
    await page.goto(`${a.url}/console${path}`);
    return page;
  }
  const pairOnA = async () => (await request(a.url, 'GET', `/v1/federation/pairs/${pairId}`, { headers: bearer(admin) })).json;
  const syncOnA = async () => (await request(a.url, 'GET', `/v1/sync/pairs/${syncPairId}`, { headers: bearer(admin) })).json;
  const peer = () => new URL(b.url).host;

  it('shows the pairs, the sync pair, the consent grant and sync health as the API gives them', async () => {
    const page = await open(admin.token);
    await page.waitForSelector(`[data-pair="${pairId}"][data-state="active"]`);
    await page.waitForSelector(`[data-sync-pair="${syncPairId}"]`);
    const pair = await pairOnA();
    expect(await page.locator(`[data-pair="${pairId}"] code`).first().textContent()).to.equal(pair.peer_url);
    expect(await page.locator(`[data-pair="${pairId}"] td`).nth(1).textContent()).to.equal(pair.role);
    const consent = (await request(a.url, 'GET', '/v1/sync/consent', { headers: bearer(admin) })).json.data;
    expect(consent).to.have.length(1);
    await page.waitForSelector(`[data-consent="${consent[0].id}"]`);
    expect(await page.locator(`[data-consent="${consent[0].id}"] td`).first().textContent()).to.equal('acme');
    const health = (await request(a.url, 'GET', '/v1/sync/health', { headers: bearer(admin) })).json;
    expect(await page.getAttribute('[data-sync-health]', 'data-sync-health')).to.equal(String(health.pairs_total));
    expect(health.pairs_total).to.equal(2);
    // A pull happened: the lag column names when.
    await until('a pull shown', 10_000, async () => !(await page.locator(`[data-pair="${pairId}"] [data-lag]`).textContent())?.includes('never'));
  });

  it('pause, pull now and resume a pair, and pause the sync pair, end to end', async () => {
    const page = await open(admin.token);
    await page.getByRole('button', { name: `Pause pair with ${peer()}` }).click();
    await page.waitForSelector(`[data-pair="${pairId}"][data-state="paused"]`);
    expect((await pairOnA()).state).to.equal('paused');
    await page.getByRole('button', { name: `Resume pair with ${peer()}` }).click();
    await page.waitForSelector(`[data-pair="${pairId}"][data-state="active"]`);
    expect((await pairOnA()).state).to.equal('active');
    await page.getByRole('button', { name: `Pull now from ${peer()}` }).first().click();
    await page.waitForTimeout(200);
    expect(await page.getByRole('alert').count(), 'pull now is accepted').to.equal(0);
    await page.getByRole('button', { name: `Pause sync from ${peer()}` }).click();
    await page.waitForSelector(`[data-sync-pair="${syncPairId}"][data-state="paused"]`);
    expect((await syncOnA()).state).to.equal('paused');
    await page.getByRole('button', { name: `Resume sync from ${peer()}` }).click();
    await page.waitForSelector(`[data-sync-pair="${syncPairId}"]:not([data-state="paused"])`);
    expect((await syncOnA()).state).to.not.equal('paused');
  });

  it('no axe violation in light or dark; the keyboard reaches every verb', async () => {
    for (const colorScheme of ['light', 'dark'] as const) {
      const page = await open(admin.token, '/federation', colorScheme);
      await page.waitForSelector(`[data-pair="${pairId}"]`);
      await page.waitForSelector('[data-consent]');
      const result = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze();
      expect(result.violations.map((violation) => `${colorScheme}: ${violation.id} (${violation.nodes.map((node) => node.target.join(' ')).join('; ')})`)).to.deep.equal([]);
      if (colorScheme === 'dark') continue;
      const controls: number = await page.evaluate(() => {
        let n = 0;
        for (const element of document.querySelectorAll('main button:not([disabled])')) element.setAttribute('data-kb', String(n++));
        return n;
      });
      expect(controls).to.be.at.least(6);
      const reached = new Set<string>();
      for (let press = 0; press < controls + 15; press++) {
        await page.keyboard.press('Tab');
        const kb = await page.evaluate(() => {
          const element = document.activeElement;
          const style = element ? getComputedStyle(element) : null;
          return element?.getAttribute('data-kb') && style.outlineStyle !== 'none' ? element.getAttribute('data-kb') : null;
        });
        if (kb !== null) reached.add(kb);
      }
      expect(reached.size, 'every verb reached with a focus ring').to.equal(controls);
    }
  });

  it('a reader and an operator without federation:manage get no 403 and no write control; federation:manage alone gets the verbs', async () => {
    const reader = await createAccount(a.url, admin, 'fed-reader', ['records:read']);
    const operator = await createAccount(a.url, admin, 'fed-operator', ['records:read', 'config:read']);
    for (const who of [reader, operator]) {
      const statuses: number[] = [];
      const page = await open(who.token, '/threads');
      page.on('response', (response) => statuses.push(response.status()));
      await page.getByRole('link', { name: 'Federation' }).click();
      await page.getByText('need the federation:manage scope').waitFor();
      await page.waitForLoadState('networkidle');
      expect(statuses.filter((status) => status === 401 || status === 403)).to.deep.equal([]);
      expect(await page.locator('[data-write]').count()).to.equal(0);
      // The server still decides: a forced pause from the page is refused.
      const forced = await page.evaluate(
        async ({ url, token, id }) => (await fetch(`${url}/v1/federation/pairs/${id}/pause`, { method: 'POST', headers: { authorization: `Bearer ${token}` } })).status,
        { url: a.url, token: who.token, id: pairId },
      );
      expect(forced).to.equal(403);
    }
    const manager = await createAccount(a.url, admin, 'fed-manager', ['federation:manage']);
    const page = await open(manager.token);
    await page.waitForSelector(`[data-pair="${pairId}"]`);
    expect(await page.locator('[data-write]').count()).to.be.at.least(3);
  });

  it('revoke asks twice, then the pair is revoked on the server', async () => {
    const page = await open(admin.token);
    await page.waitForSelector(`[data-pair="${pairId}"][data-state="active"]`);
    await page.locator(`[data-pair="${pairId}"]`).getByRole('button', { name: 'Revoke' }).click();
    expect((await pairOnA()).state, 'nothing happens on the first press').to.equal('active');
    const confirm = page.getByRole('button', { name: `Revoke pair with ${peer()}` });
    expect(await confirm.evaluate((element) => element === document.activeElement), 'focus moves to the question').to.equal(true);
    await page.getByRole('button', { name: 'Cancel' }).click();
    expect((await pairOnA()).state).to.equal('active');
    await page.locator(`[data-pair="${pairId}"]`).getByRole('button', { name: 'Revoke' }).click();
    await confirm.click();
    await page.waitForSelector(`[data-pair="${pairId}"][data-state="revoked"]`);
    expect((await pairOnA()).state).to.equal('revoked');
    expect(await page.locator(`[data-pair="${pairId}"] [data-write]`).count(), 'a revoked pair offers no verb').to.equal(0);
  });

  it('every request was an OpenAPI operation, none off loopback (test 5)', () => {
    expect(log.undeclared()).to.deep.equal([]);
    expect(log.offLoopback).to.deep.equal([]);
  });
});
