/**
 * Pair tokens and pending requests over time, with an injected clock (two
 * servers in this process, real HTTP on loopback): the 90-day tokens are
 * renewed at 83 days through the signed exchange, on both sides, records
 * keep crossing with the new ones and the old ones die once the new ones are
 * used; a pair request nobody approves expires after 7 days on both sides
 * (revoked with reason `expired`), and the initiator stops polling.
 */
import { expect } from 'chai';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { get, newThread, request } from '../helpers/http-server.js';
import { startServer, type StartedServer } from '../helpers/start-server.js';
import { until } from '../helpers/until.js';

const DAY = 86_400_000;
let offset = 0;
const clock = () => Date.now() + offset;
const OPTIONS = { tokenCheckMs: 50, handshakePollMs: 50, pairPollIntervalMs: 1_000, backoffBaseMs: 50 };


const pairOn = async (server: StartedServer, id: string) => (await get(server.url, `/v1/federation/pairs/${id}`)).json;
const heldTokens = async (server: StartedServer): Promise<Record<string, string>> => JSON.parse(await readFile(join(server.dataDir, 'plugins', 'federation', 'pair-secrets.json'), 'utf8'));

describe('federation pair tokens and pending requests over time (injected clock)', function () {
  this.timeout(60_000);
  let a: StartedServer;
  let b: StartedServer;
  let c: StartedServer;

  before(async () => {
    [a, b, c] = await Promise.all([startServer({ federation: OPTIONS, clock }), startServer({ federation: { ...OPTIONS, pairPosture: 'open' }, clock }), startServer({ federation: OPTIONS, clock })]);
  });
  after(async () => {
    offset = 0;
    await Promise.all([a?.stop(), b?.stop(), c?.stop()]);
  });

  it('renews the held tokens at 83 days through the signed exchange; the old ones die once the new ones are used', async () => {
    const paired = await request(a.url, 'POST', '/v1/federation/pairs', { json: { url: b.url } });
    expect(paired.status, paired.text).to.equal(201);
    const id = paired.json.pair_id;
    const syncPair = paired.json.sync_pair_id;
    const onB = await pairOn(b, id);
    const oldHeldByA = (await heldTokens(a))[syncPair]!;
    const oldHeldByB = (await heldTokens(b))[syncPair]!;
    expect((await get(b.url, '/v1/sync/changes', { authorization: `Bearer ${oldHeldByA}` })).status).to.equal(200);

    // Day 82: nothing due yet.
    offset = 82 * DAY;
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect((await pairOn(a, id)).token_renewed_at).to.equal(null);

    offset = 83 * DAY + 60_000;
    const renewedA = await until('A renewed the token B minted for it', 10_000, async () => {
      const pair = await pairOn(a, id);
      return Date.parse(pair.held_token_expires_at) > clock() + 80 * DAY ? pair : null;
    });
    expect(renewedA.token_renewed_at).to.be.a('string');
    expect(Date.parse(renewedA.held_token_expires_at) - clock()).to.be.closeTo(90 * DAY, 60_000);
    // B minted a new token for A and revokes the old one once A pulls with the new one.
    const renewedB = await until("B retired A's old token", 10_000, async () => {
      const pair = await pairOn(b, id);
      return pair.issued_token.service_account_id !== onB.issued_token.service_account_id && pair.previous_issued_token === null ? pair : null;
    });
    expect(renewedB.state).to.equal('active');
    const newHeldByA = (await heldTokens(a))[syncPair]!;
    expect(newHeldByA).to.not.equal(oldHeldByA);
    expect((await get(b.url, '/v1/sync/changes', { authorization: `Bearer ${oldHeldByA}` })).status, 'the old token is dead').to.equal(401);
    expect((await get(b.url, '/v1/sync/changes', { authorization: `Bearer ${newHeldByA}` })).status).to.equal(200);
    // The same the other way: B renewed the token A minted for it.
    await until("A retired B's old token", 10_000, async () => (await pairOn(a, id)).previous_issued_token === null && (await heldTokens(b))[syncPair] !== oldHeldByB && Date.parse((await pairOn(b, id)).held_token_expires_at) > clock() + 80 * DAY);
    await until("B's old token refused", 5_000, async () => (await get(a.url, '/v1/sync/changes', { authorization: `Bearer ${oldHeldByB}` })).status === 401);

    // Records still cross both ways, with the new tokens.
    const thread = newThread('renewed');
    const written = await request(b.url, 'POST', '/v1/records', { headers: { 'x-service-actor': 'did:sync:agent:renew' }, json: { thread, actor: 'did:sync:agent:renew', act: 'DO', body: {}, clock: 1, data_type: 'SCALAR', parents: [] } });
    expect(written.status, written.text).to.equal(201);
    await until('the record on A', 10_000, async () => (await get(a.url, `/v1/records/${written.json.id}`)).status === 200);
    expect((await pairOn(a, id)).state).to.equal('active');
  });

  it('expires a pair request nobody approved after 7 days, on both sides, and stops polling', async () => {
    const asked = await request(a.url, 'POST', '/v1/federation/pairs', { json: { url: c.url } });
    expect(asked.status, asked.text).to.equal(202);
    const id = asked.json.pair_id;
    expect((await pairOn(c, id)).state).to.equal('establishing');
    offset += 6 * DAY;
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect((await pairOn(a, id)).state, 'still waiting at 6 days').to.equal('establishing');
    offset += DAY + 60_000;
    const expired = await until('expired on A', 10_000, async () => {
      const pair = await pairOn(a, id);
      return pair.state === 'revoked' ? pair : null;
    });
    expect(expired.revoked_reason).to.match(/^expired/);
    const there = await until('expired on C', 10_000, async () => {
      const pair = await pairOn(c, id);
      return pair.state === 'revoked' ? pair : null;
    });
    expect(there.revoked_reason).to.match(/^expired/);
    // The token A minted for C is dead, and approving now is refused.
    const approve = await request(c.url, 'POST', `/v1/federation/pairs/${id}/approve`);
    expect(approve.json.code).to.equal('PAIR_REVOKED');
  });
});
