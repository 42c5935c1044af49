/**
 * Key rotation between two real Loom processes on loopback (issue 35, goal 5):
 * both instances rotate their signing key (`loom federation rotate-key`) while
 * a continuous pair replicates each way; 0 failed pulls, 0 re-pairs, every
 * record arrives once; each side follows the other's rotation through the
 * countersignature (one federation.peer_key.v1 record). Signatures by the old
 * key count during the overlap and are refused (KEY_EXPIRED) once its
 * expired_ts passes, writing nothing.
 */
import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bearer } from '../helpers/auth.js';
import { runLoom } from '../helpers/cli-run.js';
import { get, newThread, request } from '../helpers/http-server.js';
import { type LoomProcess } from '../helpers/loom-process.js';
import { until } from '../helpers/until.js';
import { InstanceKey, signRecord } from '../../plugins/federation/index.js';
import { signCanonical } from '../../plugins/federation/signing.js';
import { computeRecordId } from '../../core/records/record-id.js';
import { makeRecord } from '../../core/records/record.js';
import { type Instance, pairOn, recordWriter, startInstance, threadIds } from './federated-instances.js';

const write = recordWriter('keyrot');

const OVERLAP_S = 6;

const statsOf = async (instance: Instance, syncPairId: string) => (await get(instance.process.url, `/v1/sync/pairs/${syncPairId}/stats`, bearer(instance.admin))).json;
const pins = async (instance: Instance) => (await get(instance.process.url, '/v1/folds/federation_peer_keys', bearer(instance.admin))).json.value as Array<{ peer_did: string; key: string; previous: number }>;

/** The seed of the key that signs for `instance` now (to forge old-key signatures once it is retired). */
async function seedOf(instance: Instance): Promise<InstanceKey> {
  const hex = (await readFile(join(instance.process.dataDir, 'plugins', 'federation', 'instance-key'), 'utf8')).trim();
  return InstanceKey.fromSeed(Buffer.from(hex, 'hex'));
}

/** A pair_poll from A (the initiator) to B, signed by `signer`: B accepts it only from a key of A in force. */
function signedPoll(pairId: string, from: string, to: string, signer: InstanceKey) {
  const body = { object: 'pair_poll', pair_id: pairId, initiator_did: from, responder_did: to, nonce: randomBytes(32).toString('base64url'), created: new Date().toISOString() };
  return { ...body, sig: signCanonical(signer, body) };
}

/** A record pushed to `to` under x-service-federation: 1, signed by `signer` as the instance `did`. */
function signedPush(did: string, signer: InstanceKey) {
  const content = { parents: [], thread: newThread('keyrot-push'), actor: 'did:sync:agent:pushed', act: 'DO' as const, body: { n: randomBytes(4).toString('hex') }, clock: 0, data_type: 'SCALAR' as const, judged_by: null };
  const record = makeRecord(computeRecordId(content), content);
  return { ...record, sig: { ...signRecord(signer, record), signer: did } };
}

