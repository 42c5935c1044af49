/** POST /v1/records/batch: many records per request, each judged as a single ingest would be. */
import { expect } from 'chai';
import { bearer, bootstrapAdmin, createAccount } from '../helpers/auth.js';
import { expectEnvelope, get, newThread, postJson, request, startServer, type StartedServer } from '../helpers/http-server.js';

const input = (thread: string, clock: number, overrides: Record<string, unknown> = {}) => ({ thread, actor: 'did:sync:user:alice', act: 'KNOW', body: { n: clock }, clock, data_type: 'SCALAR', ...overrides });

describe('batch ingest (HTTP)', () => {
  let server: StartedServer;
  before(async () => {
    server = await startServer();
  });
  after(() => server?.stop());

  it('stores a JSON array in order with one result per record; a refused record does not stop the rest', async () => {
    const thread = newThread('batch');
    const first = input(thread, 0);
    expect((await postJson(server.url, '/v1/records', first)).status).to.equal(201);
    const body = [first, input(thread, 1), { ...input(thread, 2), act: 'SHOUT' }, input(thread, 1, { body: { other: true } }), input(thread, 3)];
    const answer = await postJson(server.url, '/v1/records/batch', body);
    expect(answer.status, answer.text).to.equal(200);
    expect(answer.json).to.include({ object: 'batch_result', created: 2, existing: 1, refused: 2 });
    expect(answer.json.results.map((r: { status: number }) => r.status)).to.deep.equal([200, 201, 400, 409, 201]);
    expect(answer.json.results[2]).to.include({ index: 2, code: 'INVALID_SHAPE' });
    expect(answer.json.results[3]).to.include({ code: 'DUPLICATE_CLOCK' });
    const listed = (await get(server.url, `/v1/records?thread=${thread}`)).json.data;
    expect(listed.map((r: { clock: number }) => r.clock)).to.deep.equal([0, 1, 3]);
    expect(answer.json.results[4].sequence).to.be.greaterThan(answer.json.results[1].sequence);
  });

  it('takes NDJSON, one record per line, and names a bad line', async () => {
    const thread = newThread('ndjson');
    const text = [input(thread, 0), input(thread, 1)].map((r) => JSON.stringify(r)).join('\n') + '\n\n';
    const answer = await request(server.url, 'POST', '/v1/records/batch', { body: text, headers: { 'content-type': 'application/x-ndjson' } });
    expect(answer.status, answer.text).to.equal(200);
    expect(answer.json.created).to.equal(2);
    const bad = await request(server.url, 'POST', '/v1/records/batch', { body: JSON.stringify(input(thread, 2)) + '\n{oops\n', headers: { 'content-type': 'application/x-ndjson' } });
    expectEnvelope(bad, 400, 'INVALID_SHAPE');
    expect(bad.json.message).to.contain('line 2');
    expectEnvelope(await request(server.url, 'POST', '/v1/records/batch', { body: 'x', headers: { 'content-type': 'text/plain' } }), 415, 'UNSUPPORTED_MEDIA_TYPE');
  });

  it('refuses an empty batch, a non-array and more than 1,000 records', async () => {
    expectEnvelope(await postJson(server.url, '/v1/records/batch', []), 400, 'INVALID_SHAPE');
    expectEnvelope(await postJson(server.url, '/v1/records/batch', { records: [] }), 400, 'INVALID_SHAPE');
    const thread = newThread('big');
    const tooMany = Array.from({ length: 1001 }, (_, i) => input(thread, i));
    const answer = await postJson(server.url, '/v1/records/batch', tooMany);
    expectEnvelope(answer, 400, 'INVALID_SHAPE');
    expect(answer.json.message).to.contain('at most 1000');
  });

  describe('with auth', () => {
    let authed: StartedServer;
    after(() => authed?.stop());

    it('applies the same gates per record as single ingest', async () => {
      authed = await startServer({ auth: { required: true } });
      const admin = await bootstrapAdmin(authed.url);
      const mine = newThread('mine');
      const theirs = newThread('theirs');
      const writer = await createAccount(authed.url, admin, 'thread writer', [`thread:${mine}:write`, `thread:${mine}:read`], ['did:sync:user:alice']);
      const answer = await request(authed.url, 'POST', '/v1/records/batch', { json: [input(mine, 0), input(theirs, 0), input(mine, 1, { actor: 'did:sync:user:mallory' })], headers: bearer(writer) });
      expect(answer.status, answer.text).to.equal(200);
      expect(answer.json.results.map((r: { status: number }) => r.status)).to.deep.equal([201, 403, 403]);
      expectEnvelope(await postJson(authed.url, '/v1/records/batch', [input(mine, 5)]), 401, 'AUTH_REQUIRED');
    });
  });
});
