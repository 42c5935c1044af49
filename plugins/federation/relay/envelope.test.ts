import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { computeRecordId } from '../../../core/records/record-id.js';
import type { LoomRecord } from '../../../core/records/record.js';
import { rec } from '../../../test/helpers/test-engine.js';
import { InstanceKey } from '../instance-key.js';
import { signPage, type SyncEntry } from '../sync-page.js';
import { envelopeProblem, sealEnvelope } from './envelope.js';
import { mailboxProofHeaders, verifyMailboxProof } from './mailbox-proof.js';
import { MailboxStore } from './mailbox-store.js';

const sender = InstanceKey.fromSeed(new Uint8Array(32).fill(1));
const receiver = InstanceKey.fromSeed(new Uint8Array(32).fill(2));

function page(n: number) {
  const records: SyncEntry[] = Array.from({ length: n }, (_, i) => {
    const fields = { parents: [], ...rec({ clock: i, body: { n: i } }), judged_by: null };
    const record = { ...fields, id: computeRecordId(fields as never) } as LoomRecord;
    return { id: record.id, record, hash_level: 'L0', committed_at: '2026-11-27T00:00:00.000Z' };
  });
  return signPage(sender, { request: { since: 'djEuMA', target_namespace: 'default', thread: null }, records, next_cursor: 'djEuMTA', has_more: false });
}

describe('relay envelopes', () => {
  it('have a deterministic id (the hash of their signed content) and verify against the sender', () => {
    const a = sealEnvelope(sender, receiver.did, page(3));
    const b = sealEnvelope(sender, receiver.did, page(3));
    expect(a.id).to.equal(b.id);
    expect(a.id).to.match(/^menv_[0-9a-f]{64}$/);
    expect(sealEnvelope(sender, sender.did, page(3)).id).to.not.equal(a.id);
    expect(envelopeProblem(JSON.parse(JSON.stringify(a)), sender.did)).to.equal(null);
    // Source positions, never a relay's: the request and the source cursor travel signed.
    expect(a.request.since).to.equal('djEuMA');
    expect(a.next_cursor).to.equal('djEuMTA');
  });

  it('any altered byte of a record, of a position or of the addressing is detected, with a typed code', () => {
    const sealed = sealEnvelope(sender, receiver.did, page(3));
    const text = JSON.stringify(sealed);
    const at = text.indexOf('"n":1') + 4;
    const alteredRecord = JSON.parse(text.slice(0, at) + '7' + text.slice(at + 1));
    expect(envelopeProblem(alteredRecord, sender.did)?.code).to.equal('TAMPERED');
    expect(envelopeProblem({ ...sealed, next_cursor: 'djEuOTk' }, sender.did)?.code).to.equal('ENVELOPE_ID_MISMATCH');
    expect(envelopeProblem({ ...sealed, receiver: sender.did }, sender.did)?.code).to.equal('ENVELOPE_ID_MISMATCH');
    expect(envelopeProblem(sealed, receiver.did)?.code).to.equal('SIGNATURE_INVALID');
    // Re-sealed under another key with the sender's name: the id matches, the signature does not.
    const forger = InstanceKey.fromSeed(randomBytes(32));
    const forged = { ...sealEnvelope(forger, receiver.did, page(3)) };
    expect(envelopeProblem({ ...forged, sender: sender.did }, sender.did)?.code).to.be.oneOf(['ENVELOPE_ID_MISMATCH', 'SIGNATURE_INVALID']);
    expect(envelopeProblem({ ...sealed, extra: 1 }, sender.did)?.code).to.equal('ENVELOPE_MALFORMED');
    expect(envelopeProblem(null, sender.did)?.code).to.equal('ENVELOPE_MALFORMED');
  });

  it('mailbox proofs bind the DID, method, path, body and time', () => {
    const now = Date.parse('2026-11-27T00:00:00Z');
    const path = `/v1/mailbox/${receiver.did}/ack`;
    const headers = mailboxProofHeaders(receiver, 'POST', path, { ids: ['x'] }, now);
    expect(verifyMailboxProof(headers, 'POST', path, { ids: ['x'] }, now)).to.deep.equal({ ok: true, did: receiver.did });
    expect(verifyMailboxProof(headers, 'POST', path, { ids: ['y'] }, now).ok).to.equal(false);
    expect(verifyMailboxProof(headers, 'GET', path, { ids: ['x'] }, now).ok).to.equal(false);
    expect(verifyMailboxProof(headers, 'POST', `/v1/mailbox/${sender.did}/ack`, { ids: ['x'] }, now).ok).to.equal(false);
    expect(verifyMailboxProof(headers, 'POST', path, { ids: ['x'] }, now + 61_000).ok).to.equal(false);
    expect(verifyMailboxProof({}, 'POST', path, { ids: ['x'] }, now).ok).to.equal(false);
  });
});

