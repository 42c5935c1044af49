/**
 * A directory of built files a plugin serves under a URL prefix: a browser
 * application shipped inside the package (the console). Not an API
 * operation: no declaration, no OpenAPI entry, no auth (the files hold no
 * secret; the application calls the API with the user's own bearer).
 *
 * Order and failure: core/server/static-sites.ts answers a GET or HEAD under
 * `prefix` before routing; a path naming a file of `root` gets that file, a
 * path under `assets` naming none gets 404, any other path gets `fallback`
 * (client-side routes). Files are listed once at mount: a site is a build
 * output, not a folder that changes while the server runs.
 */
export interface StaticSite {
  /** URL prefix without a trailing slash, e.g. `/console`; `prefix` alone redirects to `prefix/`. */
  readonly prefix: string;
  /** Absolute directory of the built files. */
  readonly root: string;
  /** File (relative to root) answered for paths that name no file, never cached. */
  readonly fallback: string;
  /** Sub-directory of content-hashed files: cached for a year, `immutable`; a missing one is 404. */
  readonly assets: string;
  /** Headers on every answer of the site (a Content-Security-Policy). */
  readonly headers: Readonly<Record<string, string>>;
}
