/**
 * The published contract, openapi/loom.openapi.json: the document of the
 * reference server's composition (every plugin it can load), built from a Loom that is
 * composed but never started. `npm run openapi:emit` writes it and
 * test/openapi-drift.test.ts compares it with a fresh build, so both go
 * through this one function.
 */
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { OpenAPIObject } from 'openapi3-ts/oas31';
import { silentLogger } from '../../core/plugin/logger.js';
import { LOOM_PACKAGE_NAME } from '../../core/server/version.js';
import { createReferenceLoom } from '../reference-loom.js';
import { buildOpenApi } from '../../openapi/build-spec.js';

/** The repository root: the nearest folder above this file with Loom's package.json (works from source and from dist/). */
export function repoRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest) && (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === LOOM_PACKAGE_NAME) return dir;
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`no Loom package.json above ${fileURLToPath(import.meta.url)}`);
    dir = parent;
  }
}

export function publishedDocumentPath(): string {
  return join(repoRoot(), 'openapi', 'loom.openapi.json');
}

/** 2-space JSON plus a final newline: the committed form. */
export function serialiseDocument(document: OpenAPIObject): string {
  return JSON.stringify(document, null, 2) + '\n';
}

export async function buildPublishedOpenApi(): Promise<OpenAPIObject> {
  const dataDir = await mkdtemp(join(tmpdir(), 'loom-openapi-'));
  try {
    // Every plugin the reference server can load, federation included (its key, and so the DID, are throwaway: the document does not depend on them).
    const loom = await createReferenceLoom({ storage: 'sqlite', dataDir, logger: silentLogger, federation: {} });
    try {
      return buildOpenApi(loom.catalog, loom.info);
    } finally {
      await loom.stop();
    }
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
}
