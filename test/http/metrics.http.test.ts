/** GET /metrics: Prometheus text, behind config:read, with request, record and process metrics. */
import { expect } from 'chai';
import { bearer, bootstrapAdmin, createAccount } from '../helpers/auth.js';
import { expectEnvelope, get, newThread, request, startServer, type StartedServer } from '../helpers/http-server.js';

describe('metrics (HTTP)', () => {
  let server: StartedServer;
  before(async () => {
    server = await startServer({ auth: { required: true } });
  });
  after(() => server?.stop());

  it('needs config:read and answers the Prometheus text format with request, record and process metrics', async () => {
    const admin = await bootstrapAdmin(server.url);
    const scraper = await createAccount(server.url, admin, 'scraper', ['config:read']);
    const writer = await createAccount(server.url, admin, 'writer', ['records:write'], ['did:sync:user:alice']);
    expectEnvelope(await get(server.url, '/metrics'), 401, 'AUTH_REQUIRED');
    expectEnvelope(await get(server.url, '/metrics', bearer(writer)), 403, 'SCOPE_FORBIDDEN');
    const thread = newThread('metrics');
    for (let clock = 0; clock < 3; clock++) {
      const answer = await request(server.url, 'POST', '/v1/records', { json: { thread, actor: 'did:sync:user:alice', act: 'KNOW', body: {}, clock, data_type: 'SCALAR' }, headers: bearer(writer) });
      expect(answer.status).to.equal(201);
    }
    const scraped = await get(server.url, '/metrics', bearer(scraper));
    expect(scraped.status).to.equal(200);
    expect(scraped.headers.get('content-type')).to.match(/^text\/plain; version=0\.0\.4/);
    const text = scraped.text;
    const value = (line: RegExp) => Number(new RegExp(`^${line.source} (\\S+)$`, 'm').exec(text)?.[1]);
    expect(value(/loom_http_request_duration_seconds_count\{route="ingestRecord",method="POST",status="201"\}/)).to.equal(3);
    expect(value(/loom_http_refusals_total\{route="getMetrics",code="AUTH_REQUIRED"\}/)).to.equal(1);
    expect(value(/loom_records_published_total/)).to.be.at.least(3);
    expect(value(/loom_log_head_sequence/)).to.be.at.least(3);
    expect(value(/loom_watchers_open/)).to.equal(0);
    // The thread written above, plus the instance's own (the credentials thread …), once applied.
    expect(value(/loom_threads/)).to.be.at.least(1);
    expect(text).to.match(/^process_cpu_user_seconds_total \d/m);
    expect(text).to.match(/^nodejs_eventloop_lag_seconds \d/m);
    expect(text).to.contain('# TYPE loom_publish_batch_records histogram');
  });
});
