/**
 * Refusals that say what was wrong instead of answering as if nothing were:
 * duplicate JSON keys, a resend that differs only in judged_by, malformed
 * thread and actor filters; and the immutable caching of a record by id.
 */
import { expect } from 'chai';
import { brotliCompressSync, gzipSync } from 'node:zlib';
import { expectEnvelope, get, newThread, postJson, request, startServer, type StartedServer } from '../helpers/http-server.js';

describe('exact errors and record caching (HTTP)', () => {
  let server: StartedServer;
  before(async () => {
    server = await startServer();
  });
  after(() => server?.stop());

  const record = (overrides: Record<string, unknown> = {}) => ({ thread: newThread('exact'), actor: 'did:sync:user:alice', act: 'KNOW', body: { text: 'hello' }, clock: 0, data_type: 'SCALAR', ...overrides });

  it('refuses a body that names a member twice (I-JSON), at any depth', async () => {
    const text = JSON.stringify(record()).replace('"act":"KNOW"', '"act":"KNOW","act":"DO"');
    const answer = await request(server.url, 'POST', '/v1/records', { body: text, headers: { 'content-type': 'application/json' } });
    expectEnvelope(answer, 400, 'INVALID_SHAPE');
    expect(answer.json.message).to.contain('"act" twice');
    const nested = JSON.stringify(record()).replace('"text":"hello"', '"text":"hello","text":"bye"');
    expectEnvelope(await request(server.url, 'POST', '/v1/records', { body: nested, headers: { 'content-type': 'application/json' } }), 400, 'INVALID_SHAPE');
    const query = await request(server.url, 'POST', '/v1/records/query', { body: '{"limit":1,"limit":2}', headers: { 'content-type': 'application/json' } });
    expectEnvelope(query, 400, 'INVALID_QUERY');
  });

  it('answers 409 JUDGED_BY_CONFLICT naming the stored value when a resend differs only in judged_by', async () => {
    const input = record();
    expect((await postJson(server.url, '/v1/records', input)).status).to.equal(201);
    expect((await postJson(server.url, '/v1/records', input)).status).to.equal(200);
    const judge = 'a'.repeat(64);
    const answer = await postJson(server.url, '/v1/records', { ...input, judged_by: judge });
    expectEnvelope(answer, 409, 'JUDGED_BY_CONFLICT', '', { stored_judged_by: null });
  });

  it('takes a gzip- or br-compressed JSON body, and says what is wrong with one that does not decompress', async () => {
    const input = JSON.stringify(record({ thread: newThread('gzip') }));
    const gzipped = await request(server.url, 'POST', '/v1/records', { body: gzipSync(input), headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' } });
    expect(gzipped.status, gzipped.text).to.equal(201);
    const brotli = await request(server.url, 'POST', '/v1/records', { body: brotliCompressSync(JSON.stringify(record({ thread: newThread('br') }))), headers: { 'content-type': 'application/json', 'content-encoding': 'br' } });
    expect(brotli.status, brotli.text).to.equal(201);
    const lying = await request(server.url, 'POST', '/v1/records', { body: input, headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' } });
    expectEnvelope(lying, 400, 'INVALID_SHAPE');
    expect(lying.json.message).to.match(/^request body does not decompress as its Content-Encoding says/);
    const unknown = await request(server.url, 'POST', '/v1/records', { body: input, headers: { 'content-type': 'application/json', 'content-encoding': 'zstd' } });
    expectEnvelope(unknown, 415, 'UNSUPPORTED_MEDIA_TYPE');
    // A compression bomb stops at the byte limit of what it decompresses to.
    const bomb = gzipSync(Buffer.alloc(20 * 1024 * 1024, 0x20));
    expectEnvelope(await request(server.url, 'POST', '/v1/records', { body: bomb, headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' } }), 413, 'PAYLOAD_TOO_LARGE');
  });

  it('says which parameter is unknown and what is accepted, in the request\'s terms', async () => {
    const answer = await get(server.url, `/v1/threads/${newThread('words')}/records?offset=3`);
    expectEnvelope(answer, 400, 'INVALID_SHAPE');
    expect(answer.json.message).to.equal('query: unknown parameter "offset" (accepted: after, limit)');
    const act = await postJson(server.url, '/v1/records/query', { filter: {}, sort: { clock: 'up' } });
    expect(act.json.message).to.not.match(/schema is false|must be equal to constant|got a undefined/);
  });

  it('refuses a malformed thread or actor instead of answering an empty page', async () => {
    expectEnvelope(await get(server.url, '/v1/records?thread=th_nothex'), 400, 'INVALID_SHAPE');
    expectEnvelope(await get(server.url, '/v1/records?actor=alice'), 400, 'INVALID_SHAPE');
    expectEnvelope(await postJson(server.url, '/v1/records/query', { thread: 'th_typo' }), 400, 'INVALID_QUERY');
    expect((await get(server.url, `/v1/records?thread=${newThread('empty')}`)).json.data).to.deep.equal([]);
  });

  it('serves a record by id as immutable, with its id as ETag and 304 to If-None-Match', async () => {
    const stored = (await postJson(server.url, '/v1/records', record())).json;
    const first = await get(server.url, `/v1/records/${stored.id}`);
    expect(first.status).to.equal(200);
    expect(first.headers.get('etag')).to.equal(`"${stored.id}"`);
    expect(first.headers.get('cache-control')).to.equal('private, max-age=31536000, immutable');
    const again = await get(server.url, `/v1/records/${stored.id}`, { 'if-none-match': `"${stored.id}"` });
    expect(again.status).to.equal(304);
    expect(again.text).to.equal('');
    expect((await get(server.url, `/v1/records/${stored.id}`, { 'if-none-match': '"other"' })).status).to.equal(200);
  });

  it('refuses an over-long configuration topic name with a declared 400', async () => {
    expectEnvelope(await get(server.url, `/v1/config/${'x'.repeat(65)}`), 400, 'INVALID_SHAPE');
    expect((await get(server.url, '/v1/config/routing_rule')).status).to.equal(200);
  });
});
