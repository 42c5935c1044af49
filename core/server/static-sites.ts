/**
 * Mounts the plugins' static sites (core/plugin/static-site.ts) with
 * @hapi/inert. They are answered in `onRequest`, before routing, so they add
 * no route to the table: the router holds exactly the declared API
 * operations (test/route-coverage.test.ts) and the OpenAPI document stays the
 * API's. The files are listed once at mount, so a request can only name a
 * file the build wrote (no path is joined from user input).
 */
import { readdirSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import type Hapi from '@hapi/hapi';
import Inert from '@hapi/inert';
import type { StaticSite } from '../plugin/static-site.js';

/** Hashed assets never change under their name. */
const IMMUTABLE = 'public, max-age=31536000, immutable';
/** The entry page names the current hashes: always revalidated. */
const REVALIDATE = 'no-cache';

function listFiles(root: string): Set<string> {
  const files = new Set<string>();
  for (const entry of readdirSync(root, { recursive: true, withFileTypes: true })) {
    if (entry.isFile()) files.add(relative(root, join(entry.parentPath, entry.name)).split(sep).join('/'));
  }
  return files;
}

export async function mountStaticSites(server: Hapi.Server, sites: readonly StaticSite[]): Promise<void> {
  if (sites.length === 0) return;
  await server.register(Inert);
  const mounted = sites.map((site) => {
    if (!statSync(site.root, { throwIfNoEntry: false })?.isDirectory()) throw new Error(`static site ${site.prefix}: ${site.root} is not a directory (was the console built? npm run build)`);
    const files = listFiles(site.root);
    if (!files.has(site.fallback)) throw new Error(`static site ${site.prefix}: ${site.fallback} is missing from ${site.root}`);
    return { site, files };
  });
  server.ext('onRequest', (request, h) => {
    // The path as sent: the router strips a trailing slash from request.path, and `/console/` must differ from `/console`.
    const path = (request.raw.req.url ?? '').split('?')[0]!;
    const found = mounted.find(({ site }) => path === site.prefix || path.startsWith(`${site.prefix}/`));
    if (!found) return h.continue;
    const { site, files } = found;
    if (request.method !== 'get' && request.method !== 'head') return h.continue; // the router answers 404/405
    if (path === site.prefix) return h.redirect(`${site.prefix}/`).takeover();
    let name: string;
    try {
      name = decodeURIComponent(path.slice(site.prefix.length + 1));
    } catch {
      name = '';
    }
    const asset = name.startsWith(`${site.assets}/`);
    if (asset && !files.has(name)) return h.continue; // a stale hash: 404 from the router, never the page as script
    const file = files.has(name) ? name : site.fallback;
    const response = h.file(join(site.root, file), { confine: site.root, etagMethod: 'hash' });
    for (const [header, value] of Object.entries(site.headers)) response.header(header, value);
    response.header('cache-control', asset ? IMMUTABLE : REVALIDATE);
    response.header('x-content-type-options', 'nosniff');
    return response.takeover();
  });
}
