/**
 * Screenshot baselines of the console's main views (issue 39, test 8) and
 * the phone-sized viewport. Each view is drawn three times in a fresh
 * context (1280×720, device scale 1, reduced motion, DejaVu fonts forced)
 * with ids and times masked, and each drawing differs from the committed
 * baseline (test/console/baselines/<view>.png) by at most 0.1% of pixels.
 * The pixels are compared in the browser itself (two canvases), so no image
 * library is needed. `LOOM_UPDATE_BASELINES=1` rewrites the baselines.
 * The federation view shows a pair with a second Loom in this process.
 */
import { expect } from 'chai';
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { VENDORS } from '../fakes/provider-harness.js';
import { script } from '../fakes/script.js';
import { bearer, bootstrapAdmin, type Credential } from '../helpers/auth.js';
import { newThread, request, startServer, type StartedServer } from '../helpers/http-server.js';
import { TH_CONSENT } from '../../core/records/reserved-threads.js';
import { loopWorld, type LoopWorld } from '../work/loop-harness.js';
import { launch } from './browser.js';

// Page-side globals: the callbacks handed to page.evaluate run in the browser; this program compiles without the DOM library.
declare const document: any, window: any, Image: any;

const anthropic = VENDORS.find((vendor) => vendor.provider === 'anthropic')!;
/** The source tree (tests run from dist/test/console). */
const BASELINES = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'test', 'console', 'baselines');
const UPDATE = process.env['LOOM_UPDATE_BASELINES'] === '1';
const MAX_DIFFERING = 0.001;
const FONT = '/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf';
/** One font for every glyph, whatever the machine's defaults. */
const PIN_FONTS = `*, *::before, *::after { font-family: 'DejaVu Sans', sans-serif !important; caret-color: transparent !important; }
code, pre, code *, pre * { font-family: 'DejaVu Sans Mono', monospace !important; }`;

