/**
 * Access control II over loopback HTTP, on both drivers and across a
 * restart: delegation grants and their cascade, the per-caller grant fold,
 * invites and memberships, self routes, recovery codes and the re-credential
 * door (constant-shape refusals, the rate limit before any hashing).
 */
import { expect } from 'chai';
import { RecredentialDoorToken } from '../../plugins/auth/index.js';
import type { RecredentialDoor } from '../../plugins/auth/recredential-door.js';
import { bearer, bootstrapAdmin, createAccount, type Credential } from '../helpers/auth.js';
import { expectEnvelope, get, newThread, recordInput, request, startServer, type StartedServer } from '../helpers/http-server.js';

const FAST_DOOR = { recredentialRate: { burst: 1000, refillMs: 1 } };

async function invite(url: string, admin: Credential, membership: Record<string, unknown>, extra: Record<string, unknown> = {}): Promise<string> {
  const answer = await request(url, 'POST', '/v1/invites', { json: { membership, ...extra }, headers: bearer(admin) });
  expect(answer.status, answer.text).to.equal(201);
  expect(answer.json.invite_token).to.match(/^loominv_inv_/);
  return answer.json.invite_token;
}

async function join(url: string, admin: Credential, label: string, preset = 'contributor'): Promise<{ token: string; principal: string; grantId: string; saId: string }> {
  const token = await invite(url, admin, { preset, label });
  const redeemed = await request(url, 'POST', '/v1/invites/redeem', { json: { invite: token } });
  expect(redeemed.status, redeemed.text).to.equal(201);
  expect(redeemed.json).to.include({ object: 'membership', label, principal: `did:sync:user:${label}` });
  return { token: redeemed.json.token, principal: redeemed.json.principal, grantId: redeemed.json.grant_id, saId: redeemed.json.sa_id };
}

async function delegate(url: string, holder: string, body: Record<string, unknown>) {
  return request(url, 'POST', '/v1/grants', { json: { with_token: true, ...body }, headers: bearer(holder) });
}

