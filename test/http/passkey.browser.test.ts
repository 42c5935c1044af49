/**
 * Passkeys end to end in a real browser: Debian's Chromium (through
 * playwright-core, which brings no browser of its own) with a CDP WebAuthn
 * virtual authenticator creates a genuine passkey over our registration
 * challenge, our server binds it, and its assertions re-credential the member
 * (recipe: test/vectors/07-webauthn-virtual-authenticator). The page is
 * served by the Loom under test at http://localhost:<port> (localhost is a
 * secure context, so plain HTTP is fine), rp_id localhost; the ceremonies run
 * in the page, every API call from here.
 *
 * The re-credential door allows 3 attempts (challenges and proofs alike) in a
 * burst, then one per 5 s, per principal string and per client address, and
 * every request here comes from 127.0.0.1: each scenario gets a fresh server,
 * and the two that need a fourth attempt wait for the limiter once. The last
 * scenario runs two servers on one PostgreSQL log: challenges live in the
 * store's slots, so either server answers a challenge the other issued.
 */
import { expect } from 'chai';
import { createPrivateKey, createPublicKey } from 'node:crypto';
import { existsSync } from 'node:fs';
import { decodeCredentialPublicKey } from '@simplewebauthn/server/helpers';
import { chromium, type Browser, type BrowserContext, type CDPSession, type Page } from 'playwright-core';
import { AUTH_THREAD } from '../../plugins/auth/auth-thread.js';
import { RECREDENTIAL_REFUSED_MESSAGE } from '../../plugins/auth/recredential-door.js';
import { bearer, bootstrapAdmin, type Credential } from '../helpers/auth.js';
import { expectEnvelope, get, request, startServer, type StartedServer } from '../helpers/http-server.js';
import { clusterOrSkip, freshDatabase } from '../helpers/postgres-test-support.js';
import { inPage, type Assertion, type Ceremony, type Registration } from '../helpers/webauthn-page.js';

const CHROMIUM = '/usr/bin/chromium';
const ALICE = 'did:sync:user:alice';
/** Long enough for the door's limiter to give one attempt back (1 per 5 s). */
const DOOR_REFILL_MS = 5_100;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A COSE public key (base64url) as the JWK fields node:crypto exports for the same key: OKP Ed25519, EC2 P-256,
 * or AKP ML-DSA (Node 24's crypto has ML-DSA, so @simplewebauthn offers it and Chromium's authenticator takes it).
 */
function coseAsJwk(cose: string): { kty: string; crv?: string; x?: string; y?: string; pub?: string } {
  const key = decodeCredentialPublicKey(new Uint8Array(Buffer.from(cose, 'base64url'))) as unknown as Map<number, unknown>;
  const coordinate = (label: number) => Buffer.from(key.get(label) as Uint8Array).toString('base64url');
  if (key.get(1) === 1 && key.get(-1) === 6) return { kty: 'OKP', crv: 'Ed25519', x: coordinate(-2) };
  if (key.get(1) === 2 && key.get(-1) === 1) return { kty: 'EC', crv: 'P-256', x: coordinate(-2), y: coordinate(-3) };
  if (key.get(1) === 7) return { kty: 'AKP', pub: coordinate(-1) };
  throw new Error(`unexpected COSE key: kty ${String(key.get(1))}, crv ${String(key.get(-1))}`);
}

/** The signature counter in authenticator data: rpIdHash (32 bytes), flags (1), then a big-endian uint32. */
const signCountOf = (authenticatorData: string): number => Buffer.from(authenticatorData, 'base64url').readUInt32BE(33);

