/**
 * `npm run openapi:emit`: writes openapi/loom.openapi.json from the route
 * catalogue of a composed, never-started server. Commit the result; the drift
 * test fails until the committed file matches the declarations.
 */
// tsyringe needs the Reflect polyfill before any container module loads.
import 'reflect-metadata';
import { writeFile } from 'node:fs/promises';
import { relative } from 'node:path';
import { buildPublishedOpenApi, publishedDocumentPath, repoRoot, serialiseDocument } from './published-document.js';

const document = await buildPublishedOpenApi();
const path = publishedDocumentPath();
await writeFile(path, serialiseDocument(document));
const operations = Object.values(document.paths ?? {}).reduce((n, item) => n + Object.keys(item).length, 0);
process.stdout.write(`wrote ${relative(repoRoot(), path)}: ${operations} operations, ${Object.keys(document.components?.schemas ?? {}).length} schemas\n`);
