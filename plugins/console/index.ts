/**
 * The console plugin: the web console (console/, a Preact application built
 * by `npm run build` into dist/console/) served at `/console/`. It declares no
 * route: the console is an SDK client of the `/v1` API like any other, and
 * its files are a static site (core/plugin/static-site.ts) with a strict
 * Content-Security-Policy: every script and style is a file of the build, no
 * inline script, no other origin. The reference server loads it; an embedder
 * leaves it out by not listing it.
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Type } from 'typebox';
import { definePlugin } from '../../core/plugin/plugin.js';

/** Where `npm run build` writes the console: dist/console/, beside dist/plugins/. */
export const CONSOLE_BUILD_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'console');

/** The URL prefix; `loom serve` prints `<url>/console/`. */
export const CONSOLE_PATH = '/console';

/**
 * Same origin only, nothing inline, no framing. `connect-src 'self'` is what
 * keeps the console from calling anything but this instance.
 */
export const CONSOLE_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
  "font-src 'self'; object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/** True when `root` holds a built console (its entry page). */
export const consoleBuilt = (root: string = CONSOLE_BUILD_DIR): boolean => existsSync(join(root, 'index.html'));

const ConsoleOptions = Type.Object(
  { root: Type.Optional(Type.String({ description: 'Directory of the built console. @default dist/console' })) },
  { additionalProperties: false },
);

export const consolePlugin = definePlugin({
  name: 'console',
  version: '1.0.0',
  options: ConsoleOptions,
  register(scope, options) {
    const root = options?.root ?? CONSOLE_BUILD_DIR;
    // A tree compiled with tsc alone has no console: the API still serves, and says why /console/ does not.
    if (!consoleBuilt(root)) {
      scope.log.log('warn', 'console not built: /console/ is not served (npm run build builds it)', { root });
      return;
    }
    scope.staticSite({
      prefix: CONSOLE_PATH,
      root,
      fallback: 'index.html',
      assets: 'assets',
      headers: { 'content-security-policy': CONSOLE_CSP, 'referrer-policy': 'no-referrer', 'x-frame-options': 'DENY' },
    });
  },
});