for (const storage of ['sqlite', 'level'] as const) {
  describe(`access control II over HTTP (${storage})`, function () {
    this.timeout(60_000);
    let server: StartedServer;
    let url: string;
    let admin: Credential;

    before(async () => {
      server = await startServer({ storage, auth: { required: true, ...FAST_DOOR }, keepDataDir: true });
      url = server.url;
      admin = await bootstrapAdmin(url);
    });
    after(async () => {
      await server.stop();
    });

    describe('grants', () => {
      it('a 3-level delegation: each level narrower, and revoking the top fails every descendant on its very next request', async () => {
        const alice = await join(url, admin, 'alice');
        const bot = await delegate(url, alice.token, { aud: 'did:sync:agent:bot', scopes: ['records:read', 'records:write'], caveats: { max_depth: 2, budget: 5 } });
        expect(bot.status, bot.text).to.equal(201);
        expect(bot.json).to.include({ iss: alice.principal, aud: 'did:sync:agent:bot', standing: 'in_force', depth: 1 });
        expect(bot.json.chain).to.deep.equal([alice.grantId]);
        const helper = await delegate(url, bot.json.token, { aud: 'did:sync:agent:helper', scopes: ['records:read'], caveats: { max_depth: 1, budget: 2 } });
        expect(helper.status, helper.text).to.equal(201);
        expect(helper.json.chain).to.deep.equal([bot.json.grant_id, alice.grantId]);
        expect(helper.json.effective_caveats).to.deep.equal({ max_depth: 1, max_fanout: null, budget: 2 });

        // Wider than the chain: refused with the reason, nothing issued.
        const wider = await delegate(url, helper.json.token, { aud: 'did:sync:agent:x', scopes: ['records:write'], caveats: { max_depth: 0, budget: 1 } });
        expectEnvelope(wider, 422, 'GRANT_REFUSED');
        const dropped = await delegate(url, helper.json.token, { aud: 'did:sync:agent:x', scopes: ['records:read'], caveats: { max_depth: 0 } });
        expectEnvelope(dropped, 422, 'GRANT_REFUSED');
        expect(dropped.json.message).to.include('budget');

        for (const token of [alice.token, bot.json.token, helper.json.token]) expect((await get(url, '/v1/self', bearer(token))).status).to.equal(200);
        const revoked = await request(url, 'DELETE', `/v1/members/alice`, { json: { note: 'left the team' }, headers: bearer(admin) });
        expect(revoked.status, revoked.text).to.equal(200);
        expect(revoked.json).to.include({ label: 'alice', state: 'revoked', note: 'left the team', grants_revoked: 3, credentials_revoked: 3 });
        for (const token of [alice.token, bot.json.token, helper.json.token]) expectEnvelope(await get(url, '/v1/threads', bearer(token)), 401, 'GRANT_REVOKED');
        // The account list says so too: none of her accounts is active or has a live token.
        const accounts = (await get(url, '/v1/service-accounts', bearer(admin))).json.data as Array<{ id: string; active: boolean; state: string; live_tokens: number }>;
        const hers = accounts.find((a) => a.id === alice.saId)!;
        expect(hers).to.include({ active: false, state: 'grant_revoked', live_tokens: 0 });
        expect(accounts.find((a) => a.id === admin.serviceAccountId)).to.include({ active: true, state: 'active', live_tokens: 1 });
        // Idempotent: the same answer again.
        const again = await request(url, 'DELETE', `/v1/members/alice`, { json: { note: 'left the team' }, headers: bearer(admin) });
        expect(again.status).to.equal(200);
        expect(again.json).to.deep.equal(revoked.json);
      });

      it('revoking a middle grant leaves its parent working and fails everything below', async () => {
        const bea = await join(url, admin, 'bea');
        const mid = await delegate(url, bea.token, { aud: 'did:sync:agent:mid', scopes: ['records:read'] });
        const leaf = await delegate(url, mid.json.token, { aud: 'did:sync:agent:leaf', scopes: ['records:read'] });
        expect(leaf.status, leaf.text).to.equal(201);
        const answer = await request(url, 'DELETE', `/v1/grants/${mid.json.grant_id}`, { headers: bearer(bea.token) });
        expect(answer.status, answer.text).to.equal(200);
        expect(answer.json).to.include({ grants_revoked: 2, credentials_revoked: 2 });
        expect((await get(url, '/v1/self', bearer(bea.token))).status).to.equal(200);
        expectEnvelope(await get(url, '/v1/self', bearer(mid.json.token)), 401, 'GRANT_REVOKED');
        expectEnvelope(await get(url, '/v1/self', bearer(leaf.json.token)), 401, 'GRANT_REVOKED');
        // The leaf's holder cannot revoke its parent: it reads as not found.
        expectEnvelope(await request(url, 'DELETE', `/v1/grants/${bea.grantId}`, { headers: bearer(leaf.json.token) }), 401, 'GRANT_REVOKED');
      });

      it('max_fanout honours only the first children; max_depth 0 issues none', async () => {
        const cy = await join(url, admin, 'cy');
        const parent = await delegate(url, cy.token, { aud: 'did:sync:agent:fan', scopes: ['records:read'], caveats: { max_fanout: 1, max_depth: 1 } });
        expect(parent.status, parent.text).to.equal(201);
        const first = await delegate(url, parent.json.token, { aud: 'did:sync:agent:c1', scopes: ['records:read'], caveats: { max_fanout: 1, max_depth: 0 } });
        expect(first.status, first.text).to.equal(201);
        expectEnvelope(await delegate(url, parent.json.token, { aud: 'did:sync:agent:c2', scopes: ['records:read'], caveats: { max_fanout: 1, max_depth: 0 } }), 422, 'GRANT_REFUSED');
        expectEnvelope(await delegate(url, first.json.token, { aud: 'did:sync:agent:c3', scopes: ['records:read'], caveats: { max_fanout: 1, max_depth: 0 } }), 422, 'GRANT_REFUSED');
      });

      it('a grant past its expiry answers 401 GRANT_EXPIRED; the lifetime cap is a configuration topic', async () => {
        const dee = await join(url, admin, 'dee');
        const short = await delegate(url, dee.token, { aud: 'did:sync:agent:brief', scopes: ['records:read'], ttl_seconds: 1 });
        expect(short.status, short.text).to.equal(201);
        expect((await get(url, '/v1/self', bearer(short.json.token))).status).to.equal(200);
        await new Promise((resolve) => setTimeout(resolve, 1100));
        expectEnvelope(await get(url, '/v1/self', bearer(short.json.token)), 401, 'GRANT_EXPIRED');
        const row = (await get(url, '/v1/folds/grant', bearer(admin))).json.value.grants.find((g: { grant_id: string }) => g.grant_id === short.json.grant_id);
        expect(row).to.include({ standing: 'expired' });

        expectEnvelope(await delegate(url, dee.token, { aud: 'did:sync:agent:long', scopes: ['records:read'], ttl_seconds: 400 * 86400 }), 422, 'GRANT_REFUSED');
        const cap = await request(url, 'POST', '/v1/config/grant_lifetime', { json: { max_seconds: 3600 }, headers: bearer(admin) });
        expect(cap.status, cap.text).to.be.oneOf([200, 201]);
        expectEnvelope(await delegate(url, dee.token, { aud: 'did:sync:agent:long', scopes: ['records:read'], ttl_seconds: 7200 }), 422, 'GRANT_REFUSED');
        await request(url, 'POST', '/v1/config/grant_lifetime', { json: {}, headers: bearer(admin) });
      });

      it('GET /v1/folds/grant: an admin sees the whole graph, anyone else only what it issued or receives', async () => {
        const eve = await join(url, admin, 'eve', 'reader');
        const all = (await get(url, '/v1/folds/grant', bearer(admin))).json.value.grants;
        const mine = await get(url, '/v1/folds/grant', bearer(eve.token));
        expect(mine.status, mine.text).to.equal(200);
        expect(mine.json.value.grants.length).to.be.greaterThan(0);
        expect(mine.json.value.grants.length).to.be.lessThan(all.length);
        for (const grant of mine.json.value.grants) expect([grant.iss, grant.aud]).to.include(eve.principal);
      });

      it('a bearer minted under a grant writes as the audience only, even on an account that may act as anyone', async () => {
        const uma = await join(url, admin, 'uma');
        // Delegating to the admin account's own DID must not hand out the admin account's "any actor".
        const aimed = await delegate(url, uma.token, { aud: admin.did, scopes: ['records:read', 'records:write'] });
        expect(aimed.status, aimed.text).to.equal(201);
        const thread = newThread('escalation');
        const asOther = await request(url, 'POST', '/v1/records', { json: recordInput({ thread, actor: 'did:sync:user:someone-else' }), headers: bearer(aimed.json.token) });
        expectEnvelope(asOther, 403, 'DID_CLAIM_DENIED');
        const asAudience = await request(url, 'POST', '/v1/records', { json: recordInput({ thread, actor: admin.did }), headers: bearer(aimed.json.token) });
        expect(asAudience.status, asAudience.text).to.equal(201);
        expect((await get(url, '/v1/identity', bearer(aimed.json.token))).json.scopes).to.deep.equal(['records:read', 'records:write']);
      });

      it('only an admin issues a root grant; a credential without a grant cannot delegate', async () => {
        const plain = await createAccount(url, admin, 'plain', ['records:read', 'records:write']);
        expectEnvelope(await delegate(url, plain.token, { aud: 'did:sync:agent:z', scopes: ['records:read'] }), 403, 'FORBIDDEN');
        const root = await delegate(url, admin.token, { aud: 'did:sync:agent:root', scopes: ['records:read'] });
        expect(root.status, root.text).to.equal(201);
        expect(root.json.chain).to.deep.equal([]);
      });

      it('grant, identity and invite kinds cannot be written through POST /v1/records', async () => {
        const answer = await request(url, 'POST', '/v1/records', { json: recordInput({ thread: newThread('forge'), body: { kind: 'core.identity.grant.v1', scopes: ['admin'] } }), headers: bearer(admin) });
        expectEnvelope(answer, 403, 'FORBIDDEN');
      });
    });

    describe('invites and members', () => {
      it('an invite is single use, and its state and uses are listed for admins', async () => {
        const token = await invite(url, admin, { preset: 'reader' });
        expectEnvelope(await request(url, 'POST', '/v1/invites/redeem', { json: { invite: token } }), 400, 'INVALID_SHAPE');
        const first = await request(url, 'POST', '/v1/invites/redeem', { json: { invite: token, label: 'fay' } });
        expect(first.status, first.text).to.equal(201);
        expect(first.json.scopes).to.deep.equal(['records:read']);
        expectEnvelope(await request(url, 'POST', '/v1/invites/redeem', { json: { invite: token, label: 'gus' } }), 410, 'INVITE_EXHAUSTED');
        expectEnvelope(await request(url, 'POST', '/v1/invites/redeem', { json: { invite: token.slice(0, -2) + 'xx', label: 'gus' } }), 404, 'INVITE_NOT_FOUND');
        const listed = await get(url, '/v1/invites', bearer(admin));
        const row = listed.json.data.find((i: { invite_id: string }) => token.includes(i.invite_id));
        expect(row).to.include({ state: 'redeemed', uses: 1, uses_remaining: 0 });
        expect(listed.text).to.not.include(token.slice(token.lastIndexOf('_') + 1));
        expectEnvelope(await get(url, '/v1/invites', bearer(first.json.token)), 403, 'SCOPE_FORBIDDEN');
      });

      it('a revoked invite and a taken label are refused', async () => {
        const token = await invite(url, admin, { preset: 'reader' });
        const id = token.split('_').slice(1, 3).join('_');
        expect((await request(url, 'DELETE', `/v1/invites/${id}`, { headers: bearer(admin) })).json.state).to.equal('revoked');
        expectEnvelope(await request(url, 'POST', '/v1/invites/redeem', { json: { invite: token, label: 'hal' } }), 410, 'INVITE_REVOKED');
        await join(url, admin, 'ivy');
        const other = await invite(url, admin, { preset: 'reader' });
        expectEnvelope(await request(url, 'POST', '/v1/invites/redeem', { json: { invite: other, label: 'ivy' } }), 409, 'MEMBER_LABEL_TAKEN');
      });

      it('POST /v1/invites stays admin-only while auth enforcement is off', async () => {
        const open = await startServer({ storage, auth: { required: false } });
        try {
          const plain = await bootstrapAdmin(open.url, 'sa_boot');
          const reader = await createAccount(open.url, plain, 'reader', ['records:read']);
          expectEnvelope(await request(open.url, 'POST', '/v1/invites', { json: { membership: { preset: 'reader' } } }), 401, 'AUTH_REQUIRED');
          expectEnvelope(await request(open.url, 'POST', '/v1/invites', { json: { membership: { preset: 'reader' } }, headers: bearer(reader) }), 403, 'SCOPE_FORBIDDEN');
          expect((await request(open.url, 'POST', '/v1/invites', { json: { membership: { preset: 'reader' } }, headers: bearer(plain) })).status).to.equal(201);
        } finally {
          await open.stop();
        }
      });

      it('members: admins see every row, a member only its own; a member may revoke itself, not another', async () => {
        const jo = await join(url, admin, 'jo');
        const kim = await join(url, admin, 'kim');
        const all = await get(url, '/v1/members', bearer(admin));
        expect(all.json.data.map((m: { label: string }) => m.label)).to.include.members(['jo', 'kim']);
        const own = await get(url, '/v1/members', bearer(jo.token));
        expect(own.json.data.map((m: { label: string }) => m.label)).to.deep.equal(['jo']);
        expectEnvelope(await request(url, 'DELETE', '/v1/members/kim', { headers: bearer(jo.token) }), 404, 'NOT_FOUND');
        expect((await request(url, 'DELETE', '/v1/members/jo', { headers: bearer(jo.token) })).status).to.equal(200);
        expectEnvelope(await get(url, '/v1/self', bearer(jo.token)), 401, 'GRANT_REVOKED');
        expect((await get(url, '/v1/self', bearer(kim.token))).status).to.equal(200);
      });

      it('adopting a service account keeps its bearer working, under the membership grant', async () => {
        const bot = await createAccount(url, admin, 'build bot', ['records:read', 'records:write']);
        const adopted = await request(url, 'POST', '/v1/members/adopt', { json: { label: 'builder', sa_id: bot.serviceAccountId }, headers: bearer(admin) });
        expect(adopted.status, adopted.text).to.equal(201);
        expect(adopted.json).to.include({ principal: bot.did, token: null });
        expect((await get(url, '/v1/self', bearer(bot))).json).to.include({ label: 'builder', standing: 'member' });
        await request(url, 'DELETE', '/v1/members/builder', { headers: bearer(admin) });
        expectEnvelope(await get(url, '/v1/self', bearer(bot)), 401, 'GRANT_REVOKED');
      });
    });

    describe('self routes', () => {
      it('a scopeless bearer reaches /v1/self*; credentials are listed and revoked one at a time', async () => {
        const guest = await join(url, admin, 'lou', 'reader');
        const view = await get(url, '/v1/self', bearer(guest.token));
        expect(view.json).to.include({ object: 'self', principal: guest.principal, label: 'lou', standing: 'member' });
        expect(view.json.bindings).to.deep.equal({ recovery_code: false, passkey: false, account: false });
        const listed = await get(url, '/v1/self/credentials', bearer(guest.token));
        expect(listed.json.data).to.have.length(1);
        expect(listed.json.data[0]).to.include({ current: true, via: 'invite', sa_id: guest.saId });
        expect(listed.json.data[0].last_used_at).to.be.a('string');
        const bearerId = listed.json.data[0].bearer_id;
        // Another principal's bearer and a nonexistent one: the same 404.
        const other = await join(url, admin, 'max');
        const foreign = await request(url, 'DELETE', `/v1/self/credentials/${bearerId}`, { headers: bearer(other.token) });
        const missing = await request(url, 'DELETE', `/v1/self/credentials/${'0'.repeat(64)}`, { headers: bearer(other.token) });
        expectEnvelope(foreign, 404, 'CREDENTIAL_NOT_FOUND');
        expect(foreign.json.code).to.equal(missing.json.code);
        expect((await request(url, 'DELETE', `/v1/self/credentials/${bearerId}`, { headers: bearer(guest.token) })).status).to.equal(200);
        expectEnvelope(await get(url, '/v1/self', bearer(guest.token)), 401, 'AUTH_REQUIRED');
        expect((await get(url, '/v1/self', bearer(other.token))).status).to.equal(200);
      });

      it('account bindings need a verifier, passkeys a relying party', async () => {
        const nia = await join(url, admin, 'nia');
        expectEnvelope(await request(url, 'POST', '/v1/self/bindings', { json: { kind: 'account', material: { subject: 'nia@example.com' } }, headers: bearer(nia.token) }), 409, 'ACCOUNT_NOT_ACCEPTED');
        expectEnvelope(await request(url, 'POST', '/v1/self/bindings/challenge', { json: { kind: 'passkey' }, headers: bearer(nia.token) }), 409, 'PASSKEY_NOT_ACCEPTED');
        const health = await get(url, '/health');
        expect(health.json.proof_kinds_accepted).to.deep.equal(['recovery_code']);
        expect(health.json).to.not.have.property('passkey_rp');
        const manifest = (await get(url, '/v1/capabilities', bearer(nia.token))).json;
        expect(manifest.conventions.identity_path).to.equal('/v1/identity');
        expect(manifest.capabilities).to.include({ 'auth.grants': true, 'auth.members': true, 'auth.invites': true, 'auth.recovery_codes': true, 'auth.passkeys': true });
        expect(manifest.capabilities).to.not.have.property('auth.account_binding');
      });
    });

    describe('recovery codes and the re-credential door', () => {
      it('a recovery code is shown once, rotates only with proof, and re-credentials exactly once', async () => {
        const oz = await join(url, admin, 'oz');
        const bound = await request(url, 'POST', '/v1/self/bindings', { json: { kind: 'recovery_code' }, headers: bearer(oz.token) });
        expect(bound.status, bound.text).to.equal(201);
        expect(bound.json.secret).to.match(/^[0-9A-HJKMNP-TV-Z]{26}$/);
        expect(bound.json).to.include({ principal: oz.principal, kind: 'recovery_code' });
        const code: string = bound.json.secret;
        const records = await get(url, `/v1/records?thread=${(await import('../../plugins/auth/auth-thread.js')).AUTH_THREAD}&limit=1000`, bearer(admin));
        expect(records.text).to.not.include(code);
        const listed = await get(url, '/v1/self/bindings', bearer(oz.token));
        expect(listed.json.data).to.deep.equal([{ id: bound.json.id, kind: 'recovery_code', created_at: bound.json.created_at }]);

        expectEnvelope(await request(url, 'POST', '/v1/self/bindings', { json: { kind: 'recovery_code' }, headers: bearer(oz.token) }), 409, 'ROTATION_REQUIRES_PROOF');
        expectEnvelope(await request(url, 'POST', '/v1/self/bindings', { json: { kind: 'recovery_code', rotation_proof: '0'.repeat(26) }, headers: bearer(oz.token) }), 409, 'ROTATION_REQUIRES_PROOF');
        const rotated = await request(url, 'POST', '/v1/self/bindings', { json: { kind: 'recovery_code', rotation_proof: code.toLowerCase().replace(/(.{5})/g, '$1-') }, headers: bearer(oz.token) });
        expect(rotated.status, rotated.text).to.equal(201);
        const fresh: string = rotated.json.secret;

        expectEnvelope(await request(url, 'POST', '/v1/recredential', { json: { principal: 'oz', proof: { kind: 'recovery_code', evidence: code } } }), 401, 'RECREDENTIAL_REFUSED');
        const ok = await request(url, 'POST', '/v1/recredential', { json: { principal: 'oz', proof: { kind: 'recovery_code', evidence: fresh } } });
        expect(ok.status, ok.text).to.equal(201);
        expect(ok.json).to.include({ principal: oz.principal, label: 'oz', rebind_required: true, sa_id: oz.saId });
        expect(ok.json.scopes).to.deep.equal(['records:read', 'records:write']);
        // Other devices keep working: nothing was revoked or renewed.
        expect((await get(url, '/v1/self', bearer(oz.token))).status).to.equal(200);
        expect((await get(url, '/v1/self', bearer(ok.json.token))).json.bindings.recovery_code).to.equal(false);
        expectEnvelope(await request(url, 'POST', '/v1/recredential', { json: { principal: 'oz', proof: { kind: 'recovery_code', evidence: fresh } } }), 401, 'RECREDENTIAL_REFUSED');
        const credentials = await get(url, '/v1/self/credentials', bearer(ok.json.token));
        expect(credentials.json.data.map((c: { via: string }) => c.via).sort()).to.deep.equal(['invite', 'recredential']);
      });

      it('unknown principal, no binding and a wrong proof answer byte-identical bodies; NO_LIVE_GRANT only after a proof verifies', async () => {
        const pat = await join(url, admin, 'pat');
        const quin = await join(url, admin, 'quin');
        const code = (await request(url, 'POST', '/v1/self/bindings', { json: { kind: 'recovery_code' }, headers: bearer(pat.token) })).json.secret;
        const unknown = await request(url, 'POST', '/v1/recredential', { json: { principal: 'nobody-here', proof: { kind: 'recovery_code', evidence: code } } });
        const unbound = await request(url, 'POST', '/v1/recredential', { json: { principal: 'quin', proof: { kind: 'recovery_code', evidence: code } } });
        const wrong = await request(url, 'POST', '/v1/recredential', { json: { principal: 'pat', proof: { kind: 'recovery_code', evidence: 'Z'.repeat(26) } } });
        const garbage = await request(url, 'POST', '/v1/recredential', { json: { principal: '%%%', proof: { kind: 'telepathy', evidence: null } } });
        for (const answer of [unknown, unbound, wrong, garbage]) expectEnvelope(answer, 401, 'RECREDENTIAL_REFUSED');
        expect(new Set([unknown.text, unbound.text, wrong.text, garbage.text]).size).to.equal(1);
        void quin;
        await request(url, 'DELETE', '/v1/members/pat', { headers: bearer(admin) });
        expectEnvelope(await request(url, 'POST', '/v1/recredential', { json: { principal: 'pat', proof: { kind: 'recovery_code', evidence: code } } }), 409, 'NO_LIVE_GRANT');
      });
    });

    describe('after a restart', () => {
      it('grants, revocations, memberships, bindings and spent codes are all still in force', async () => {
        const rae = await join(url, admin, 'rae');
        const code = (await request(url, 'POST', '/v1/self/bindings', { json: { kind: 'recovery_code' }, headers: bearer(rae.token) })).json.secret;
        const kept = await delegate(url, rae.token, { aud: 'did:sync:agent:kept', scopes: ['records:read'] });
        const cut = await delegate(url, rae.token, { aud: 'did:sync:agent:cut', scopes: ['records:read'] });
        await request(url, 'DELETE', `/v1/grants/${cut.json.grant_id}`, { headers: bearer(rae.token) });
        const spentCode = (await request(url, 'POST', '/v1/self/bindings', { json: { kind: 'recovery_code', rotation_proof: code }, headers: bearer(rae.token) })).json.secret;
        expect((await request(url, 'POST', '/v1/recredential', { json: { principal: 'rae', proof: { kind: 'recovery_code', evidence: spentCode } } })).status).to.equal(201);
        const grantsBefore = (await get(url, '/v1/folds/grant', bearer(admin))).json.value.grants;

        const dataDir = server.dataDir;
        await server.stop();
        server = await startServer({ storage, dataDir, auth: { required: true, ...FAST_DOOR }, keepDataDir: true });
        url = server.url;

        expect((await get(url, '/v1/self', bearer(kept.json.token))).status).to.equal(200);
        expectEnvelope(await get(url, '/v1/self', bearer(cut.json.token)), 401, 'GRANT_REVOKED');
        expect((await get(url, '/v1/self', bearer(rae.token))).json).to.include({ label: 'rae' });
        expectEnvelope(await request(url, 'POST', '/v1/recredential', { json: { principal: 'rae', proof: { kind: 'recovery_code', evidence: spentCode } } }), 401, 'RECREDENTIAL_REFUSED');
        const grantsAfter = (await get(url, '/v1/folds/grant', bearer(admin))).json.value.grants;
        const standings = (grants: Array<{ grant_id: string; standing: string }>) => grants.map((g) => `${g.grant_id} ${g.standing}`).join('\n');
        expect(standings(grantsAfter)).to.equal(standings(grantsBefore));
      });
    });
  });
}

