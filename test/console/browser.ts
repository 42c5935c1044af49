/**
 * Shared by the console's browser tests: Debian's Chromium through
 * playwright-core (no browser download), launched once per test file; a
 * context per scenario with the console's bearer put in sessionStorage the
 * way sign-in leaves it; every request recorded, and any request to a
 * non-loopback address aborted and reported (issue 39, test 5).
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';

// Page-side globals: the callbacks handed to the page run in the browser; this program compiles without the DOM library.
declare const document: any, sessionStorage: any;

export const CHROMIUM = '/usr/bin/chromium';

/** Launches Chromium, or skips (fails under CI, which installs it) when it is missing. */
export async function launch(context: Mocha.Context): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    const message = `${CHROMIUM} is missing; install it with: apt-get install -y chromium`;
    if (process.env['CI']) throw new Error(`${message} (CI must run the console browser tests, not skip them)`);
    console.warn(`      skipping the console browser tests: ${message}`);
    context.skip();
  }
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    chromiumSandbox: false,
    args: ['--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
}

export interface SeenRequest {
  readonly method: string;
  readonly url: string;
}

/** Every request the pages of a test file made, and the ones that left loopback. */
export class RequestLog {
  readonly seen: SeenRequest[] = [];
  readonly offLoopback: string[] = [];

  async attach(context: BrowserContext): Promise<void> {
    await context.route('**/*', async (route) => {
      const url = new URL(route.request().url());
      if (!['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname)) {
        this.offLoopback.push(url.href);
        return route.abort('blockedbyclient');
      }
      this.seen.push({ method: route.request().method(), url: url.href });
      return route.continue();
    });
  }

  /** The API requests (everything but the console's own files) that no OpenAPI operation matches. */
  undeclared(): string[] {
    const operations = openApiOperations();
    const misses = new Set<string>();
    for (const { method, url } of this.seen) {
      const path = new URL(url).pathname;
      if (path === '/console' || path.startsWith('/console/')) continue;
      if (!operations.some((op) => op.method === method && op.pattern.test(path))) misses.add(`${method} ${path}`);
    }
    return [...misses];
  }

  /** Distinct operations seen, as "METHOD /template". */
  operationsSeen(): string[] {
    const operations = openApiOperations();
    const seen = new Set<string>();
    for (const { method, url } of this.seen) {
      const path = new URL(url).pathname;
      const op = operations.find((candidate) => candidate.method === method && candidate.pattern.test(path));
      if (op) seen.add(`${method} ${op.template}`);
    }
    return [...seen].sort();
  }
}

interface Operation {
  readonly method: string;
  readonly template: string;
  readonly pattern: RegExp;
}

let operations: Operation[] | null = null;

/** The operations of the committed openapi/loom.openapi.json (tests run from dist/test/console). */
export function openApiOperations(): Operation[] {
  if (operations) return operations;
  const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
  const document = JSON.parse(readFileSync(join(root, 'openapi', 'loom.openapi.json'), 'utf8')) as { paths: Record<string, Record<string, unknown>> };
  operations = [];
  for (const [template, methods] of Object.entries(document.paths)) {
    const pattern = new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}$`);
    for (const method of Object.keys(methods)) {
      if (['get', 'post', 'put', 'patch', 'delete'].includes(method)) operations.push({ method: method.toUpperCase(), template, pattern });
    }
  }
  return operations;
}

/** A fresh context (cold cache) whose console is signed in with `token` (null: not signed in). */
export async function consoleContext(browser: Browser, log: RequestLog, token: string | null, options: { colorScheme?: 'light' | 'dark' } = {}): Promise<BrowserContext> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 720 }, reducedMotion: 'reduce', colorScheme: options.colorScheme ?? 'light' });
  await log.attach(context);
  if (token !== null) {
    await context.addInitScript((bearer) => {
      sessionStorage.setItem('loom.console.token', bearer);
    }, token);
  }
  return context;
}

/** Elements in the document (test 1's bound is 500). */
export const domSize = (page: Page) => page.evaluate(() => document.getElementsByTagName('*').length);

export function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}
