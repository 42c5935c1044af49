import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InstanceKey } from '../instance-key.js';
import { buildFederationManifest, signManifest, verifyManifest } from '../manifest.js';
import { acceptableKeys, descendsFrom, genesisChain, KeyChainError, keyStanding, parseKeyChain, signRotation, type KeyChain } from './key-chain.js';
import { PEER_KEY_KIND, type PeerKeyTable, applyPeerKeyRecord } from './peer-key-records.js';
import { PeerKeys } from './peer-keys.js';
import { KeyRotation } from './key-rotation.js';
import { verifyCanonical, signCanonical } from '../signing.js';
import type { LoomRecord } from '../../../core/records/record.js';

const T0 = Date.parse('2026-11-27T00:00:00Z');
const HOUR = 3_600_000;

function manifestOf(key: InstanceKey, now: number, keys: KeyChain = key.chain()): Record<string, unknown> {
  const unsigned = buildFederationManifest({ did: key.did, keys, version: '1', federationProtocolVersion: '0.14', baseUrl: null, kinds: [], namespaces: [] });
  return signManifest(key, unsigned, { now, ttlMs: 7 * 24 * HOUR });
}

function codeOf(run: () => unknown): string | null {
  try {
    run();
    return null;
  } catch (error) {
    return (error as { code?: string }).code ?? 'untyped';
  }
}

