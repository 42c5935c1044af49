/**
 * Decisions and runs in the console (issue 39, test 7) against a real Loom
 * whose work plugin talks to the Anthropic fake (test/work/loop-harness.ts):
 * with the decisions view open, a run asks a question; the question appears
 * within 100 ms of its record being written; answering it in the console
 * resumes the run, which completes (the decision leaves the pending queue,
 * the run row leaves waiting_on_you). The run view then shows the run's
 * steps, spend and outcome. One browser for the file.
 */
import { expect } from 'chai';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { VENDORS } from '../fakes/provider-harness.js';
import { script } from '../fakes/script.js';
import { loopWorld, type LoopWorld } from '../work/loop-harness.js';
import { consoleContext, launch, RequestLog } from './browser.js';

// Page-side globals: the callbacks handed to page.evaluate run in the browser; this program compiles without the DOM library.
declare const document: any, window: any, MutationObserver: any;

const anthropic = VENDORS.find((vendor) => vendor.provider === 'anthropic')!;
const KIND_DECISION_REQUEST = 'core.work.decision_request.v1';

describe('web console: decisions and runs in Chromium (issue 39, test 7)', function () {
  this.timeout(120_000);
  let browser: Browser;
  let world: LoopWorld;
  const log = new RequestLog();
  const contexts: BrowserContext[] = [];

  before(async function () {
    browser = await launch(this);
    world = await loopWorld(anthropic);
  });
  after(async () => {
    for (const context of contexts) await context.close().catch(() => {});
    await browser?.close();
    await world?.stop();
  });

  async function open(path: string): Promise<Page> {
    const context = await consoleContext(browser, log, world.owner.token);
    contexts.push(context);
    const page = await context.newPage();
    await page.goto(`${world.server.url}/console${path}`);
    return page;
  }

  /** Resolves with the time (Date.now) the next decision request is published on the log. */
  function nextDecisionWritten(): Promise<{ at: number; id: string }> {
    const subscription = world.server.loom.engine.bus.subscribe({});
    return (async () => {
      try {
        for await (const stored of subscription) {
          if ((stored.record.body as { kind?: unknown }).kind === KIND_DECISION_REQUEST) return { at: Date.now(), id: stored.record.id };
        }
        throw new Error('the bus closed before a decision was raised');
      } finally {
        subscription.close();
      }
    })();
  }

  it('a pending decision appears within 100 ms of being raised, and answering it in the console resumes the run', async () => {
    const page = await open('/decisions');
    await page.getByRole('heading', { name: 'Decisions' }).waitFor();
    await page.waitForSelector('[data-empty]');
    await page.evaluate(() => {
      const seen = new Map<string, number>();
      window.__seen = seen;
      new MutationObserver(() => {
        for (const card of document.querySelectorAll('[data-decision]')) {
          const id = card.getAttribute('data-decision');
          if (!seen.has(id)) seen.set(id, performance.timeOrigin + performance.now());
        }
      }).observe(document.body, { subtree: true, childList: true });
    });

    // The model asks after a pause long enough for the console to see the run start (it re-reads running runs each second).
    world.fake.enqueue(
      script.toolCalls(
        [
          {
            id: 'toolu_console1',
            name: 'ask',
            input: {
              question: 'Which colour for the shed?',
              options: [
                { id: 'opt_blue', label: 'Cerulean', description: 'The calm blue of the logo.', recommended: true },
                { id: 'opt_red', label: 'Vermilion', description: 'A loud red.' },
              ],
            },
          },
        ],
        { faults: { stallBeforeHeadersMs: 2_500 } },
      ),
      script.text('Painted it cerulean.'),
    );
    const written = nextDecisionWritten();
    const thread = await world.run({ goal: 'paint the shed' });
    const raised = await written;
    await page.waitForSelector(`[data-decision="${raised.id}"]`);
    const shown = await page.evaluate((id) => window.__seen.get(id), raised.id);
    const latency = shown - raised.at;
    console.log(`      decision raised → shown in the console: ${latency.toFixed(1)} ms`);
    expect(latency).to.be.below(100);

    // Answer in place with the ask's own option.
    const card = page.locator(`[data-decision="${raised.id}"]`);
    expect(await card.getByRole('heading').textContent()).to.equal('Which colour for the shed?');
    await card.getByRole('button', { name: /Cerulean/ }).click();
    await page.waitForSelector(`[data-decision="${raised.id}"]`, { state: 'detached' });

    const ended = await world.ended(thread);
    expect(ended.outcome).to.equal('completed');
    const pending = await world.call('GET', `/v1/decisions?run=${thread}`);
    expect(pending.json.data).to.deep.equal([]);
    // The run read the answer's words.
    const request = JSON.parse(world.fake.requests.at(-1)!.rawBody);
    expect(JSON.stringify(request.messages)).to.include('Cerulean');

    // The run view: steps, state and outcome.
    await page.getByRole('link', { name: 'Runs' }).click();
    await page.waitForSelector(`[data-run="${thread}"]`);
    await page.click(`[data-run="${thread}"] a`);
    await page.waitForSelector('[data-run-state="done"]');
    await page.waitForSelector('.steps [data-kind="outcome"]');
    const kinds = await page.$$eval('.steps [data-kind]', (items) => items.map((item: any) => item.getAttribute('data-kind')));
    expect(kinds).to.include.members(['start', 'decision', 'answer', 'outcome']);
    // A finished run offers no steering.
    expect(await page.locator('[data-write]').count()).to.equal(0);
  });

  it('steers and cancels a running run from the run view', async () => {
    // The first turn stalls long enough to steer and cancel while it waits.
    world.fake.enqueue(script.text('never read', { faults: { stallBeforeHeadersMs: 20_000 } }));
    const thread = await world.run({ goal: 'a long job' });
    const page = await open(`/runs/${thread}`);
    await page.waitForSelector('[data-run-state="running"]');
    await page.getByLabel('Message to the member').fill('please hurry');
    await page.getByRole('button', { name: 'Send' }).click();
    await page.waitForSelector('.steps [data-kind="message"]');
    await page.getByRole('button', { name: 'Cancel the run' }).click();
    await page.waitForSelector('[data-run-state="stopped"]');
    const ended = await world.ended(thread);
    expect(ended.outcome).to.equal('cancelled');
  });

  it('every request was an OpenAPI operation, none off loopback (test 5)', () => {
    console.log(`      operations used: ${log.operationsSeen().join(', ')}`);
    expect(log.undeclared()).to.deep.equal([]);
    expect(log.offLoopback).to.deep.equal([]);
  });
});
