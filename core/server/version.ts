/** The package version, read once from package.json. */
import { readFileSync } from 'node:fs';

/** The npm package's name (`loom` is taken on the registry); the CLI binary stays `loom`. */
export const LOOM_PACKAGE_NAME = '@loom-ledger/server';

function findVersion(): string {
  // dist/core/server/version.js and core/server/version.ts both sit three levels below the root.
  for (const relative of ['../../../package.json', '../../package.json']) {
    try {
      const pkg = JSON.parse(readFileSync(new URL(relative, import.meta.url), 'utf8')) as { name?: string; version?: string };
      if (pkg.name === LOOM_PACKAGE_NAME && pkg.version) return pkg.version;
    } catch {
      // try the next candidate
    }
  }
  return '0.0.0';
}

export const LOOM_VERSION = findVersion();