describe('web console screenshots (issue 39, test 8)', function () {
  this.timeout(180_000);
  let browser: Browser;
  let world: LoopWorld;
  let peer: StartedServer;
  let federated: StartedServer;
  let fedAdmin: Credential;
  const contexts: BrowserContext[] = [];
  let thread: string;
  let record: string;
  let run: string;

  before(async function () {
    if (!existsSync(FONT)) {
      if (process.env['CI']) throw new Error(`${FONT} is missing: apt-get install -y fonts-dejavu-core (the screenshots pin it)`);
      this.skip();
    }
    browser = await launch(this);
    world = await loopWorld(anthropic);
    thread = newThread('console-shots');
    const batch = Array.from({ length: 30 }, (_, i) => ({ thread, actor: 'did:sync:user:alice', act: i % 3 === 0 ? 'INTEND' : 'KNOW', body: { text: `Note number ${i}: the shed needs paint.` }, clock: i, data_type: 'SCALAR' }));
    const written = await request(world.server.url, 'POST', '/v1/records/batch', { json: batch, headers: bearer(world.admin) });
    expect(written.status, written.text).to.equal(200);
    record = written.json.results[29].id;
    world.fake.enqueue(
      script.toolCalls([
        {
          id: 'toolu_shot',
          name: 'ask',
          input: { question: 'Which colour for the shed?', options: [{ id: 'opt_blue', label: 'Cerulean', description: 'The calm blue.', recommended: true }, { id: 'opt_red', label: 'Vermilion', description: 'A loud red.' }] },
        },
      ]),
    );
    run = await world.run({ goal: 'paint the shed' });
    expect((await world.ended(run)).state).to.equal('waiting_on_you');
    // The federation view: a Loom with federation on (the loop world has it off) paired by the handshake with a
    // second one, and a consent grant.
    [federated, peer] = await Promise.all([startServer({ auth: { required: true }, federation: {} }), startServer({ federation: { pairPosture: 'open' } })]);
    fedAdmin = await bootstrapAdmin(federated.url);
    const paired = await request(federated.url, 'POST', '/v1/federation/pairs', { json: { url: peer.url }, headers: bearer(fedAdmin) });
    expect(paired.status, paired.text).to.equal(201);
    for (const [clock, namespace_id] of ['acme', 'beta'].entries()) {
      const declared = await request(federated.url, 'POST', '/v1/records', { headers: bearer(fedAdmin), json: { thread: 'th_namespace_registry', actor: fedAdmin.did, act: 'LEARN', body: { namespace_id }, clock, data_type: 'SCALAR', parents: [] } });
      expect(declared.status, declared.text).to.equal(201);
    }
    const granted = await request(federated.url, 'POST', '/v1/records', {
      headers: bearer(fedAdmin),
      json: { thread: TH_CONSENT, actor: fedAdmin.did, act: 'LEARN', body: { kind: 'core.consent.grant.v1', source_namespace: 'acme', target_namespace: 'beta', hash_levels: ['L2'], purpose: 'audit' }, clock: 0, data_type: 'SCALAR', parents: [] },
    });
    expect(granted.status, granted.text).to.equal(201);
  });

  after(async () => {
    for (const context of contexts) await context.close().catch(() => {});
    await browser?.close();
    await world?.stop();
    await Promise.all([peer?.stop(), federated?.stop()]);
  });

  type View = { name: string; path: string; ready: string; mask: string[]; server?: () => { url: string; token: string } };
  const views = (): View[] => [
    { name: 'thread', path: `/threads/${thread}`, ready: '[data-stream="live"]', mask: ['code', '.row .meta'] },
    { name: 'record', path: `/records/${record}`, ready: 'dl.fields', mask: ['code'] },
    { name: 'run', path: `/runs/${run}`, ready: '.steps [data-kind="decision"]', mask: ['code', '[data-time]'] },
    { name: 'decisions', path: '/decisions', ready: '[data-decision]', mask: ['code', '[data-time]'] },
    { name: 'access', path: '/access', ready: '[data-account]', mask: ['code', '[data-time]'] },
    { name: 'federation', path: '/federation', ready: '[data-consent]', mask: ['code', '[data-time]', '[data-lag]', '[data-stat]'], server: () => ({ url: federated.url, token: fedAdmin.token }) },
    { name: 'instance', path: '/instance', ready: '[data-engine]', mask: ['code', '[data-time]', '[data-engine]', 'table', '.fields dd'] },
  ];

  async function shoot(view: View): Promise<Buffer> {
    const { url, token } = view.server?.() ?? { url: world.server.url, token: world.admin.token };
    const context = await browser.newContext({ viewport: { width: 1280, height: 720 }, deviceScaleFactor: 1, reducedMotion: 'reduce', colorScheme: 'light', bypassCSP: true, locale: 'en-GB', timezoneId: 'UTC' });
    contexts.push(context);
    await context.addInitScript((bearer) => window.sessionStorage.setItem('loom.console.token', bearer), token);
    const page = await context.newPage();
    await page.goto(`${url}/console${view.path}`);
    await page.waitForSelector(view.ready, { state: 'attached' });
    // The thread and record views draw before the bootstrap answers; the header's scopes follow it.
    await page.waitForFunction(() => document.querySelector('.who')?.textContent);
    await page.addStyleTag({ content: PIN_FONTS });
    await page.evaluate(() => document.fonts.ready);
    await page.waitForTimeout(150);
    const shot = await page.screenshot({ mask: view.mask.map((selector) => page.locator(selector)), animations: 'disabled', caret: 'hide' });
    await context.close();
    return shot;
  }

  /** The share of pixels that differ (any channel by more than 32 of 255), compared in a page's canvases. */
  async function differing(page: Page, a: Buffer, b: Buffer): Promise<number> {
    return page.evaluate(
      async ({ left, right }) => {
        const load = (data: string) =>
          new Promise<any>((resolve, reject) => {
            const image = new Image();
            image.onload = () => resolve(image);
            image.onerror = reject;
            image.src = `data:image/png;base64,${data}`;
          });
        const [one, two] = await Promise.all([load(left), load(right)]);
        if (one.width !== two.width || one.height !== two.height) return 1;
        const pixels = (image: any) => {
          const canvas = document.createElement('canvas');
          canvas.width = image.width;
          canvas.height = image.height;
          const context = canvas.getContext('2d');
          context.drawImage(image, 0, 0);
          return context.getImageData(0, 0, image.width, image.height).data;
        };
        const p = pixels(one);
        const q = pixels(two);
        let count = 0;
        for (let i = 0; i < p.length; i += 4) {
          if (Math.abs(p[i] - q[i]) > 32 || Math.abs(p[i + 1] - q[i + 1]) > 32 || Math.abs(p[i + 2] - q[i + 2]) > 32) count++;
        }
        return count / (p.length / 4);
      },
      { left: a.toString('base64'), right: b.toString('base64') },
    );
  }

  it('the main views match their baselines within 0.1% of pixels, three times over', async () => {
    const comparer = await (await browser.newContext()).newPage();
    contexts.push(comparer.context());
    await mkdir(BASELINES, { recursive: true });
    const report: string[] = [];
    for (const view of views()) {
      const file = join(BASELINES, `${view.name}.png`);
      if (UPDATE) await writeFile(file, await shoot(view));
      if (!existsSync(file)) throw new Error(`${file} is missing: run this test once with LOOM_UPDATE_BASELINES=1 and commit it`);
      const baseline = await readFile(file);
      const shares: number[] = [];
      for (let round = 0; round < 3; round++) shares.push(await differing(comparer, baseline, await shoot(view)));
      report.push(`${view.name} ${shares.map((share) => (share * 100).toFixed(3)).join('/')}%`);
      for (const share of shares) expect(share, `${view.name}: differing pixels`).to.be.at.most(MAX_DIFFERING);
    }
    console.log(`      differing pixels: ${report.join(', ')}`);
  });

  it('on a phone-sized viewport no view scrolls sideways', async () => {
    const pages = new Map<string, Page>();
    const wide: string[] = [];
    for (const view of [...views(), { name: 'threads', path: '/threads', ready: '[data-thread]', mask: [] }, { name: 'folds', path: '/folds', ready: '#fold-name', mask: [] }, { name: 'members', path: '/members', ready: '[data-roster]', mask: [] }, { name: 'files', path: '/files', ready: 'main p, main table', mask: [] }] as View[]) {
      const { url, token } = view.server?.() ?? { url: world.server.url, token: world.admin.token };
      let page = pages.get(url);
      if (!page) {
        const context = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
        contexts.push(context);
        await context.addInitScript((bearer) => window.sessionStorage.setItem('loom.console.token', bearer), token);
        page = await context.newPage();
        pages.set(url, page);
      }
      await page.goto(`${url}/console${view.path}`);
      await page.waitForSelector(view.ready, { state: 'attached' });
      const widths = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, view: window.innerWidth }));
      if (widths.scroll > widths.view) wide.push(`${view.name}: ${widths.scroll}px in ${widths.view}px`);
    }
    expect(wide).to.deep.equal([]);
  });
});