describe('federation key rotation between two loom processes (goal 5)', function () {
  this.timeout(180_000);
  let a: Instance;
  let b: Instance;
  let config = '';
  const started: LoomProcess[] = [];

  before(async () => {
    [a, b] = await Promise.all([startInstance(), startInstance()]);
    started.push(a.process, b.process);
    config = join(await mkdtemp(join(tmpdir(), 'loom-keyrot-cli-')), 'config.json');
    const posture = await request(b.process.url, 'POST', '/v1/config/federation_pairing', { headers: bearer(b.admin), json: { default_posture: 'open' } });
    expect(posture.status, posture.text).to.equal(201);
  });
  after(async () => {
    for (const process of started) await process.stop();
    for (const dir of new Set(started.map((p) => p.dataDir))) await rm(dir, { recursive: true, force: true });
    if (config) await rm(join(config, '..'), { recursive: true, force: true });
  });

  it('rotating both keys mid-sync: 0 failed pulls, 0 re-pairs, nothing lost or duplicated; old-key signatures refused once expired_ts passes', async () => {
    const capabilities = (await get(a.process.url, '/v1/capabilities', bearer(a.admin))).json.capabilities;
    expect(capabilities['federation.key_rotation']).to.equal(true);
    const paired = await request(a.process.url, 'POST', '/v1/federation/pairs', { headers: bearer(a.admin), json: { url: b.process.url, mode: 'continuous' } });
    expect(paired.status, paired.text).to.equal(201);
    const pairId: string = paired.json.pair_id;
    const syncPairId: string = paired.json.sync_pair_id;
    await until('B active', 10_000, async () => (await pairOn(b, pairId)).state === 'active');

    // Records flow both ways the whole time.
    const threadA = newThread('keyrot-a');
    const threadB = newThread('keyrot-b');
    const writtenA: string[] = [];
    const writtenB: string[] = [];
    let writing = true;
    const writer = (async () => {
      while (writing) {
        writtenA.push(await write(a, threadA));
        writtenB.push(await write(b, threadB));
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    })();
    await until('the first records across', 10_000, async () => (await threadIds(b, threadA)).length >= 5 && (await threadIds(a, threadB)).length >= 5);

    const oldA = await seedOf(a);
    expect(oldA.did).to.equal(a.did);
    const keysBefore = (await get(b.process.url, '/.well-known/service')).json.federation_manifest.keys;
    expect(keysBefore).to.deep.equal({ current: b.did, previous: [] });

    // A rotates through the CLI, with an overlap of a few seconds; then B through the route.
    const rotatedAt = Date.now();
    const cli = await runLoom(['federation', 'rotate-key', '--overlap', `${OVERLAP_S}s`, '--json'], { url: a.process.url, config, token: a.admin.token });
    expect(cli.code, cli.stderr).to.equal(0);
    const rotatedA = JSON.parse(cli.stdout);
    expect(rotatedA).to.include({ object: 'federation_keys', did: a.did, rotated_from: a.did });
    expect(rotatedA.key).to.not.equal(a.did);
    expect(rotatedA.previous).to.have.length(1);
    expect(rotatedA.previous[0]).to.include({ key: a.did, succeeded_by: rotatedA.key, state: 'overlap' });
    const rotatedB = await request(b.process.url, 'POST', '/v1/federation/keys/rotate', { headers: bearer(b.admin), json: { overlap_seconds: OVERLAP_S } });
    expect(rotatedB.status, rotatedB.text).to.equal(200);

    // The manifest announces it: signed by the new key, the old one listed with its expired_ts and countersignature.
    const manifest = (await get(a.process.url, '/.well-known/service')).json.federation_manifest;
    expect(manifest.daemon.did).to.equal(a.did);
    expect(manifest.keys.current).to.equal(rotatedA.key);
    expect(manifest.keys.previous[0]).to.include({ key: a.did, succeeded_by: rotatedA.key });
    expect(manifest.keys.previous[0].countersignature).to.be.a('string');
    expect(manifest.signature.key_id).to.equal(`${a.did}#${rotatedA.key.slice('did:key:'.length)}`);

    // During the overlap, the old key's signatures still count (a poll, a pushed record).
    const overlapPoll = await request(b.process.url, 'POST', `/v1/federation/pair/${pairId}/poll`, { json: signedPoll(pairId, a.did, b.did, oldA) });
    expect(overlapPoll.status, overlapPoll.text).to.equal(200);
    const overlapPush = await request(b.process.url, 'POST', '/v1/sync/records', { headers: { ...bearer(b.admin), 'x-service-federation': '1' }, json: { records: [signedPush(a.did, oldA)] } });
    expect(overlapPush.status, overlapPush.text).to.equal(201);
    expect(overlapPush.json.accepted).to.have.length(1);

    // Records keep crossing after both rotations; each side pinned the other's new key.
    const countA = writtenA.length;
    const countB = writtenB.length;
    await until('records written after the rotations cross', 20_000, async () => (await threadIds(b, threadA)).length > countA + 5 && (await threadIds(a, threadB)).length > countB + 5);
    await until('each side pinned the other new key', 10_000, async () => (await pins(b)).some((p) => p.peer_did === a.did && p.key === rotatedA.key) && (await pins(a)).some((p) => p.peer_did === b.did && p.key === rotatedB.json.key));

    // Past expired_ts: the old key is refused with a typed error, and the refusal writes nothing.
    const expiredTs: number = rotatedA.previous[0].expired_ts;
    expect(expiredTs - Date.parse(rotatedA.previous[0].rotated_at)).to.equal(OVERLAP_S * 1000);
    expect(expiredTs).to.be.at.least(rotatedAt + OVERLAP_S * 1000);
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, expiredTs + 200 - Date.now())));
    const listed = (await runLoom(['federation', 'keys', '--json'], { url: a.process.url, config, token: a.admin.token }));
    expect(listed.code, listed.stderr).to.equal(0);
    expect(JSON.parse(listed.stdout).previous[0]).to.include({ key: a.did, state: 'expired' });
    const pairsBefore = JSON.stringify((await get(b.process.url, '/v1/folds/federation_handshake_pairs', bearer(b.admin))).json.value);
    const pinsBefore = JSON.stringify(await pins(b));
    const expiredPoll = await request(b.process.url, 'POST', `/v1/federation/pair/${pairId}/poll`, { json: signedPoll(pairId, a.did, b.did, oldA) });
    expect(expiredPoll.status, expiredPoll.text).to.equal(401);
    expect(expiredPoll.json.code).to.equal('KEY_EXPIRED');
    const pushed = signedPush(a.did, oldA);
    const expiredPush = await request(b.process.url, 'POST', '/v1/sync/records', { headers: { ...bearer(b.admin), 'x-service-federation': '1' }, json: { records: [pushed] } });
    expect(expiredPush.status, expiredPush.text).to.equal(422);
    expect(expiredPush.json.code).to.equal('FEDERATION_SIGNATURE_INVALID');
    expect((await get(b.process.url, `/v1/records/${pushed.id}`, bearer(b.admin))).status).to.equal(404);
    expect(await threadIds(b, pushed.thread)).to.deep.equal([]);
    expect(JSON.stringify(await pins(b))).to.equal(pinsBefore);

    writing = false;
    await writer;
    await until('every record across', 20_000, async () => (await threadIds(b, threadA)).length === writtenA.length && (await threadIds(a, threadB)).length === writtenB.length);
    const onB = await threadIds(b, threadA);
    const onA = await threadIds(a, threadB);
    expect(new Set(onB).size, 'no duplicates on B').to.equal(onB.length);
    expect(new Set(onA).size, 'no duplicates on A').to.equal(onA.length);
    expect(new Set(onB)).to.deep.equal(new Set(writtenA));
    expect(new Set(onA)).to.deep.equal(new Set(writtenB));

    // 0 failed pulls on either side, 0 re-pairs: one pair each, the same one, active; no pull error counted.
    for (const [instance, sync] of [
      [a, syncPairId],
      [b, (await pairOn(b, pairId)).sync_pair_id],
    ] as const) {
      const stats = await statsOf(instance, sync);
      expect(stats.counters.errors, `failed pulls on ${instance === a ? 'A' : 'B'}: ${JSON.stringify(stats.last_error ?? stats)}`).to.equal(0);
      expect(stats.counters.rejected, 'no page refused').to.equal(0);
      const pairs = (await get(instance.process.url, '/v1/federation/pairs', bearer(instance.admin))).json.data;
      expect(pairs.map((p: { pair_id: string; state: string }) => [p.pair_id, p.state])).to.deep.equal([[pairId, 'active']]);
    }
    // The handshake fold shows the expired-key refusal wrote nothing.
    expect(JSON.stringify((await get(b.process.url, '/v1/folds/federation_handshake_pairs', bearer(b.admin))).json.value)).to.equal(pairsBefore);

    // The handshake speaks with the new keys too: A's signed revoke notice (by its new key) is taken by B.
    const revoked = await request(a.process.url, 'POST', `/v1/federation/pairs/${pairId}/revoke`, { headers: bearer(a.admin), json: { reason: 'end of the rotation test' } });
    expect(revoked.status, revoked.text).to.equal(200);
    expect(revoked.json).to.include({ state: 'revoked', peer_notified: true });
    expect(await pairOn(b, pairId)).to.include({ state: 'revoked', revoked_by: 'peer' });
  });
});
