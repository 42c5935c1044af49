/**
 * The relay mailbox between three real Loom processes on loopback (issue 35,
 * goal 7): a sender S, a relay R and a receiver V, paired S–V by the
 * handshake with V pulling S through a proxy that is then closed, so direct
 * delivery is blocked. S notices V's pulls stopped, deposits signed
 * envelopes at R; V polls its mailbox, verifies every envelope end to end,
 * stores the records and acks. 10,000 records arrive with 0 lost and 0
 * duplicated; one byte altered in one envelope stored at R rejects exactly
 * that envelope, reported on V. The relay's own rules: only the receiver
 * reads or acks its mailbox, the cap (507), the TTL, and refused requests
 * write nothing.
 */
import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { bootstrapAdmin, bearer, createAccount, type Credential } from '../helpers/auth.js';
import { get, newThread, request } from '../helpers/http-server.js';
import { startLoomProcess, type LoomProcess } from '../helpers/loom-process.js';
import { tamperingProxy } from '../helpers/tampering-proxy.js';
import { until } from '../helpers/until.js';
import { InstanceKey } from '../../plugins/federation/instance-key.js';
import { sealEnvelope } from '../../plugins/federation/relay/envelope.js';
import { mailboxProofHeaders } from '../../plugins/federation/relay/mailbox-proof.js';
import { signPage } from '../../plugins/federation/sync-page.js';

interface Instance {
  process: LoomProcess;
  admin: Credential;
  did: string;
}

async function startInstance(): Promise<Instance> {
  const process = await startLoomProcess({ args: ['--federation'] });
  const admin = await bootstrapAdmin(process.url);
  return { process, admin, did: (await get(process.url, '/health')).json.instance_did };
}

const post = (instance: Instance, path: string, json: unknown) => request(instance.process.url, 'POST', path, { headers: bearer(instance.admin), json });
const relayStatus = async (instance: Instance) => {
  const answer = await get(instance.process.url, '/v1/federation/relay', bearer(instance.admin));
  expect(answer.status, answer.text).to.equal(200);
  return answer.json;
};

async function threadIds(instance: Instance, thread: string): Promise<string[]> {
  const ids: string[] = [];
  let after: string | null = null;
  do {
    const answer = await get(instance.process.url, `/v1/threads/${thread}/records?limit=1000${after ? `&after=${after}` : ''}`, bearer(instance.admin));
    expect(answer.status, answer.text).to.equal(200);
    ids.push(...answer.json.data.map((r: { id: string }) => r.id));
    after = answer.json.next_cursor;
  } while (after !== null);
  return ids;
}

/** A mailbox envelope from a throwaway sender to a throwaway receiver, for the relay's own rules. */
function envelopeFor(receiver: string, n: number) {
  const sender = InstanceKey.fromSeed(randomBytes(32));
  const page = signPage(sender, { request: { since: '', target_namespace: 'default', thread: null }, records: [], next_cursor: `c${n}`, has_more: false });
  return sealEnvelope(sender, receiver, page);
}

const mailboxFiles = async (relay: Instance, receiver: string) => readdir(join(relay.process.dataDir, 'plugins', 'federation', 'mailbox', encodeURIComponent(receiver))).catch(() => [] as string[]);

