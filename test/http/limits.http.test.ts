/** Bounded resources: the cap on open thread watches (503) and the per-client rate limit (429). */
import { expect } from 'chai';
import { bearer, bootstrapAdmin, createAccount } from '../helpers/auth.js';
import { expectEnvelope, get, newThread, startServer, type StartedServer } from '../helpers/http-server.js';

describe('resource limits (HTTP)', () => {
  let server: StartedServer;
  afterEach(async () => {
    await server?.stop();
  });

  it('refuses a thread watch past maxWatchers with 503, and frees the slot when a feed closes', async () => {
    server = await startServer({ ledger: { maxWatchers: 2 } });
    const thread = newThread('watch');
    const open = async () => {
      const controller = new AbortController();
      const response = await fetch(`${server.url}/v1/threads/${thread}/watch`, { signal: controller.signal });
      return { response, close: () => controller.abort() };
    };
    const first = await open();
    const second = await open();
    expect([first.response.status, second.response.status]).to.deep.equal([200, 200]);
    const third = await fetch(`${server.url}/v1/threads/${thread}/watch`);
    expect(third.status).to.equal(503);
    expect(await third.json()).to.include({ object: 'error', code: 'SERVICE_UNAVAILABLE' });
    expect((await get(server.url, '/health')).json.watchers).to.deep.equal({ open: 2, max: 2 });
    first.close();
    let again: Response | null = null;
    for (let i = 0; i < 50 && (again === null || again.status !== 200); i++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      again = await fetch(`${server.url}/v1/threads/${thread}/watch`);
      if (again.status !== 200) await again.text();
    }
    expect(again!.status).to.equal(200);
    second.close();
    await again!.body?.cancel();
  });

  it('limits requests per credential with 429 RATE_LIMITED, other credentials and /health unaffected', async () => {
    server = await startServer({ auth: { required: true }, rateLimit: { perSecond: 2, burst: 5 } });
    const admin = await bootstrapAdmin(server.url);
    const reader = await createAccount(server.url, admin, 'reader', ['records:read']);
    const statuses: number[] = [];
    for (let i = 0; i < 8; i++) statuses.push((await get(server.url, '/v1/threads', bearer(reader))).status);
    expect(statuses.slice(0, 5)).to.deep.equal([200, 200, 200, 200, 200]);
    expect(statuses.slice(5)).to.include(429);
    const limited = await get(server.url, '/v1/threads', bearer(reader));
    expectEnvelope(limited, 429, 'RATE_LIMITED', '', { retry_after_ms: 500 });
    expect(limited.headers.get('retry-after')).to.equal('1'); // whole seconds, rounded up
    for (let i = 0; i < 10; i++) expect((await get(server.url, '/health')).status).to.equal(200);
    expect((await get(server.url, '/v1/threads', bearer(admin))).status).to.equal(200);
  });
});
