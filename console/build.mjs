/**
 * Builds the console into dist/console/: an ESM entry bundle (plus the
 * chunks of the views loaded on first visit) and one stylesheet under
 * assets/ with content hashes in their names (served `immutable`), and
 * index.html naming the entry and the stylesheet (served `no-cache`). No inline script or style, so
 * the CSP can say `default-src 'self'`. Type-checking is tsc's
 * (console/tsconfig.json), run before this by `npm run build`.
 */
import { build } from 'esbuild';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const out = join(here, '..', 'dist', 'console');
await rm(out, { recursive: true, force: true });
await mkdir(join(out, 'assets'), { recursive: true });

/**
 * The SDK's index also exports offline verifiers (verify-fold, verify-run) that
 * import fold code and TypeBox; the console uses none of them. Those modules
 * only declare, so they are marked side-effect free and esbuild drops what
 * nothing uses (about half the bundle).
 */
const PURE = /[\\/](plugins|core[\\/]folds)[\\/]|[\\/]node_modules[\\/]typebox[\\/]/;
const pureModules = {
  name: 'pure-modules',
  setup(builder) {
    builder.onResolve({ filter: /.*/ }, async (args) => {
      if (args.pluginData === 'pure-modules' || args.kind === 'entry-point') return undefined;
      const resolved = await builder.resolve(args.path, { kind: args.kind, resolveDir: args.resolveDir, importer: args.importer, pluginData: 'pure-modules' });
      if (resolved.errors.length > 0 || !PURE.test(resolved.path)) return undefined;
      return { ...resolved, sideEffects: false };
    });
  },
};

const result = await build({
  entryPoints: [join(here, 'main.tsx')],
  outdir: join(out, 'assets'),
  entryNames: '[name]-[hash]',
  // The federation, members and files views load on first visit: the thread view's cold load parses less.
  splitting: true,
  chunkNames: 'chunk-[hash]',
  assetNames: '[name]-[hash]',
  bundle: true,
  format: 'esm',
  platform: 'browser',
  target: ['chrome110', 'firefox110', 'safari16'],
  minify: true,
  jsx: 'automatic',
  jsxImportSource: 'preact',
  metafile: true,
  legalComments: 'none',
  logLevel: 'warning',
  plugins: [pureModules],
});

const outputs = Object.keys(result.metafile.outputs).map((file) => basename(file));
const entry = Object.entries(result.metafile.outputs).find(([, output]) => output.entryPoint && output.entryPoint.endsWith('main.tsx'));
const script = entry ? basename(entry[0]) : undefined;
// The chunks the entry imports statically are preloaded beside it, so splitting adds no round trip to a cold load.
const preloads = entry ? entry[1].imports.filter((imported) => imported.kind === 'import-statement').map((imported) => basename(imported.path)) : [];
const style = outputs.find((file) => file.endsWith('.css'));
if (!script || !style) throw new Error(`console build: expected a .js and a .css output, got ${outputs.join(', ')}`);

await writeFile(
  join(out, 'index.html'),
  `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>Loom console</title>
<link rel="stylesheet" href="/console/assets/${style}">
<script type="module" src="/console/assets/${script}"></script>
${preloads.map((chunk) => `<link rel="modulepreload" href="/console/assets/${chunk}">\n`).join('')}
</head>
<body>
<div id="app"></div>
<noscript>The Loom console needs JavaScript; the API is at /v1.</noscript>
</body>
</html>
`,
);
console.log(`console: dist/console/assets/${script}, ${style}`);
