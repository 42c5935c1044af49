/** /health probes storage; /health/live and /health/ready split liveness from readiness. */
import { expect } from 'chai';
import { rm } from 'node:fs/promises';
import { get, startServer, type StartedServer } from '../helpers/http-server.js';

describe('health probes (HTTP)', () => {
  let server: StartedServer;
  afterEach(async () => {
    await server?.stop().catch(() => undefined);
  });

  it('answers ok with the storage probe while the log reads and the disk writes', async () => {
    server = await startServer();
    const health = await get(server.url, '/health');
    expect(health.status).to.equal(200);
    expect(health.json.status).to.equal('ok');
    expect(health.json.storage.probe).to.include({ ok: true, error: null });
    expect(health.json.storage.probe.write_ms).to.be.a('number');
    expect((await get(server.url, '/health/live')).json).to.deep.equal({ status: 'ok' });
    const ready = await get(server.url, '/health/ready');
    expect(ready.status).to.equal(200);
    expect(ready.json.status).to.equal('ok');
  });

  it('is not ok when the data directory cannot be written, while liveness still answers', async () => {
    server = await startServer();
    await rm(server.dataDir, { recursive: true, force: true });
    await new Promise((resolve) => setTimeout(resolve, 2_100)); // past the probe's 2 s cache
    const ready = await get(server.url, '/health/ready');
    expect(ready.status).to.equal(503);
    expect(ready.json.status).to.equal('unavailable');
    expect(ready.json.storage.error).to.contain('ENOENT');
    const health = await get(server.url, '/health');
    expect(health.status).to.equal(503);
    expect(health.json.status).to.equal('unavailable');
    expect((await get(server.url, '/health/live')).status).to.equal(200);
  });
});
