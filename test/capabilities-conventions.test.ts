/**
 * The manifest's `conventions` is open: every convention a loaded plugin
 * describes (`scope.describe('manifest', 'conventions.<name>', …)`) reaches
 * GET /v1/capabilities, the spec's four paths and any other (the data
 * plane's data_plane) alike.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { resolve } from '../core/di/token.js';
import { DiscoveryFactsToken } from '../core/plugin/discovery-facts.js';
import { silentLogger } from '../core/plugin/logger.js';
import { createReferenceLoom } from '../server/reference-loom.js';
import type { Loom } from '../core/server/create-loom.js';

describe('/v1/capabilities conventions', () => {
  let dataDir: string;
  let loom: Loom;

  before(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'loom-conventions-'));
    loom = await createReferenceLoom({ dataDir, port: 0, logger: silentLogger, federation: {}, auth: { required: false } });
    await loom.initialize();
  });

  after(async () => {
    await loom?.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('carries every convention a loaded plugin describes', async () => {
    const described = Object.entries(resolve(loom.container, DiscoveryFactsToken).read('manifest'))
      .filter(([key]) => key.startsWith('conventions.'))
      .map(([key, value]) => [key.slice('conventions.'.length), value] as const);
    expect(described.map(([name]) => name)).to.include.members(['identity_path', 'sync_path', 'trust_path', 'data_plane']);
    const answer = await loom.server.inject({ method: 'GET', url: '/v1/capabilities' });
    expect(answer.statusCode).to.equal(200);
    const conventions = (answer.result as { conventions: Record<string, unknown> }).conventions;
    for (const [name, value] of described) expect(conventions[name], name).to.deep.equal(value);
    expect(conventions['data_plane']).to.include({ capabilities_path: '/v1/data/capabilities' });
    // A path no loaded plugin serves stays null rather than disappearing.
    // The work plugin serves decisions (issue 34).
    expect(conventions).to.have.property('decisions_path', '/v1/decisions');
  });
});
