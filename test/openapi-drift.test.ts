/**
 * The committed contract, openapi/loom.openapi.json, must equal a fresh build
 * from the route catalogue of a composed (never started) Loom (fastify's
 * test:validator:integrity). Fix a failure with `npm run openapi:emit`.
 */
import { readFile } from 'node:fs/promises';
import { expect } from 'chai';
import { buildPublishedOpenApi, publishedDocumentPath, serialiseDocument } from '../server/openapi/published-document.js';

const FIX = 'openapi/loom.openapi.json is out of date with the route declarations: run `npm run openapi:emit` and commit the result';

describe('openapi drift', () => {
  it('the committed document equals a fresh build from the route catalogue', async () => {
    const committedText = await readFile(publishedDocumentPath(), 'utf8');
    const fresh = serialiseDocument(await buildPublishedOpenApi());
    expect(JSON.parse(committedText), FIX).to.deep.equal(JSON.parse(fresh));
    // Same content is not enough: key order and formatting are pinned too, so the emitted file never churns.
    expect(committedText === fresh, FIX).to.equal(true);
  });
});
