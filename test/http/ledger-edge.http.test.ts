/**
 * Discovery routes and the HTTP edge over loopback HTTP: /health,
 * /.well-known/service and /v1/capabilities (spec §4.1, §2.8, §9), and every
 * refusal Hapi itself would make (unknown route, wrong method, wrong content
 * type, oversized body) answered as the one error envelope (spec §7).
 */
import { expect } from 'chai';
import { definePlugin } from '../../core/plugin/plugin.js';
import { defineRoute } from '../../core/plugin/route.js';
import { expectEnvelope, get, newThread, postJson, postRaw, recordInput, request, startServer, type StartedServer } from '../helpers/http-server.js';

const HASHED_FIELDS = ['act', 'actor', 'body', 'clock', 'data_type', 'parents', 'thread'];
const MIB = 1024 * 1024;

describe('ledger over HTTP: discovery and the HTTP edge (SQLite)', function () {
  let server: StartedServer;
  let url: string;

  before(async () => {
    server = await startServer();
    url = server.url;
  });
  after(() => server?.stop());

  describe('discovery', () => {
    it('GET /health says ok, with version, instance DID, proof kinds and a federation summary', async () => {
      const answer = await get(url, '/health');
      expect(answer.status).to.equal(200);
      expect(answer.json.status).to.equal('ok');
      expect(answer.json.version).to.be.a('string').that.is.not.empty;
      expect(answer.json.instance_did).to.match(/^did:/);
      expect(answer.json.proof_kinds_accepted).to.include('recovery_code');
      expect(answer.json.federation).to.be.an('object');
    });

    it('GET /.well-known/service carries capabilities_manifest and no federation_manifest', async () => {
      const answer = await get(url, '/.well-known/service');
      expect(answer.status).to.equal(200);
      expect(answer.json.capabilities_manifest.object).to.equal('capabilities_manifest');
      expect(answer.json).to.not.have.property('federation_manifest');
    });

    it('GET /v1/capabilities is the manifest: hashed fields, api_version v1, sqlite among the backends, flags all true', async () => {
      const answer = await get(url, '/v1/capabilities');
      expect(answer.status).to.equal(200);
      const manifest = answer.json;
      expect(manifest.object).to.equal('capabilities_manifest');
      expect(manifest.manifest_version).to.equal('1');
      expect(manifest.daemon.api_version).to.equal('v1');
      expect(manifest.daemon.spec_version).to.be.a('string');
      expect(manifest.record.algebra_version).to.equal('v1');
      expect([...manifest.record.hashed_fields].sort()).to.deep.equal(HASHED_FIELDS);
      expect(manifest.store_backends).to.include('sqlite');
      expect(manifest.did_methods).to.include.members(['did:key', 'did:web', 'did:sync']);
      expect(manifest.conventions).to.include.all.keys('decisions_path', 'identity_path', 'sync_path', 'trust_path');
      // Absence means unsupported, so every flag that is present must be true.
      const flags = Object.entries(manifest.capabilities);
      expect(flags).to.not.be.empty;
      for (const [flag, value] of flags) expect(value, flag).to.equal(true);
      expect(manifest.capabilities).to.include({ 'records.ingest': true, 'records.query': true, 'threads.watch': true });
    });

    it('the discovery manifest and /v1/capabilities agree', async () => {
      const discovery = (await get(url, '/.well-known/service')).json.capabilities_manifest;
      const capabilities = (await get(url, '/v1/capabilities')).json;
      // They differ only in the caller: discovery is anonymous, the capabilities route answers the (local) caller.
      expect({ ...discovery, auth: null }).to.deep.equal({ ...capabilities, auth: null });
      expect(discovery.auth).to.deep.equal({ required: false, is_authenticated: false, scopes: [] });
      expect(capabilities.auth).to.deep.equal({ required: false, is_authenticated: false, scopes: ['admin'] });
    });
  });

  describe('refusals at the HTTP edge are envelopes', () => {
    it('an unknown route: 404 NOT_FOUND', async () => {
      expectEnvelope(await get(url, '/v1/no-such-route'), 404, 'NOT_FOUND');
      expectEnvelope(await postJson(url, '/v1/nothing/here', {}), 404, 'NOT_FOUND');
      // Retired work-loop paths answer 404 (spec §9).
      expectEnvelope(await get(url, '/v1/agent/loops'), 404, 'NOT_FOUND');
    });

    const wrongMethods: Array<[string, string, string[]]> = [
      ['DELETE', '/v1/records', ['GET', 'POST']],
      ['PUT', '/health', ['GET']],
      ['DELETE', '/v1/folds', ['GET']],
      ['PATCH', `/v1/threads/${newThread()}/state`, ['GET']],
    ];
    for (const [method, path, allowed] of wrongMethods) {
      it(`${method} ${path.replace(/th_[0-9a-f]{64}/, '{id}')}: 405 METHOD_NOT_ALLOWED with Allow: ${allowed.join(', ')}`, async () => {
        const answer = await request(url, method, path);
        expectEnvelope(answer, 405, 'METHOD_NOT_ALLOWED');
        const allow = (answer.headers.get('allow') ?? '').split(',').map((m) => m.trim());
        expect(allow).to.have.members(allowed);
      });
    }

    for (const path of ['/v1/records', '/v1/records/query']) {
      for (const contentType of ['text/plain', 'application/x-www-form-urlencoded', 'application/xml']) {
        it(`POST ${path} with ${contentType}: 415 UNSUPPORTED_MEDIA_TYPE`, async () => {
          expectEnvelope(await postRaw(url, path, JSON.stringify(recordInput()), contentType), 415, 'UNSUPPORTED_MEDIA_TYPE');
        });
      }

      it(`POST ${path} with no content type: 415 UNSUPPORTED_MEDIA_TYPE`, async () => {
        // fetch labels a string body text/plain unless told otherwise; bytes go unlabelled.
        expectEnvelope(await request(url, 'POST', path, { body: Buffer.from('{}') }), 415, 'UNSUPPORTED_MEDIA_TYPE');
      });

      it(`POST ${path} with a body just over 1 MiB: 413 PAYLOAD_TOO_LARGE`, async () => {
        const padding = 'x'.repeat(MIB);
        const body = JSON.stringify(path === '/v1/records' ? recordInput({ body: { padding } }) : { filter: { 'body.padding': padding } });
        expect(body.length).to.be.above(MIB);
        expectEnvelope(await postRaw(url, path, body), 413, 'PAYLOAD_TOO_LARGE');
      });
    }

    it('a body just under 1 MiB is accepted', async () => {
      const shell = JSON.stringify(recordInput({ body: { padding: '' } }));
      const answer = await postJson(url, '/v1/records', recordInput({ body: { padding: 'x'.repeat(MIB - shell.length - 100) } }));
      expect(answer.status).to.equal(201);
    });

    it('JSON variants of the content type are accepted (charset, +json, upper case)', async () => {
      for (const contentType of ['application/json; charset=utf-8', 'application/vnd.loom+json', 'APPLICATION/JSON']) {
        const answer = await postRaw(url, '/v1/records', JSON.stringify(recordInput()), contentType);
        expect(answer.status, contentType).to.equal(201);
      }
    });

    it('the server keeps serving after refusals', async () => {
      expect((await get(url, '/health')).status).to.equal(200);
    });
  });

  describe('5xx answers', () => {
    let broken: StartedServer;
    before(async () => {
      // A plugin whose handler fails the way a bug or a storage fault would.
      const failing = definePlugin({
        name: 'failing',
        version: '1.0.0',
        register(scope) {
          scope.route(
            defineRoute({
              operationId: 'explode',
              method: 'GET',
              path: '/v1/explode',
              summary: 'always fails',
              tags: ['test'],
              auth: 'none',
              responses: { 200: { description: 'never' } },
              errors: ['INTERNAL'],
              inject: {},
              handler: () => {
                throw new Error('SQLITE_CORRUPT: database disk image is malformed at /var/lib/loom/secret.db (storage/sqlite/run-query.ts:12:3)');
              },
            }),
          );
        },
      });
      broken = await startServer({ plugins: [failing] });
    });
    after(async () => broken.stop());

    it('never carry a stack, a driver message or internals', async () => {
      const answer = await get(broken.url, '/v1/explode');
      expectEnvelope(answer, 500, 'INTERNAL');
      expect(answer.text).to.not.match(/\bat .+:\d+:\d+|SQLITE|secret|Error:|\.js\b|\.ts\b/);
      expect((await get(broken.url, '/health')).status).to.equal(200);
    });
  });
});
