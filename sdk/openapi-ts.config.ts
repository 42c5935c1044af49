/**
 * @hey-api/openapi-ts 0.95.0 configuration (`npm run sdk:generate`).
 * Generates sdk/gen/ from the committed openapi/loom.openapi.json on every
 * build; sdk/gen/ is git-ignored. Paths are resolved from this file, so the
 * CLI can run from any working directory.
 */
import { fileURLToPath } from 'node:url';
import { defineConfig } from '@hey-api/openapi-ts';

const here = (relative: string) => fileURLToPath(new URL(relative, import.meta.url));

export default defineConfig({
  input: here('../openapi/loom.openapi.json'),
  output: {
    path: here('./gen'),
    // nodenext ESM: relative imports need their runtime extension.
    module: { extension: '.js' },
  },
  plugins: ['@hey-api/client-fetch', '@hey-api/typescript', '@hey-api/sdk'],
});
