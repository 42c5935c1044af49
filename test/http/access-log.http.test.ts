/** The access log (pino JSON lines at info) and X-Request-Id: accepted, echoed, never a token or a body in the log. */
import { expect } from 'chai';
import { jsonLogger } from '../../core/plugin/logger.js';
import { bearer, bootstrapAdmin } from '../helpers/auth.js';
import { get, newThread, request, startServer, type StartedServer } from '../helpers/http-server.js';

describe('access log and request ids (HTTP)', () => {
  let server: StartedServer;
  const lines: string[] = [];
  before(async () => {
    server = await startServer({ auth: { required: true }, logger: jsonLogger({ write: (line) => lines.push(line) }) });
  });
  after(() => server?.stop());

  const entries = () => lines.map((line) => JSON.parse(line) as Record<string, unknown>).filter((entry) => entry['msg'] === 'request');

  it('logs every answered request with its id, route, status, code, duration and address; echoes X-Request-Id', async () => {
    const admin = await bootstrapAdmin(server.url);
    const thread = newThread('access');
    const secretBody = 'do-not-log-this-body';
    const answer = await request(server.url, 'POST', '/v1/records', {
      json: { thread, actor: 'did:sync:user:alice', act: 'KNOW', body: { text: secretBody }, clock: 0, data_type: 'SCALAR' },
      headers: { ...bearer(admin), 'x-request-id': 'client-42' },
    });
    expect(answer.status).to.equal(201);
    expect(answer.headers.get('x-request-id')).to.equal('client-42');
    const refused = await get(server.url, '/v1/threads', { 'x-request-id': 'has spaces, refused' });
    expect(refused.status).to.equal(401);
    const generated = refused.headers.get('x-request-id')!;
    expect(generated).to.match(/^[0-9a-f-]{36}$/);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const ingest = entries().find((entry) => entry['req_id'] === 'client-42')!;
    expect(ingest).to.include({ level: 'info', route: 'ingestRecord', method: 'POST', path: '/v1/records', status: 201 });
    expect(ingest['ms']).to.be.a('number');
    expect(ingest['remote']).to.equal('127.0.0.1');
    expect(entries().find((entry) => entry['req_id'] === generated)).to.include({ status: 401, code: 'AUTH_REQUIRED', route: 'listThreads' });
    const everything = lines.join('\n');
    expect(everything).to.not.contain(admin.token);
    expect(everything).to.not.contain(admin.token.split('_').pop()!);
    expect(everything).to.not.contain(secretBody);
  });
});