describe('relay mailbox between three loom processes (sender, relay, receiver)', function () {
  this.timeout(240_000);
  let s: Instance;
  let r: Instance;
  let v: Instance;
  let writer: Credential;
  let closeProxy: () => Promise<void>;
  let clock = 0;
  const actor = 'did:sync:agent:relay-test';

  async function writeRecords(thread: string, count: number): Promise<string[]> {
    const ids: string[] = [];
    for (let start = 0; start < count; start += 1000) {
      const batch = Array.from({ length: Math.min(1000, count - start) }, () => ({ thread, actor, act: 'DO', body: { n: clock }, clock: clock++, data_type: 'SCALAR', parents: [] }));
      const answer = await request(s.process.url, 'POST', '/v1/records/batch', { headers: { ...bearer(writer), 'x-service-actor': actor }, json: batch });
      expect(answer.status, answer.text).to.equal(200);
      expect(answer.json.created).to.equal(batch.length);
      ids.push(...answer.json.results.map((x: { id: string }) => x.id));
    }
    return ids;
  }

  before(async () => {
    [s, r, v] = await Promise.all([startInstance(), startInstance(), startInstance()]);
    writer = await createAccount(s.process.url, s.admin, 'writer', ['records:write', 'records:read'], ['did:sync:agent:*']);
    expect((await post(r, '/v1/config/federation.relay_mailbox', { serve: true })).status).to.equal(201);
    expect((await post(s, '/v1/config/federation_pairing', { default_posture: 'open' })).status).to.equal(201);
    // V reaches S only through this proxy; closing it blocks direct delivery from S to V.
    const proxy = await tamperingProxy(s.process.url, '/nothing-altered', () => {});
    closeProxy = proxy.close;
    const paired = await post(v, '/v1/federation/pairs', { url: proxy.url, poll_interval_ms: 1000 });
    expect(paired.status, paired.text).to.equal(201);
    expect((await post(s, '/v1/config/federation.relay', { url: r.process.url, for_pair: 'all', silence_ms: 1500 })).status).to.equal(201);
    expect((await post(v, '/v1/config/federation.relay', { url: r.process.url, for_pair: 'all', poll_interval_ms: 200 })).status).to.equal(201);
    await closeProxy();
  });
  after(async () => {
    for (const instance of [s, r, v]) {
      if (!instance) continue;
      await instance.process.stop();
      await instance.process.remove();
    }
  });

  it('capabilities: federation.relay is true', async () => {
    const caps = (await get(s.process.url, '/v1/capabilities', bearer(s.admin))).json;
    expect(caps.capabilities['federation.relay']).to.equal(true);
  });

  it('goal 7: with direct delivery blocked, 10,000 records arrive through the mailbox, 0 lost, 0 duplicated, acked envelopes removed', async () => {
    const thread = newThread('relay-goal-7');
    const started = Date.now();
    const written = await writeRecords(thread, 10_000);
    const wroteMs = Date.now() - started;
    await until('10,000 records accepted on V', 120_000, async () => (await relayStatus(v)).receiving[0]?.records_accepted >= 10_000, 250);
    const arrived = await threadIds(v, thread);
    const ms = Date.now() - started;
    expect(arrived.length).to.equal(10_000);
    expect(new Set(arrived).size).to.equal(10_000);
    expect([...arrived].sort()).to.deep.equal([...written].sort());
    const sent = (await relayStatus(s)).sending[0];
    const received = (await relayStatus(v)).receiving[0];
    // Direct pulls never reached S: V's pair to S is failing, so everything came through R.
    const pair = (await get(v.process.url, '/v1/federation/pairs', bearer(v.admin))).json.data[0];
    expect(pair.retries).to.be.greaterThan(0);
    expect(received.envelopes_rejected).to.equal(0);
    // S's own relay record came with its log but is not V's: V still polls at its own interval.
    const vRelay = (await get(v.process.url, '/v1/config/federation.relay', bearer(v.admin))).json;
    expect(vRelay.value.all).to.include({ url: r.process.url, poll_interval_ms: 200 });
    expect((await relayStatus(v)).rejected).to.deep.equal([]);
    // V's own pull cursor moved with the envelopes to S's source cursor: its next direct pull resumes after them.
    const syncPairs = (await get(v.process.url, '/v1/sync/pairs', bearer(v.admin))).json;
    const syncPair = (syncPairs.data ?? syncPairs).find((p: { pair_id: string }) => p.pair_id === pair.sync_pair_id);
    expect(syncPair?.cursor).to.equal(sent.push_cursor);
    // Acked envelopes are gone from the relay.
    await until('the relay emptied', 10_000, async () => (await mailboxFiles(r, v.did)).length === 0, 100);
    console.log(`      relay: 10,000 records written in ${wroteMs} ms, all on V after ${ms} ms; ${sent.envelopes_deposited} envelopes deposited, ${received.envelopes_taken} taken, ${received.records_deduplicated} records deduplicated`);
  });

  it('one altered byte in a stored envelope rejects exactly that envelope, and V reports it', async () => {
    // V stops polling (its relay record disabled) so the envelopes wait at R to be altered there.
    expect((await post(v, '/v1/config/federation.relay', { url: r.process.url, for_pair: 'all', enabled: false })).status).to.equal(201);
    const thread = newThread('relay-tamper');
    const written = await writeRecords(thread, 1_200);
    await until('3 envelopes waiting at R', 30_000, async () => (await mailboxFiles(r, v.did)).length === 3, 100);
    const files = (await mailboxFiles(r, v.did)).sort();
    const victim = files[1]!;
    const victimId = /(menv_[0-9a-f]{64})/.exec(victim)![1]!;
    const path = join(r.process.dataDir, 'plugins', 'federation', 'mailbox', encodeURIComponent(v.did), victim);
    const text = await readFile(path, 'utf8');
    const at = text.indexOf('"n":') + 4;
    const altered = text.slice(0, at) + (text[at] === '9' ? '8' : String(Number(text[at]) + 1)) + text.slice(at + 1);
    expect(Buffer.byteLength(altered)).to.equal(Buffer.byteLength(text));
    await writeFile(path, altered);

    // While the envelopes wait: only V reads or acks V's mailbox, and a refused request writes nothing.
    const stranger = InstanceKey.fromSeed(randomBytes(32));
    const base = `/v1/mailbox/${encodeURIComponent(v.did)}`;
    const bare = await request(r.process.url, 'GET', `${base}/receive`);
    expect([bare.status, bare.json.code]).to.deep.equal([401, 'MAILBOX_AUTH_INVALID']);
    const notYours = await request(r.process.url, 'GET', `${base}/receive`, { headers: mailboxProofHeaders(stranger, 'GET', `${base}/receive`, undefined, Date.now()) });
    expect([notYours.status, notYours.json.code]).to.deep.equal([403, 'MAILBOX_NOT_YOURS']);
    const forged = { ...mailboxProofHeaders(stranger, 'GET', `${base}/receive`, undefined, Date.now()), 'x-loom-mailbox-did': v.did };
    const claimed = await request(r.process.url, 'GET', `${base}/receive`, { headers: forged });
    expect([claimed.status, claimed.json.code]).to.deep.equal([401, 'MAILBOX_AUTH_INVALID']);
    const ackBody = { ids: files.map((f) => /(menv_[0-9a-f]{64})/.exec(f)![1]!) };
    const strangerAck = await request(r.process.url, 'POST', `${base}/ack`, { headers: mailboxProofHeaders(stranger, 'POST', `${base}/ack`, ackBody, Date.now()), json: ackBody });
    expect([strangerAck.status, strangerAck.json.code]).to.deep.equal([403, 'MAILBOX_NOT_YOURS']);
    const stale = await request(r.process.url, 'POST', `${base}/ack`, { headers: mailboxProofHeaders(stranger, 'POST', `${base}/ack`, ackBody, Date.now() - 120_000), json: ackBody });
    expect([stale.status, stale.json.code]).to.deep.equal([401, 'MAILBOX_AUTH_INVALID']);
    expect((await mailboxFiles(r, v.did)).sort()).to.deep.equal(files);

    expect((await post(v, '/v1/config/federation.relay', { url: r.process.url, for_pair: 'all', poll_interval_ms: 200 })).status).to.equal(201);
    await until('V took every envelope', 30_000, async () => (await mailboxFiles(r, v.did)).length === 0, 100);
    const status = await relayStatus(v);
    expect(status.rejected.map((x: { envelope_id: string }) => x.envelope_id)).to.deep.equal([victimId]);
    expect(status.rejected[0].code).to.equal('TAMPERED');
    expect(status.rejected[0].records).to.equal(500);
    // Exactly that envelope's 500 records are missing; the other two envelopes' 700 arrived.
    const arrived = new Set(await threadIds(v, thread));
    expect(arrived.size).to.equal(700);
    for (const id of arrived) expect(written).to.include(id);
  });

  it('a restarted sender continues from its saved push cursor: no resend of what was delivered', async () => {
    const before = (await relayStatus(v)).receiving[0];
    await s.process.stop();
    s = { ...s, process: await startLoomProcess({ args: ['--federation'], dataDir: s.process.dataDir }) };
    const thread = newThread('relay-restart');
    const written = await writeRecords(thread, 300);
    await until('300 more records on V', 30_000, async () => (await relayStatus(v)).receiving[0]?.records_accepted >= before.records_accepted + 300, 100).catch(async (error: Error) => {
      throw new Error(`${error.message}; S: ${JSON.stringify((await relayStatus(s)).sending)}; V: ${JSON.stringify((await relayStatus(v)).receiving)}; S log: ${s.process.stderr().slice(-1500)}`);
    });
    expect(new Set(await threadIds(v, thread))).to.deep.equal(new Set(written));
    // Nothing already delivered was deposited again (S's restart may add records of its own, which are new on V).
    const after = (await relayStatus(v)).receiving[0];
    expect(after.records_deduplicated).to.equal(before.records_deduplicated);
  });

  it('the relay: deposits are idempotent, checked, capped (507) and expire; refusals write nothing', async () => {
    const receiverKey = InstanceKey.fromSeed(randomBytes(32));
    const receiver = receiverKey.did;
    const deposit = (envelope: unknown, on: Instance = r) => request(on.process.url, 'POST', `/v1/mailbox/${encodeURIComponent(receiver)}`, { json: envelope });
    // An instance that does not serve mailboxes has none.
    const off = await deposit(envelopeFor(receiver, 0), v);
    expect([off.status, off.json.code]).to.deep.equal([404, 'MAILBOX_DISABLED']);
    expect((await post(r, '/v1/config/federation.relay_mailbox', { serve: true, max_envelopes: 2 })).status).to.equal(201);
    const first = envelopeFor(receiver, 1);
    const a = await deposit(first);
    expect(a.status, a.text).to.equal(202);
    expect(a.json).to.include({ id: first.id, duplicate: false, queued: 1 });
    const again = await deposit(first);
    expect(again.status).to.equal(202);
    expect(again.json).to.include({ duplicate: true, queued: 1 });
    // An envelope altered after sealing, or addressed elsewhere, is refused before anything is stored.
    const tampered = { ...envelopeFor(receiver, 2), next_cursor: 'moved' };
    const bad = await deposit(tampered);
    expect([bad.status, bad.json.code]).to.deep.equal([422, 'MAILBOX_ENVELOPE_INVALID']);
    const elsewhere = await deposit(envelopeFor(InstanceKey.fromSeed(randomBytes(32)).did, 3));
    expect([elsewhere.status, elsewhere.json.code]).to.deep.equal([422, 'MAILBOX_ENVELOPE_INVALID']);
    expect((await deposit(envelopeFor(receiver, 4))).status).to.equal(202);
    const before = (await mailboxFiles(r, receiver)).sort();
    const full = await deposit(envelopeFor(receiver, 5));
    expect([full.status, full.json.code]).to.deep.equal([507, 'MAILBOX_FULL']);
    expect((await mailboxFiles(r, receiver)).sort()).to.deep.equal(before);
    expect(before).to.have.length(2);

    // The receiver reads its two envelopes, oldest first; the relay adds no sequence of its own.
    const path = `/v1/mailbox/${encodeURIComponent(receiver)}/receive`;
    const read = await request(r.process.url, 'GET', path, { headers: mailboxProofHeaders(receiverKey, 'GET', path, undefined, Date.now()) });
    expect(read.status, read.text).to.equal(200);
    expect(read.json.envelopes.map((e: { id: string }) => e.id)[0]).to.equal(first.id);
    expect(read.json.envelopes[0].envelope).to.deep.equal(JSON.parse(JSON.stringify(first)));

    // TTL: with ttl_seconds 1, both are gone a second later (and their files with them).
    expect((await post(r, '/v1/config/federation.relay_mailbox', { serve: true, max_envelopes: 2, ttl_seconds: 1 })).status).to.equal(201);
    await new Promise((done) => setTimeout(done, 1_100));
    const expired = await request(r.process.url, 'GET', path, { headers: mailboxProofHeaders(receiverKey, 'GET', path, undefined, Date.now()) });
    expect(expired.json.envelopes).to.deep.equal([]);
    expect(await mailboxFiles(r, receiver)).to.deep.equal([]);
  });
});