describe('passkeys in Chromium with a virtual authenticator (HTTP)', function () {
  this.timeout(60_000);
  let browser: Browser | undefined;
  const servers: StartedServer[] = [];
  const contexts: BrowserContext[] = [];

  before(async function () {
    if (!existsSync(CHROMIUM)) {
      const message = `${CHROMIUM} is missing; install it with: apt-get install -y chromium`;
      // CI installs it (.ci/run), so a missing browser there is a broken machine, not a reason to skip.
      if (process.env['CI']) throw new Error(`${message} (CI must run the browser passkey test, not skip it)`);
      console.warn(`      skipping the browser passkey test: ${message}`);
      this.skip();
    }
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, chromiumSandbox: false });
  });

  after(async () => {
    for (const context of contexts) await context.close().catch(() => {});
    await browser?.close();
    for (const server of servers) await server.stop();
  });

  interface Member {
    readonly url: string;
    /** http://localhost:<port>: what the browser signs for. */
    readonly origin: string;
    readonly admin: Credential;
    readonly token: string;
    readonly principal: string;
  }

  /** A fresh server with an admin and the member alice (a contributor, by invite); passkey_rp declared unless `rp` is false. */
  async function freshMember(rp = true): Promise<Member> {
    const server = await startServer({ auth: { required: true } });
    servers.push(server);
    const url = server.url;
    const origin = url.replace('127.0.0.1', 'localhost');
    const admin = await bootstrapAdmin(url);
    if (rp) {
      const written = await request(url, 'POST', '/v1/config/passkey_rp', { json: { rp_id: 'localhost', origins: [origin] }, headers: bearer(admin) });
      expect(written.status, written.text).to.equal(201);
    }
    const invite = await request(url, 'POST', '/v1/invites', { json: { membership: { preset: 'contributor', label: 'alice' } }, headers: bearer(admin) });
    expect(invite.status, invite.text).to.equal(201);
    expect(invite.json.invite_token).to.be.a('string');
    const redeemed = await request(url, 'POST', '/v1/invites/redeem', { json: { invite: invite.json.invite_token } });
    expect(redeemed.status, redeemed.text).to.equal(201);
    expect(redeemed.json.principal).to.equal(ALICE);
    return { url, origin, admin, token: redeemed.json.token, principal: redeemed.json.principal };
  }

  interface Device {
    readonly page: Page;
    readonly cdp: CDPSession;
    readonly authenticatorId: string;
  }

  /** A new browser context on the member's origin with one virtual platform authenticator (recipe step 3). */
  async function freshDevice(origin: string): Promise<Device> {
    const context = await browser!.newContext();
    contexts.push(context);
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    await cdp.send('WebAuthn.enable', { enableUI: false });
    const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
      options: { protocol: 'ctap2', ctap2Version: 'ctap2_1', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true },
    });
    const landed = await page.goto(`${origin}/health`);
    expect(landed?.status()).to.equal(200);
    expect(await page.evaluate(() => (globalThis as any).isSecureContext)).to.equal(true);
    return { page, cdp, authenticatorId };
  }

  /** Registers a passkey for the member on the device and binds it (steps 3 of the flow). */
  async function bindPasskey(member: Member, device: Device): Promise<Registration> {
    const challenge = await request(member.url, 'POST', '/v1/self/bindings/challenge', { json: { kind: 'passkey' }, headers: bearer(member.token) });
    expect(challenge.status, challenge.text).to.equal(200);
    const options = challenge.json.options;
    expect(options.rp).to.include({ id: 'localhost' });
    expect(options.challenge).to.equal(challenge.json.challenge);
    expect(options.user.id).to.equal(challenge.json.user.id);
    expect(options.pubKeyCredParams.map((p: any) => p.alg)).to.include(-7); // ES256, which every (virtual) authenticator supports
    expect(options.authenticatorSelection).to.include({ residentKey: 'required' });
    const material = (await device.page.evaluate<Registration | Assertion, Ceremony>(inPage, { op: 'create', options })) as Registration;
    const bound = await request(member.url, 'POST', '/v1/self/bindings', { json: { kind: 'passkey', material }, headers: bearer(member.token) });
    expect(bound.status, bound.text).to.equal(201);
    expect(bound.json).to.include({ object: 'binding', kind: 'passkey', principal: member.principal });
    return material;
  }

  /** A re-credential challenge for alice, signed by the device's authenticator (discoverable: allowCredentials empty). */
  async function assertForAlice(member: Member, device: Device): Promise<Assertion> {
    const challenge = await request(member.url, 'POST', '/v1/recredential/challenge', { json: { principal: 'alice', kind: 'passkey' } });
    expect(challenge.status, challenge.text).to.equal(200);
    expect(challenge.json.rp_id).to.equal('localhost');
    return (await device.page.evaluate<Registration | Assertion, Ceremony>(inPage, { op: 'get', challenge: challenge.json.challenge, rpId: challenge.json.rp_id })) as Assertion;
  }

  const recredential = (member: Member, principal: string, evidence: Assertion) =>
    request(member.url, 'POST', '/v1/recredential', { json: { principal, proof: { kind: 'passkey', evidence } } });

  /** Replaces the authenticator's only credential with the same key and user at another signature counter. */
  async function setSignCount(device: Device, signCount: number): Promise<void> {
    const { credentials } = await device.cdp.send('WebAuthn.getCredentials', { authenticatorId: device.authenticatorId });
    expect(credentials).to.have.length(1);
    const credential = credentials[0]!;
    await device.cdp.send('WebAuthn.removeCredential', { authenticatorId: device.authenticatorId, credentialId: credential.credentialId });
    await device.cdp.send('WebAuthn.addCredential', {
      authenticatorId: device.authenticatorId,
      credential: {
        credentialId: credential.credentialId,
        isResidentCredential: true,
        rpId: credential.rpId!,
        privateKey: credential.privateKey,
        ...(credential.userHandle !== undefined ? { userHandle: credential.userHandle } : {}),
        signCount,
      },
    });
  }

  it('without passkey_rp, accepts recovery codes only: registration and re-credential challenges are 409 PASSKEY_NOT_ACCEPTED', async () => {
    const member = await freshMember(false);
    const health = await get(member.url, '/health');
    expect(health.status, health.text).to.equal(200);
    expect(health.json.proof_kinds_accepted).to.deep.equal(['recovery_code']);
    expect(health.json).to.not.have.property('passkey_rp');
    expectEnvelope(await request(member.url, 'POST', '/v1/self/bindings/challenge', { json: { kind: 'passkey' }, headers: bearer(member.token) }), 409, 'PASSKEY_NOT_ACCEPTED');
    expectEnvelope(await request(member.url, 'POST', '/v1/recredential/challenge', { json: { principal: 'alice', kind: 'passkey' } }), 409, 'PASSKEY_NOT_ACCEPTED');
    const self = await get(member.url, '/v1/self', bearer(member.token));
    expect(self.json.bindings.passkey).to.equal(false);
  });

  it('declares passkey_rp on /health, and binds a passkey Chromium creates: the one the authenticator holds, with the same key', async () => {
    const member = await freshMember();
    const health = await get(member.url, '/health');
    expect(health.status, health.text).to.equal(200);
    expect(health.json.proof_kinds_accepted).to.include('passkey');
    expect(health.json.passkey_rp).to.deep.equal({ rp_id: 'localhost' });

    const device = await freshDevice(member.origin);
    const material = await bindPasskey(member, device);
    expect(material.transports).to.include('internal');
    const self = await get(member.url, '/v1/self', bearer(member.token));
    expect(self.status, self.text).to.equal(200);
    expect(self.json).to.include({ principal: ALICE });
    expect(self.json.bindings).to.include({ passkey: true });
    expect(self.json.proof_kinds_accepted).to.include('passkey');

    // Recipe step 5: the authenticator holds exactly this discoverable credential, and our stored key is its key.
    const { credentials } = await device.cdp.send('WebAuthn.getCredentials', { authenticatorId: device.authenticatorId });
    expect(credentials).to.have.length(1);
    const held = credentials[0]!;
    expect(held).to.include({ isResidentCredential: true, rpId: 'localhost' });
    expect(Buffer.from(held.credentialId, 'base64').toString('base64url')).to.equal(material.credential_id);
    const records = await get(member.url, `/v1/records?thread=${AUTH_THREAD}&limit=1000`, bearer(member.admin));
    expect(records.status, records.text).to.equal(200);
    const stored = records.json.data.map((r: any) => r.body?.passkey).find((p: any) => p?.credential_id === material.credential_id);
    expect(stored, 'the binding record with this credential').to.be.an('object');
    // Chromium's virtual authenticator takes the first algorithm offered that it supports (Ed25519 when
    // the options offer -8 before -7), so compare the keys whatever their type.
    const heldKey = createPublicKey(createPrivateKey({ key: Buffer.from(held.privateKey, 'base64'), format: 'der', type: 'pkcs8' })).export({ format: 'jwk' });
    const held_ = heldKey as { kty?: string; crv?: string; x?: string; y?: string; pub?: string };
    const expected = held_.kty === 'AKP' ? { kty: 'AKP', pub: held_.pub } : { kty: held_.kty, crv: held_.crv, x: held_.x, ...(held_.y !== undefined ? { y: held_.y } : {}) };
    expect(coseAsJwk(stored.public_key)).to.deep.equal(expected);
  });

  it('re-credentials with a passkey assertion; replaying it is refused exactly like an unknown principal', async () => {
    const member = await freshMember();
    const device = await freshDevice(member.origin);
    const material = await bindPasskey(member, device);

    const assertion = await assertForAlice(member, device); // door attempt 1
    expect(assertion.credential_id).to.equal(material.credential_id);
    expect(signCountOf(assertion.authenticator_data)).to.be.greaterThan(0);
    const answer = await recredential(member, 'alice', assertion); // 2
    expect(answer.status, answer.text).to.equal(201);
    expect(answer.json).to.include({ object: 'recredential', principal: ALICE, label: 'alice', rebind_required: false });
    expect(answer.json.token).to.be.a('string').and.not.equal(member.token);
    const self = await get(member.url, '/v1/self', bearer(answer.json.token));
    expect(self.status, self.text).to.equal(200);
    expect(self.json).to.include({ principal: ALICE, standing: 'member' });
    expect(self.json.bindings).to.include({ passkey: true });
    // Nothing else changed: the invite's bearer still works.
    expect((await get(member.url, '/v1/self', bearer(member.token))).status).to.equal(200);

    const replay = await recredential(member, 'alice', assertion); // 3: the challenge is spent
    expectEnvelope(replay, 401, 'RECREDENTIAL_REFUSED');
    await sleep(DOOR_REFILL_MS); // the address bucket (127.0.0.1) is empty after 3 attempts
    const unknown = await recredential(member, 'nobody', assertion); // 4
    expectEnvelope(unknown, 401, 'RECREDENTIAL_REFUSED');
    expect(replay.text).to.equal(unknown.text);
    expect(replay.json.message).to.equal(RECREDENTIAL_REFUSED_MESSAGE);
  });

  it('refuses, constant-shape, an assertion whose signature counter does not move past the stored one (a cloned authenticator)', async () => {
    const member = await freshMember();
    const device = await freshDevice(member.origin);
    await bindPasskey(member, device);

    await setSignCount(device, 41);
    const first = await assertForAlice(member, device); // door attempt 1
    expect(signCountOf(first.authenticator_data)).to.equal(42);
    const accepted = await recredential(member, 'alice', first); // 2: stores counter 42
    expect(accepted.status, accepted.text).to.equal(201);

    await setSignCount(device, 5);
    const cloned = await assertForAlice(member, device); // 3
    expect(signCountOf(cloned.authenticator_data)).to.equal(6);
    await sleep(DOOR_REFILL_MS);
    const refused = await recredential(member, 'alice', cloned); // 4
    expectEnvelope(refused, 401, 'RECREDENTIAL_REFUSED');
    expect(refused.json.message).to.equal(RECREDENTIAL_REFUSED_MESSAGE);
    const { credentials } = await device.cdp.send('WebAuthn.getCredentials', { authenticatorId: device.authenticatorId });
    expect(credentials[0]!.signCount).to.equal(6);
  });

  it('servers sharing a PostgreSQL log: a challenge fetched on one server is answered on the other, and spent once for both', async function () {
    const cluster = await clusterOrSkip(this);
    const database = await freshDatabase(cluster, 'passkeys');
    const one = await startServer({ auth: { required: true }, storage: 'postgres', databaseUrl: database });
    servers.push(one);
    const two = await startServer({ auth: { required: true }, storage: 'postgres', databaseUrl: database });
    servers.push(two);
    const origin = one.url.replace('127.0.0.1', 'localhost');
    const admin = await bootstrapAdmin(one.url);
    expect((await request(one.url, 'POST', '/v1/config/passkey_rp', { json: { rp_id: 'localhost', origins: [origin] }, headers: bearer(admin) })).status).to.equal(201);
    const invite = await request(one.url, 'POST', '/v1/invites', { json: { membership: { preset: 'contributor', label: 'alice' } }, headers: bearer(admin) });
    const redeemed = await request(two.url, 'POST', '/v1/invites/redeem', { json: { invite: invite.json.invite_token } });
    expect(redeemed.status, redeemed.text).to.equal(201);
    const token: string = redeemed.json.token;
    const device = await freshDevice(origin);

    // Registration: the challenge from server one, the passkey bound through server two.
    const challenge = await request(one.url, 'POST', '/v1/self/bindings/challenge', { json: { kind: 'passkey' }, headers: bearer(token) });
    expect(challenge.status, challenge.text).to.equal(200);
    const material = (await device.page.evaluate<Registration | Assertion, Ceremony>(inPage, { op: 'create', options: challenge.json.options })) as Registration;
    const bound = await request(two.url, 'POST', '/v1/self/bindings', { json: { kind: 'passkey', material }, headers: bearer(token) });
    expect(bound.status, bound.text).to.equal(201);

    // Re-credential: the challenge from server two, the proof to server one; the same proof on server two is a replay.
    const ask = await request(two.url, 'POST', '/v1/recredential/challenge', { json: { principal: 'alice', kind: 'passkey' } });
    expect(ask.status, ask.text).to.equal(200);
    const assertion = (await device.page.evaluate<Registration | Assertion, Ceremony>(inPage, { op: 'get', challenge: ask.json.challenge, rpId: ask.json.rp_id })) as Assertion;
    const answered = await request(one.url, 'POST', '/v1/recredential', { json: { principal: 'alice', proof: { kind: 'passkey', evidence: assertion } } });
    expect(answered.status, answered.text).to.equal(201);
    expect(answered.json).to.include({ principal: ALICE });
    expectEnvelope(await request(two.url, 'POST', '/v1/recredential', { json: { principal: 'alice', proof: { kind: 'passkey', evidence: assertion } } }), 401, 'RECREDENTIAL_REFUSED');
  });
});