describe('MailboxStore', () => {
  let dir: string;
  let now = 1_000_000;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'mailbox-'));
    now = 1_000_000;
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));
  const limits = { maxEnvelopes: 2, ttlMs: 10_000 };
  const id = (n: number) => `menv_${String(n).padStart(64, '0')}`;

  it('keeps deposit order across a restart, caps each receiver, expires after the TTL, and acks idempotently', async () => {
    const store = new MailboxStore(dir, () => now);
    await store.load();
    await store.deposit('did:key:zA', id(2), '{"a":2}', limits);
    now += 1;
    await store.deposit('did:key:zA', id(1), '{"a":1}', limits);
    expect((await store.deposit('did:key:zA', id(1), '{"a":1}', limits)).duplicate).to.equal(true);
    let error: unknown;
    await store.deposit('did:key:zA', id(3), '{}', limits).catch((e: unknown) => (error = e));
    expect((error as { code?: string }).code).to.equal('MAILBOX_FULL');
    expect((await store.deposit('did:key:zB', id(3), '{}', limits)).queued).to.equal(1);

    const reopened = new MailboxStore(dir, () => now);
    await reopened.load();
    const listed = await reopened.list('did:key:zA', 10, limits);
    expect(listed.envelopes.map((e) => [e.id, e.text])).to.deep.equal([[id(2), '{"a":2}'], [id(1), '{"a":1}']]);
    expect(await reopened.ack('did:key:zA', [id(2), id(2), id(9)])).to.equal(1);
    expect(await reopened.ack('did:key:zA', [id(2)])).to.equal(0);
    now += 10_000;
    expect((await reopened.list('did:key:zA', 10, limits)).envelopes).to.deep.equal([]);
    expect(await readdir(dir)).to.deep.equal([encodeURIComponent('did:key:zB')]);
  });

  it('after a key rotation: envelopes and mailbox proofs carry the chain and verify against the key in force; a forged chain is refused', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'loom-relay-rotated-'));
    try {
      const rotated = await InstanceKey.loadOrCreate(dir);
      const did = rotated.did;
      await rotated.rotate(Date.now(), 3_600_000);
      const envelope = JSON.parse(JSON.stringify(sealEnvelope(rotated, receiver.did, page(2))));
      expect(envelope.sender_keys.current).to.equal(rotated.keyDid).and.not.equal(did);
      // The relay, which never met the sender; the receiver, pinned to the DID's own key.
      expect(envelopeProblem(envelope, did)).to.equal(null);
      // Without the chain the new key's signature does not count for the DID.
      const { sender_keys: _chain, ...bare } = envelope;
      expect(envelopeProblem(bare, did)?.code).to.equal('SIGNATURE_INVALID');
      // A chain by another key (a "rotation" the DID's key never countersigned) is refused.
      const stranger = await InstanceKey.loadOrCreate(await mkdtemp(join(tmpdir(), 'loom-relay-stranger-')));
      await stranger.rotate(Date.now(), 3_600_000);
      expect(envelopeProblem({ ...envelope, sender_keys: stranger.chain() }, did)?.code).to.equal('SIGNATURE_INVALID');

      const path = `/v1/mailbox/${encodeURIComponent(did)}/receive`;
      const headers = mailboxProofHeaders(rotated, 'GET', path, undefined, Date.now());
      expect(verifyMailboxProof(headers, 'GET', path, undefined, Date.now())).to.deep.equal({ ok: true, did });
      const { 'x-loom-mailbox-keys': _keys, ...withoutChain } = headers;
      expect(verifyMailboxProof(withoutChain, 'GET', path, undefined, Date.now()).ok).to.equal(false);
      expect(verifyMailboxProof({ ...headers, 'x-loom-mailbox-keys': Buffer.from(JSON.stringify(stranger.chain())).toString('base64url') }, 'GET', path, undefined, Date.now()).ok).to.equal(false);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
