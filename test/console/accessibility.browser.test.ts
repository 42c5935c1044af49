/**
 * Accessibility of the console (issue 39, test 3): zero axe violations
 * (WCAG 2.0/2.1 A and AA) on every view it ships, with auth on and auth off,
 * in light and dark; and a keyboard-only walk: Tab reaches every control of
 * each view, each with a visible focus ring. Auth on runs against a Loom
 * with a work loop (a run waiting on a decision, so the decision card and
 * the run view's controls are there); auth off against a plain one.
 */
import { AxeBuilder } from '@axe-core/playwright';
import { expect } from 'chai';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { VENDORS } from '../fakes/provider-harness.js';
import { script } from '../fakes/script.js';
import { bearer } from '../helpers/auth.js';
import { newThread, request, startServer, type StartedServer } from '../helpers/http-server.js';
import { loopWorld, type LoopWorld } from '../work/loop-harness.js';
import { consoleContext, launch, RequestLog } from './browser.js';

// Page-side globals: the callbacks handed to page.evaluate run in the browser; this program compiles without the DOM library.
declare const document: any, getComputedStyle: any;

const anthropic = VENDORS.find((vendor) => vendor.provider === 'anthropic')!;
const TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'];

describe('web console accessibility in Chromium (issue 39, test 3)', function () {
  this.timeout(180_000);
  let browser: Browser;
  let world: LoopWorld;
  let open: StartedServer;
  const log = new RequestLog();
  const contexts: BrowserContext[] = [];
  let thread: string;
  let record: string;
  let waitingRun: string;

  before(async function () {
    browser = await launch(this);
    world = await loopWorld(anthropic);
    open = await startServer();
    thread = newThread('console-a11y');
    for (const base of [world.server.url, open.url]) {
      const headers = base === world.server.url ? bearer(world.admin) : {};
      const batch = Array.from({ length: 40 }, (_, i) => ({ thread, actor: 'did:sync:user:alice', act: 'KNOW', body: { text: `note ${i}` }, clock: i, data_type: 'SCALAR' }));
      const answer = await request(base, 'POST', '/v1/records/batch', { json: batch, headers });
      expect(answer.status, answer.text).to.equal(200);
      record = answer.json.results[0].id;
    }
    world.fake.enqueue(
      script.toolCalls([
        {
          id: 'toolu_a11y',
          name: 'ask',
          input: { question: 'Ship it?', options: [{ id: 'opt_yes', label: 'Yes', description: 'Ship today.', recommended: true }, { id: 'opt_no', label: 'No', description: 'Wait.' }], allow_other: true },
        },
      ]),
    );
    waitingRun = await world.run({ goal: 'release' });
    expect((await world.ended(waitingRun)).state).to.equal('waiting_on_you');
  });

  after(async () => {
    for (const context of contexts) await context.close().catch(() => {});
    await browser?.close();
    await world?.stop();
    await open?.stop();
  });

  /** The views, each with what shows it is drawn. */
  const views = () => [
    { path: '/threads', ready: '[data-thread]' },
    { path: `/threads/${thread}`, ready: '[data-stream="live"]' },
    { path: `/records/${record}`, ready: 'dl.fields' },
    { path: '/decisions', ready: 'main h1' },
    { path: '/runs', ready: '[data-run], main h1' },
    { path: `/runs/${waitingRun}`, ready: '[data-run-state]' },
    { path: '/folds', ready: '#fold-name option:nth-child(2)' },
    { path: '/search?q=note', ready: '.hits li, main p' },
    { path: '/instance', ready: '[data-health]' },
    { path: '/federation', ready: 'main p' },
    { path: '/members', ready: 'main table, main p' },
    { path: '/files', ready: 'main table, main p' },
  ];

  async function page(base: string, token: string | null, colorScheme: 'light' | 'dark'): Promise<Page> {
    const context = await consoleContext(browser, log, token, { colorScheme });
    contexts.push(context);
    return context.newPage();
  }

  async function axe(page: Page, where: string): Promise<void> {
    const result = await new AxeBuilder({ page }).withTags(TAGS).analyze();
    expect(result.passes.length, `${where}: axe ran its rules`).to.be.greaterThan(5);
    const violations = result.violations.map((violation) => `${where}: ${violation.id} (${violation.nodes.map((node) => node.target.join(' ')).join('; ')})`);
    expect(violations).to.deep.equal([]);
  }

  for (const colorScheme of ['light', 'dark'] as const) {
    it(`auth on, ${colorScheme}: the sign-in page and every view have no axe violation`, async () => {
      const signIn = await page(world.server.url, null, colorScheme);
      await signIn.goto(`${world.server.url}/console/`);
      await signIn.getByLabel('Bearer token').waitFor();
      await axe(signIn, 'sign-in');
      const viewer = await page(world.server.url, world.owner.token, colorScheme);
      for (const view of views()) {
        await viewer.goto(`${world.server.url}/console${view.path}`);
        await viewer.waitForSelector(view.ready, { state: 'attached' });
        if (view.path === '/decisions') await viewer.waitForSelector('[data-decision]');
        await axe(viewer, view.path);
      }
      // The access view with every admin form and table (an invite issued, so its link shows too).
      const admin = await page(world.server.url, world.admin.token, colorScheme);
      await admin.goto(`${world.server.url}/console/access`);
      await admin.getByRole('button', { name: 'Create invite' }).click();
      await admin.getByLabel('Invite link').waitFor();
      await admin.waitForSelector('[data-account]');
      await axe(admin, '/access (admin)');
      await admin.goto(`${world.server.url}/console/instance`);
      await admin.waitForSelector('#freeze-namespace');
      await axe(admin, '/instance (admin)');
    });
  }

  it('auth off: every view has no axe violation', async () => {
    const viewer = await page(open.url, null, 'light');
    for (const view of [...views().filter((view) => !view.path.startsWith('/runs/')), { path: '/access', ready: '#members-heading' }]) {
      await viewer.goto(`${open.url}/console${view.path}`);
      await viewer.waitForSelector(view.ready, { state: 'attached' });
      await axe(viewer, `auth off ${view.path}`);
    }
  });

  it('keyboard only: Tab reaches every control of each view, each with a visible focus ring', async () => {
    const viewer = await page(world.server.url, world.admin.token, 'light');
    for (const view of [...views(), { path: '/decisions', ready: '[data-decision]' }, { path: '/access', ready: '[data-account]' }]) {
      await viewer.goto(`${world.server.url}/console${view.path}`);
      await viewer.waitForSelector(view.ready, { state: 'attached' });
      await viewer.waitForTimeout(100);
      const controls: number = await viewer.evaluate(() => {
        let n = 0;
        for (const element of document.querySelectorAll('a[href], button:not([disabled]), input:not([disabled]), select, [tabindex="0"]')) {
          element.setAttribute('data-kb', String(n++));
        }
        return n;
      });
      const reached = new Set<string>();
      const unringed: string[] = [];
      for (let press = 0; press < controls + 5; press++) {
        await viewer.keyboard.press('Tab');
        const focus = await viewer.evaluate(() => {
          const element = document.activeElement;
          if (!element || element === document.body) return null;
          const style = getComputedStyle(element);
          return { kb: element.getAttribute('data-kb'), ring: style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) >= 2, name: element.outerHTML.slice(0, 80) };
        });
        if (!focus || focus.kb === null) continue;
        reached.add(focus.kb);
        if (!focus.ring) unringed.push(`${view.path}: ${focus.name}`);
      }
      const missed: string[] = await viewer.evaluate(
        (seen: string[]) => [...document.querySelectorAll('[data-kb]')].filter((element: any) => !seen.includes(element.getAttribute('data-kb'))).map((element: any) => element.outerHTML.slice(0, 80)),
        [...reached],
      );
      expect(missed, `${view.path}: controls Tab never reached`).to.deep.equal([]);
      expect(unringed, 'focus without a visible ring').to.deep.equal([]);
    }
  });

  it('every request was an OpenAPI operation, none off loopback (test 5)', () => {
    expect(log.undeclared()).to.deep.equal([]);
    expect(log.offLoopback).to.deep.equal([]);
  });
});
