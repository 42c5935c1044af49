/**
 * The auth plugin over loopback HTTP: bootstrap, service accounts and their
 * tokens, the actor claim, hostile bearers, hot reload of auth_required,
 * CORS, identity, and persistence of accounts, tokens and revocations
 * across a restart on both drivers.
 */
import { expect } from 'chai';
import { formatBearer, mintSecret, tokenIdOf } from '../../plugins/auth/bearer-token.js';
import { bearer, bootstrapAdmin, createAccount, revokeAccount, type Credential } from '../helpers/auth.js';
import { expectEnvelope, get, newThread, recordInput, request, startServer, type StartedServer } from '../helpers/http-server.js';

describe('auth over HTTP (SQLite)', function () {
  this.timeout(60_000);
  let server: StartedServer;
  let url: string;
  let admin: Credential;

  before(async () => {
    server = await startServer({ auth: { required: true } });
    url = server.url;
    admin = await bootstrapAdmin(url);
  });
  after(async () => server.stop());

  describe('bootstrap', () => {
    it('is closed once the namespace has a service account', async () => {
      const answer = await request(url, 'POST', '/v1/bootstrap/service-account', {
        json: { service_account_id: 'sa_second', display_name: 'x', with_token: { token_id: tokenIdOf(mintSecret()) } },
      });
      expectEnvelope(answer, 409, 'BOOTSTRAP_CLOSED');
    });

    it('confines the first account of another namespace to it: no instance-wide scopes', async () => {
      const refused = await request(url, 'POST', '/v1/bootstrap/service-account', {
        json: { service_account_id: 'sa_acme', display_name: 'acme', namespace: 'acme', scopes: ['admin'], with_token: { token_id: tokenIdOf(mintSecret()) } },
      });
      expectEnvelope(refused, 400, 'INVALID_SHAPE');
      const secret = mintSecret();
      const ok = await request(url, 'POST', '/v1/bootstrap/service-account', {
        json: { service_account_id: 'sa_acme', display_name: 'acme', namespace: 'acme', scopes: ['records:read'], with_token: { token_id: tokenIdOf(secret) } },
      });
      expect(ok.status, ok.text).to.equal(201);
      const identity = await get(url, '/v1/identity', bearer(formatBearer('prod', 'sa_acme', secret)));
      expect(identity.json.scopes).to.deep.equal(['namespace:acme:read']);
    });

    it('never stores the plaintext: the log holds the token id only', async () => {
      const records = await get(url, `/v1/records?thread=${(await import('../../plugins/auth/auth-thread.js')).AUTH_THREAD}&limit=1000`, bearer(admin));
      expect(records.status).to.equal(200);
      const secret = admin.token.slice(admin.token.lastIndexOf('_') + 1);
      expect(records.text).to.not.include(secret);
      expect(records.text).to.include(tokenIdOf(secret));
    });
  });

  describe('service accounts', () => {
    it('creates, lists (api_key null), rotates and revokes', async () => {
      const created = await request(url, 'POST', '/v1/service-accounts', { json: { name: 'ci bot' }, headers: bearer(admin) });
      expect(created.status, created.text).to.equal(201);
      expect(created.json).to.include({ object: 'service_account', name: 'ci bot', active: true, namespace: 'default' });
      expect(created.json.scopes).to.deep.equal(['records:read', 'records:write']);
      expect(created.json.actors).to.deep.equal([]);
      expect(created.json.api_key).to.match(/^loom_prod_sa_[a-z2-7]{20}_[A-Za-z0-9.~-]{43}$/);
      const first = created.json.api_key as string;

      const list = await get(url, '/v1/service-accounts', bearer(admin));
      const row = list.json.data.find((sa: any) => sa.id === created.json.id);
      expect(row).to.include({ api_key: null, live_tokens: 1 });
      expect(list.text).to.not.include(first);

      const rotated = await request(url, 'POST', `/v1/service-accounts/${created.json.id}/rotate-key`, { headers: bearer(admin) });
      expect(rotated.status, rotated.text).to.equal(200);
      expect(rotated.json.api_key).to.not.equal(first);
      expectEnvelope(await get(url, '/v1/identity', bearer(first)), 401, 'AUTH_REQUIRED');
      expect((await get(url, '/v1/identity', bearer(rotated.json.api_key))).json.service_account_id).to.equal(created.json.id);

      expect((await revokeAccount(url, admin, created.json.id)).json).to.include({ status: 'revoked' });
      expectEnvelope(await get(url, '/v1/identity', bearer(rotated.json.api_key)), 401, 'AUTH_REQUIRED');
      expectEnvelope(await request(url, 'POST', `/v1/service-accounts/${created.json.id}/rotate-key`, { headers: bearer(admin) }), 409, 'SERVICE_ACCOUNT_REVOKED');
      // Revoking again is idempotent; an unknown id is 404.
      expect((await revokeAccount(url, admin, created.json.id)).status).to.equal(200);
      expectEnvelope(await revokeAccount(url, admin, 'sa_nobody'), 404, 'NOT_FOUND');
    });

    it('snapshots scopes at issuance and refuses unknown scopes and malformed actors', async () => {
      expectEnvelope(await request(url, 'POST', '/v1/service-accounts', { json: { name: 'x', scopes: ['records:delete'] }, headers: bearer(admin) }), 400, 'INVALID_SHAPE');
      expectEnvelope(await request(url, 'POST', '/v1/service-accounts', { json: { name: 'x', actors: ['alice'] }, headers: bearer(admin) }), 400, 'INVALID_SHAPE');
      const reader = await createAccount(url, admin, 'reader', ['records:read']);
      expect((await get(url, '/v1/identity', bearer(reader))).json.scopes).to.deep.equal(['records:read']);
    });

    it('an expired token answers 401', async () => {
      const soon = new Date(Date.now() + 400).toISOString();
      const created = await request(url, 'POST', '/v1/service-accounts', { json: { name: 'short', expires_at: soon }, headers: bearer(admin) });
      expect(created.status, created.text).to.equal(201);
      expect((await get(url, '/v1/identity', bearer(created.json.api_key))).status).to.equal(200);
      await new Promise((resolve) => setTimeout(resolve, 500));
      expectEnvelope(await get(url, '/v1/identity', bearer(created.json.api_key)), 401, 'AUTH_REQUIRED');
    });

    it('GET /v1/scope_presets needs no token', async () => {
      const presets = await get(url, '/v1/scope_presets');
      expect(presets.json.presets).to.deep.equal({ reader: ['records:read'], contributor: ['records:read', 'records:write'], admin: ['admin'] });
    });
  });

  describe('the actor of a write', () => {
    let bot: Credential;
    before(async () => {
      bot = await createAccount(url, admin, 'writer', ['records:read', 'records:write'], ['did:sync:agent:writer', 'did:sync:agent:team-*']);
    });

    it('a credential writes as its own DID or an allowed actor, and nothing else', async () => {
      const post = (actor: string, headers: Record<string, string> = {}) =>
        request(url, 'POST', '/v1/records', { json: recordInput({ actor }), headers: { ...bearer(bot), ...headers } });
      expect((await post(bot.did)).status).to.equal(201);
      expect((await post('did:sync:agent:writer')).status).to.equal(201);
      expect((await post('did:sync:agent:team-blue')).status).to.equal(201);
      expectEnvelope(await post('did:sync:user:alice'), 403, 'DID_CLAIM_DENIED');
    });

    it('X-Service-Actor must be allowed (403 DID_CLAIM_DENIED) and then binds the record actor', async () => {
      expectEnvelope(await get(url, '/v1/identity', { ...bearer(bot), 'x-service-actor': 'did:sync:user:alice' }), 403, 'DID_CLAIM_DENIED');
      expectEnvelope(await get(url, '/v1/identity', { ...bearer(bot), 'x-service-actor': 'not a did' }), 403, 'DID_CLAIM_DENIED');
      const claimed = { ...bearer(bot), 'x-service-actor': 'did:sync:agent:writer' };
      expect((await get(url, '/v1/identity', claimed)).json.actor).to.equal('did:sync:agent:writer');
      expectEnvelope(await request(url, 'POST', '/v1/records', { json: recordInput({ actor: 'did:sync:agent:team-blue' }), headers: claimed }), 403, 'DID_CLAIM_DENIED');
      expect((await request(url, 'POST', '/v1/records', { json: recordInput({ actor: 'did:sync:agent:writer' }), headers: claimed })).status).to.equal(201);
      // POST /v1/threads writes its opening INTEND as the claimed actor.
      const opened = await request(url, 'POST', '/v1/threads', { json: { goal: 'claimed' }, headers: { ...claimed } });
      expectEnvelope(opened, 403, 'SCOPE_FORBIDDEN');
    });

    it('nobody writes the credentials thread or configuration through /v1/records without the authority', async () => {
      const { AUTH_THREAD } = await import('../../plugins/auth/auth-thread.js');
      expectEnvelope(await request(url, 'POST', '/v1/records', { json: recordInput({ thread: AUTH_THREAD, actor: bot.did }), headers: bearer(bot) }), 403, 'FORBIDDEN');
      expectEnvelope(await request(url, 'POST', '/v1/records', { json: recordInput({ thread: AUTH_THREAD, actor: admin.did }), headers: bearer(admin) }), 403, 'FORBIDDEN');
      expectEnvelope(
        await request(url, 'POST', '/v1/records', { json: recordInput({ thread: 'th_engine_config', act: 'LEARN', actor: bot.did, body: { topic: 'auth_required', enabled: false } }), headers: bearer(bot) }),
        403,
        'SCOPE_FORBIDDEN',
      );
      // The admin may; it is just a record.
      expect((await get(url, '/v1/config/auth_required', bearer(admin))).json.value).to.equal(null);
    });
  });

  describe('hostile bearers', () => {
    const cases: Array<[string, () => Record<string, string>]> = [
      ['no Bearer word', () => ({ authorization: admin.token })],
      ['Basic auth', () => ({ authorization: 'Basic YWxhZGRpbjpvcGVuc2VzYW1l' })],
      ['wrong prefix', () => bearer(admin.token.replace(/^loom_/, 'spl_'))],
      ['wrong env', () => bearer(admin.token.replace(/^loom_prod_/, 'loom_test_'))],
      ['a valid secret under another sa_id', () => bearer(admin.token.replace('_sa_admin_', '_sa_other_'))],
      ['truncated', () => bearer(admin.token.slice(0, -5))],
      ['one character changed', () => bearer(admin.token.slice(0, -1) + (admin.token.endsWith('A') ? 'B' : 'A'))],
      ['a 10 KB header', () => bearer('loom_prod_sa_admin_' + 'x'.repeat(10_240))],
      ['non-ASCII', () => ({ authorization: Buffer.from('Bearer loom_prod_sa_admin_ünïcödé-secret-value', 'utf8').toString('latin1') })],
      ['empty bearer', () => ({ authorization: 'Bearer ' })],
    ];
    for (const [name, headers] of cases) {
      it(`${name}: 401 AUTH_REQUIRED with the envelope`, async () => {
        const answer = await get(url, '/v1/threads', headers());
        expectEnvelope(answer, 401, 'AUTH_REQUIRED');
        expect(answer.headers.get('www-authenticate')).to.equal('Bearer realm="loom"');
      });
    }

    it('the server is still healthy after all of them', async () => {
      expect((await get(url, '/v1/identity', bearer(admin))).status).to.equal(200);
    });
  });

  describe('identity and discovery', () => {
    it('GET /v1/identity describes the credential', async () => {
      const identity = (await get(url, '/v1/identity', bearer(admin))).json;
      expect(identity).to.include({ object: 'identity', is_authenticated: true, service_account_id: 'sa_admin', did: admin.did, method: 'bearer', actor: admin.did });
      expect(identity.scopes).to.deep.equal(['admin']);
    });

    it('capabilities and instance bootstrap answer per caller', async () => {
      expectEnvelope(await get(url, '/v1/capabilities'), 401, 'AUTH_REQUIRED');
      const manifest = (await get(url, '/v1/capabilities', bearer(admin))).json;
      expect(manifest.auth).to.deep.equal({ required: true, is_authenticated: true, scopes: ['admin'] });
      const anonymous = (await get(url, '/v1/instance/bootstrap')).json;
      expect(anonymous.identity).to.deep.equal({ object: 'identity', is_authenticated: false, scopes: [] });
      expect((await get(url, '/v1/instance/bootstrap', bearer('loom_prod_sa_x_badbadbadbadbadbad'))).status).to.equal(200);
      const known = (await get(url, '/v1/instance/bootstrap', bearer(admin))).json;
      expect(known.identity).to.deep.equal({ object: 'identity', is_authenticated: true, scopes: ['admin'] });
    });

    it('instance shell: 404 until published, draft for the owner only', async () => {
      expectEnvelope(await get(url, '/v1/instance/shell', bearer(admin)), 404, 'NOT_FOUND');
      const write = (clock: number, body: Record<string, unknown>) =>
        request(url, 'POST', '/v1/records', { json: { thread: 'th_instance_registry', actor: admin.did, act: 'LEARN', body, clock, data_type: 'SCALAR' }, headers: bearer(admin) });
      expect((await write(0, { kind: 'core.instance.shell.v1', title: 'Acme Loom' })).status).to.equal(201);
      expect((await write(1, { kind: 'core.instance.shell.v1', title: 'Acme Loom next', lifecycle: 'draft' })).status).to.equal(201);
      const shell = (await get(url, '/v1/instance/shell', bearer(admin))).json;
      expect(shell).to.include({ object: 'instance_shell', version: 1 });
      expect(shell.shell.body.title).to.equal('Acme Loom');
      expect((await get(url, '/v1/instance/shell?lifecycle=draft', bearer(admin))).json.shell.body.title).to.equal('Acme Loom next');
      const reader = await createAccount(url, admin, 'shell reader', ['records:read']);
      expectEnvelope(await get(url, '/v1/instance/shell?lifecycle=draft', bearer(reader)), 403, 'OWNER_ONLY');
      expect((await get(url, '/v1/instance/bootstrap', bearer(admin))).json).to.include({ is_owner: true });
      expect((await get(url, '/v1/instance/bootstrap', bearer(reader))).json).to.include({ is_owner: false });
    });
  });

  describe('threads: POST mints, DELETE archives', () => {
    it('opens a thread as the caller and archives it out of the listing, keeping its records', async () => {
      const opened = await request(url, 'POST', '/v1/threads', { json: { goal: 'ship it', alias: 'REL-1' }, headers: bearer(admin) });
      expect(opened.status, opened.text).to.equal(201);
      const thread = opened.json.thread as string;
      expect(thread).to.match(/^th_[0-9a-f]{64}$/);
      expect(opened.json.record).to.include({ act: 'INTEND', clock: 0, actor: admin.did, thread });
      const listed = async (extra = '') => (await get(url, `/v1/threads?limit=1000${extra}`, bearer(admin))).json.data.map((t: any) => t.thread);
      expect(await listed()).to.include(thread);
      const archived = await request(url, 'DELETE', `/v1/threads/${thread}`, { headers: bearer(admin) });
      expect(archived.status, archived.text).to.equal(200);
      expect(archived.json.record.body).to.deep.equal({ kind: 'core.thread.archive.v1', archived: true });
      expect(await listed()).to.not.include(thread);
      expect(await listed('&include_archived=true')).to.include(thread);
      expect((await get(url, `/v1/threads/${thread}/records`, bearer(admin))).json.data).to.have.length(2);
      expect((await request(url, 'DELETE', `/v1/threads/${thread}`, { headers: bearer(admin) })).json.record).to.equal(null);
      expectEnvelope(await request(url, 'DELETE', `/v1/threads/${newThread()}`, { headers: bearer(admin) }), 404, 'NOT_FOUND');
    });
  });

  describe('auth_required hot reload and CORS', () => {
    it('toggling auth_required takes effect on the next request, with no restart', async () => {
      expectEnvelope(await get(url, '/v1/threads'), 401, 'AUTH_REQUIRED');
      const off = await request(url, 'POST', '/v1/config/auth_required', { json: { enabled: false }, headers: bearer(admin) });
      expect(off.status, off.text).to.equal(201);
      expect((await get(url, '/v1/threads')).status).to.equal(200);
      expect((await get(url, '/v1/capabilities')).json.auth.required).to.equal(false);
      // A presented token still counts while enforcement is off: a bad one is refused.
      expectEnvelope(await get(url, '/v1/threads', bearer('loom_prod_sa_admin_nopenopenopenopenope')), 401, 'AUTH_REQUIRED');
      const on = await request(url, 'POST', '/v1/config/auth_required', { json: { enabled: true }, headers: bearer(admin) });
      expect(on.status, on.text).to.equal(201);
      expectEnvelope(await get(url, '/v1/threads'), 401, 'AUTH_REQUIRED');
    });

    it('CORS headers only for listed origins while auth is on', async () => {
      const withOrigin = (origin: string) => get(url, '/v1/identity', { ...bearer(admin), origin });
      expect((await withOrigin('https://evil.example')).headers.get('access-control-allow-origin')).to.equal(null);
      await request(url, 'POST', '/v1/config/auth_cors_origins', { json: { origins: ['https://app.example'] }, headers: bearer(admin) });
      expect((await withOrigin('https://app.example')).headers.get('access-control-allow-origin')).to.equal('https://app.example');
      expect((await withOrigin('https://evil.example')).headers.get('access-control-allow-origin')).to.equal(null);
      const preflight = await request(url, 'OPTIONS', '/v1/records', {
        headers: { origin: 'https://app.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type' },
      });
      expect(preflight.headers.get('access-control-allow-origin')).to.equal('https://app.example');
      const refused = await request(url, 'OPTIONS', '/v1/records', { headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' } });
      expect(refused.headers.get('access-control-allow-origin')).to.equal(null);
    });
  });
});

for (const storage of ['sqlite', 'level'] as const) {
  describe(`auth: accounts, tokens and revocations survive a restart (${storage})`, function () {
    this.timeout(60_000);

    it('the same bearers hold and fail after a restart', async () => {
      let server = await startServer({ storage, auth: { required: true }, keepDataDir: true });
      const dataDir = server.dataDir;
      try {
        const admin = await bootstrapAdmin(server.url);
        const kept = await createAccount(server.url, admin, 'kept', ['records:read']);
        const gone = await createAccount(server.url, admin, 'gone', ['records:read']);
        await revokeAccount(server.url, admin, gone.serviceAccountId);
        await server.stop();
        server = await startServer({ storage, dataDir, auth: { required: true }, keepDataDir: true });
        expect((await get(server.url, '/v1/identity', bearer(admin))).json.service_account_id).to.equal('sa_admin');
        expect((await get(server.url, '/v1/identity', bearer(kept))).json.scopes).to.deep.equal(['records:read']);
        expectEnvelope(await get(server.url, '/v1/identity', bearer(gone)), 401, 'AUTH_REQUIRED');
        expectEnvelope(await request(server.url, 'POST', '/v1/bootstrap/service-account', { json: { service_account_id: 'sa_again', display_name: 'x', with_token: { token_id: tokenIdOf(mintSecret()) } } }), 409, 'BOOTSTRAP_CLOSED');
      } finally {
        await server.stop();
        await (await import('node:fs/promises')).rm(dataDir, { recursive: true, force: true });
      }
    });
  });
}