describe('the re-credential door rate limit', function () {
  this.timeout(30_000);
  let server: StartedServer;
  before(async () => {
    server = await startServer({ auth: { required: true } });
  });
  after(async () => server.stop());

  it('answers 429 per principal string and per address before any hash is computed', async () => {
    const door = server.loom.container.resolve(RecredentialDoorToken) as RecredentialDoor;
    const attempt = (principal: string) => request(server.url, 'POST', '/v1/recredential', { json: { principal, proof: { kind: 'recovery_code', evidence: 'Z'.repeat(26) } } });
    for (let i = 0; i < 3; i++) expectEnvelope(await attempt('someone'), 401, 'RECREDENTIAL_REFUSED');
    const hashes = door.hashCalls;
    expect(hashes).to.equal(3);
    const limited = await attempt('someone');
    expectEnvelope(limited, 429, 'RATE_LIMITED');
    expect(limited.headers.get('retry-after')).to.match(/^[1-9]\d*$/);
    // Another principal string from the same address is limited too: the address bucket is empty.
    expectEnvelope(await attempt('someone-else'), 429, 'RATE_LIMITED');
    expect(door.hashCalls).to.equal(hashes);
    expectEnvelope(await request(server.url, 'POST', '/v1/recredential/challenge', { json: { principal: 'someone', kind: 'passkey' } }), 429, 'RATE_LIMITED');
  });
});