describe('federation key chain (issue 35, key rotation)', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'loom-keyrot-'));
  });
  afterEach(async () => rm(dir, { recursive: true, force: true }));

  it('a rotation keeps the DID, signs with the new key, and lists the old key with its expired_ts and countersignature', async () => {
    const key = await InstanceKey.loadOrCreate(dir);
    const did = key.did;
    expect(key.chain()).to.deep.equal(genesisChain(did));
    const rotated = await key.rotate(T0, HOUR);
    expect(key.did).to.equal(did);
    expect(key.keyDid).to.equal(rotated.key).and.not.equal(did);
    const chain = parseKeyChain(did, JSON.parse(JSON.stringify(key.chain())));
    expect(chain.current).to.equal(rotated.key);
    expect(chain.previous).to.have.length(1);
    expect(chain.previous[0]).to.include({ key: did, succeeded_by: rotated.key, rotated_at: T0, expired_ts: T0 + HOUR });
    // The new key signs; the DID's own key no longer does.
    const body = { hello: 'world' };
    const sig = signCanonical(key, body);
    expect(verifyCanonical(key.keyDid, body, sig)).to.equal(true);
    expect(verifyCanonical(did, body, sig)).to.equal(false);
    // Old key accepted during the overlap, refused from expired_ts on.
    expect(acceptableKeys(chain, T0 + HOUR - 1)).to.deep.equal([rotated.key, did]);
    expect(acceptableKeys(chain, T0 + HOUR)).to.deep.equal([rotated.key]);
    expect(keyStanding(chain, did, T0 + HOUR)).to.equal('expired');
    // The manifest is signed by the key in force and verifies for a verifier that pinned the old key.
    const verdict = verifyManifest(manifestOf(key, T0 + 1000), { now: T0 + 1000, strict: true, expectedDid: did, pinned: did });
    expect(verdict.ok, verdict.ok ? '' : verdict.message).to.equal(true);
  });

  it('is crash-safe: the keyring is durable before the new key signs; a restart finds the new key and the old one until expiry', async () => {
    const key = await InstanceKey.loadOrCreate(dir);
    const did = key.did;
    const first = await key.rotate(T0, HOUR);
    const second = await key.rotate(T0 + 1000, HOUR);
    const reloaded = await InstanceKey.loadOrCreate(dir);
    expect(reloaded.did).to.equal(did);
    expect(reloaded.keyDid).to.equal(second.key);
    expect(reloaded.chain()).to.deep.equal(key.chain());
    expect(parseKeyChain(did, reloaded.chain()).previous.map((l) => l.key)).to.deep.equal([did, first.key]);
    // A crash between the keyring and the single-key file: the keyring wins and the file is brought up to it.
    await writeFile(join(dir, 'instance-key'), `${randomBytes(32).toString('hex')}\n`);
    const again = await InstanceKey.loadOrCreate(dir);
    expect(again.keyDid).to.equal(second.key);
    const ring = JSON.parse(await readFile(join(dir, 'instance-keys.json'), 'utf8'));
    expect((await readFile(join(dir, 'instance-key'), 'utf8')).trim()).to.equal(ring.seeds[second.key]);
    // Retired seeds are kept only while their key is in its overlap.
    expect(Object.keys(ring.seeds)).to.have.members([second.key, first.key, did]);
    await again.rotate(T0 + 2 * HOUR, HOUR);
    const pruned = JSON.parse(await readFile(join(dir, 'instance-keys.json'), 'utf8'));
    expect(Object.keys(pruned.seeds)).to.have.length(2);
    expect(pruned.seeds[did]).to.equal(undefined);
  });

  it('refuses every forged or broken chain with KEY_CHAIN_INVALID', async () => {
    const key = await InstanceKey.loadOrCreate(dir);
    const did = key.did;
    await key.rotate(T0, HOUR);
    const good = JSON.parse(JSON.stringify(key.chain())) as { current: string; previous: Array<Record<string, unknown>> };
    const stranger = InstanceKey.fromSeed(randomBytes(32));
    const mutations: Array<[string, (c: typeof good) => unknown]> = [
      ['the current key swapped', (c) => ({ ...c, current: stranger.did })],
      ['a link not countersigned by the key it retires', (c) => ({ ...c, previous: [{ ...c.previous[0], countersignature: signCanonical(stranger, { x: 1 }) }] })],
      ['the overlap stretched', (c) => ({ ...c, previous: [{ ...c.previous[0], expired_ts: T0 + 100 * HOUR }] })],
      ['a chain that does not start at the DID', (c) => ({ current: c.current, previous: [signRotation(did, stranger, c.current, T0, T0 + HOUR)] })],
      ['an extra field', (c) => ({ ...c, extra: 1 })],
      ['a link without its countersignature', (c) => ({ ...c, previous: [{ ...c.previous[0], countersignature: undefined }] })],
      ['expired before rotated', (c) => ({ ...c, previous: [{ ...c.previous[0], expired_ts: T0 - 1 }] })],
      ['a key twice', (c) => ({ current: did, previous: c.previous })],
      ['not an object', () => 'keys'],
    ];
    for (const [name, mutate] of mutations) expect(codeOf(() => parseKeyChain(did, JSON.parse(JSON.stringify(mutate(good))))), name).to.equal('KEY_CHAIN_INVALID');
    expect(codeOf(() => parseKeyChain(did, good))).to.equal(null);
    expect(new KeyChainError('x').code).to.equal('KEY_CHAIN_INVALID');
  });

  it('a forged rotation that the pinned key never countersigned is refused with a typed error and writes nothing', async () => {
    const peer = await InstanceKey.loadOrCreate(dir);
    const did = peer.did;
    // A verifier pinned the peer's own key. An attacker (without it) builds a self-consistent chain from a key it made:
    // it can only start the chain at the DID by forging the DID key's countersignature.
    const attacker = InstanceKey.fromSeed(randomBytes(32));
    const forgedLink = { key: did, succeeded_by: attacker.did, rotated_at: T0, expired_ts: T0 + HOUR, countersignature: signCanonical(attacker, { object: 'federation_key_rotation' }) };
    const forged = { current: attacker.did, previous: [forgedLink] };
    // Signed the attacker's manifest as if it were the peer's, listing the forged chain.
    const impostor = signManifest({ did, keyDid: attacker.did, sign: (m) => attacker.sign(m) }, buildFederationManifest({ did, keys: forged, version: '1', federationProtocolVersion: '0.14', baseUrl: null, kinds: [], namespaces: [] }), { now: T0, ttlMs: 7 * 24 * HOUR });

    // The genuine rotation moves on from the pin; the verifier follows it (one record), but after that a fork
    // from the older key is refused too, even one correctly countersigned by it.
    const writes: Array<{ did: string; chain: KeyChain }> = [];
    const table: PeerKeyTable = new Map();
    let served: unknown = impostor;
    let now = T0 + 1000;
    const keys = new PeerKeys({
      pins: () => table,
      pin: async (peerDid, chain) => {
        writes.push({ did: peerDid, chain });
        applyPeerKeyRecord(table, { body: { kind: PEER_KEY_KIND, peer_did: peerDid, keys: JSON.parse(JSON.stringify(chain)) } } as unknown as LoomRecord);
      },
      urlFor: () => 'http://peer.invalid',
      strictManifests: () => true,
      now: () => now,
      fetchJson: async () => ({ status: 200, body: { federation_manifest: served } }),
    });
    const body = { n: 1 };
    const byAttacker = signCanonical(attacker, body);
    const forgedVerdict = await keys.verify(did, (k) => verifyCanonical(k, body, byAttacker));
    expect(forgedVerdict).to.include({ ok: false, code: 'KEY_CHAIN_INVALID' });
    expect(writes, 'a refused rotation writes nothing').to.deep.equal([]);
    expect(keys.pinned(did)).to.equal(did);

    // The genuine rotation: followed through one refetch, pinned with one write.
    const genuine = await peer.rotate(T0, HOUR);
    served = manifestOf(peer, now);
    now += 2000; // past the refetch reuse window
    const byNew = signCanonical(peer, body);
    const followed = await keys.verify(did, (k) => verifyCanonical(k, body, byNew));
    expect(followed).to.deep.equal({ ok: true, key: genuine.key });
    expect(writes).to.have.length(1);
    expect(keys.pinned(did)).to.equal(genuine.key);

    // A fork from the DID's key (countersigned by it, say after it leaked) no longer descends from the pin.
    const leakedOld = InstanceKey.fromSeed(Buffer.alloc(32, 7));
    const fork = signManifest({ did, keyDid: leakedOld.did, sign: (m) => leakedOld.sign(m) }, buildFederationManifest({ did, keys: { current: leakedOld.did, previous: [] }, version: '1', federationProtocolVersion: '0.14', baseUrl: null, kinds: [], namespaces: [] }), { now, ttlMs: HOUR });
    const forkVerdict = verifyManifest(fork, { now, strict: true, expectedDid: did, pinned: keys.pinned(did) });
    expect(forkVerdict.ok).to.equal(false);
    served = fork;
    now += 2000;
    const byLeaked = signCanonical(leakedOld, body);
    expect(await keys.verify(did, (k) => verifyCanonical(k, body, byLeaked))).to.include({ ok: false });
    expect(writes).to.have.length(1);
    expect(descendsFrom(keys.chain(did), did)).to.equal(true);
  });

  it('old-key signatures count during the overlap and are refused with KEY_EXPIRED once expired_ts passes', async () => {
    const peer = await InstanceKey.loadOrCreate(dir);
    const did = peer.did;
    const body = { n: 2 };
    const byOld = signCanonical(peer, body);
    await peer.rotate(T0, HOUR);
    let now = T0 + 1000;
    const table: PeerKeyTable = new Map([[did, peer.chain()]]);
    let fetches = 0;
    const keys = new PeerKeys({ pins: () => table, pin: async () => {}, urlFor: () => 'http://peer.invalid', strictManifests: () => true, now: () => now, fetchJson: async () => (fetches++, { status: 200, body: { federation_manifest: manifestOf(peer, now) } }) });
    expect(await keys.verify(did, (k) => verifyCanonical(k, body, byOld))).to.deep.equal({ ok: true, key: did });
    now = T0 + HOUR;
    expect(await keys.verify(did, (k) => verifyCanonical(k, body, byOld))).to.include({ ok: false, code: 'KEY_EXPIRED' });
    expect(fetches, 'an expired key is refused without a refetch').to.equal(0);
  });

  it('the pin fold only moves forward along the chain', async () => {
    const peer = await InstanceKey.loadOrCreate(dir);
    const did = peer.did;
    await peer.rotate(T0, HOUR);
    const one = JSON.parse(JSON.stringify(peer.chain()));
    await peer.rotate(T0 + 1, HOUR);
    const two = JSON.parse(JSON.stringify(peer.chain()));
    const table: PeerKeyTable = new Map();
    const record = (keys: unknown) => ({ body: { kind: PEER_KEY_KIND, peer_did: did, keys } }) as unknown as LoomRecord;
    applyPeerKeyRecord(table, record(two));
    applyPeerKeyRecord(table, record(one));
    expect(table.get(did)!.current).to.equal(two.current);
    applyPeerKeyRecord(table, record({ ...two, current: InstanceKey.fromSeed(randomBytes(32)).did }));
    expect(table.get(did)!.current).to.equal(two.current);
  });

  it('rotation is refused (KEY_ROTATION_UNAVAILABLE) on a shared log and for a key kept in no directory, and changes nothing', async () => {
    const key = await InstanceKey.loadOrCreate(dir);
    const records: unknown[] = [];
    const shared = new KeyRotation({ key, sharedLog: true, overlapMs: HOUR, now: () => T0, record: async (body) => void records.push(body) });
    expect(shared.view().rotatable).to.equal(false);
    const refused = await shared.rotate({}, 'did:sync:user:op').then(() => null, (error: { code?: string }) => error.code);
    expect(refused).to.equal('KEY_ROTATION_UNAVAILABLE');
    expect(key.keyDid).to.equal(key.did);
    const memory = new KeyRotation({ key: InstanceKey.fromSeed(randomBytes(32)), sharedLog: false, overlapMs: HOUR, now: () => T0, record: async (body) => void records.push(body) });
    expect(await memory.rotate({}, 'did:sync:user:op').then(() => null, (error: { code?: string }) => error.code)).to.equal('KEY_ROTATION_UNAVAILABLE');
    expect(records).to.deep.equal([]);
    // Where it can rotate, the rotation is recorded after the keyring is durable.
    const local = new KeyRotation({ key, sharedLog: false, overlapMs: HOUR, now: () => T0, record: async (body) => void records.push(body) });
    const view = await local.rotate({ overlap_seconds: 60 }, 'did:sync:user:op');
    expect(view).to.include({ rotated_from: key.did, key: key.keyDid });
    expect(view.previous[0]).to.include({ expired_ts: T0 + 60_000, state: 'overlap' });
    expect(records).to.have.length(1);
    expect(records[0]).to.include({ kind: 'federation.key_rotation.v1', did: key.did, key: key.keyDid, by: 'did:sync:user:op' });
  });
});
