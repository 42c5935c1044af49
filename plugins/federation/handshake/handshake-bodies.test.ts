import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { LoomError } from '../../../core/errors/loom-error.js';
import { InstanceKey } from '../instance-key.js';
import { CLOCK_WINDOW_MS, newNonce, pairIdOf, readPairPoll, requireFresh, requireSignature, signBody, syncPairIdOf } from './handshake-bodies.js';
import { NonceStore } from './nonce-store.js';

const code = (work: () => unknown): string | null => {
  try {
    work();
    return null;
  } catch (error) {
    expect(error).to.be.instanceOf(LoomError);
    return (error as LoomError).code;
  }
};

describe('handshake bodies', () => {
  const key = InstanceKey.fromSeed(randomBytes(32));
  const other = InstanceKey.fromSeed(randomBytes(32));
  const poll = () => signBody(key, { object: 'pair_poll' as const, pair_id: pairIdOf(key.did, other.did, 'n'), initiator_did: key.did, responder_did: other.did, nonce: newNonce(), created: new Date().toISOString() });

  it('reads a signed body with its exact field set and verifies it against the signer only', () => {
    const body = readPairPoll(poll());
    expect(code(() => requireSignature(body, key.did, 'poll'))).to.equal(null);
    expect(code(() => requireSignature(body, other.did, 'poll'))).to.equal('PAIR_SIGNATURE_INVALID');
    expect(code(() => requireSignature({ ...body, created: new Date(0).toISOString() } as typeof body, key.did, 'poll'))).to.equal('PAIR_SIGNATURE_INVALID');
  });

  it('refuses a missing, unknown or ill-typed field as INVALID_SHAPE', () => {
    const { nonce: _n, ...missing } = poll();
    expect(code(() => readPairPoll(missing))).to.equal('INVALID_SHAPE');
    expect(code(() => readPairPoll({ ...poll(), extra: 1 }))).to.equal('INVALID_SHAPE');
    expect(code(() => readPairPoll({ ...poll(), initiator_did: 'did:web:example.com' }))).to.equal('INVALID_SHAPE');
    expect(code(() => readPairPoll({ ...poll(), created: 'yesterday' }))).to.equal('INVALID_SHAPE');
    expect(code(() => readPairPoll([poll()]))).to.equal('INVALID_SHAPE');
  });

  it('takes a created within ±60 s and refuses one outside as PAIR_REQUEST_STALE', () => {
    const now = Date.parse('2026-05-01T12:00:00.000Z');
    expect(code(() => requireFresh(new Date(now - CLOCK_WINDOW_MS).toISOString(), now))).to.equal(null);
    expect(code(() => requireFresh(new Date(now + CLOCK_WINDOW_MS).toISOString(), now))).to.equal(null);
    expect(code(() => requireFresh(new Date(now - CLOCK_WINDOW_MS - 1).toISOString(), now))).to.equal('PAIR_REQUEST_STALE');
    expect(code(() => requireFresh(new Date(now + CLOCK_WINDOW_MS + 1).toISOString(), now))).to.equal('PAIR_REQUEST_STALE');
  });

  it('derives the same pair id on both sides, a new one per nonce, and its sync pair id', () => {
    const nonce = newNonce();
    expect(pairIdOf(key.did, other.did, nonce)).to.match(/^fed_[0-9a-f]{32}$/);
    expect(pairIdOf(key.did, other.did, nonce)).to.equal(pairIdOf(key.did, other.did, nonce));
    expect(pairIdOf(key.did, other.did, newNonce())).not.to.equal(pairIdOf(key.did, other.did, nonce));
    expect(syncPairIdOf(pairIdOf(key.did, other.did, nonce))).to.match(/^sp_[0-9a-f]{24}$/);
  });
});

describe('NonceStore', () => {
  it('takes a nonce once, refuses a recorded one, and forgets one after twice the window', () => {
    let now = 1_000_000;
    const recorded = new Set(['on-the-log']);
    const store = new NonceStore(() => recorded, () => now);
    store.claim('a');
    expect(code(() => store.claim('a'))).to.equal('PAIR_NONCE_REPLAYED');
    expect(code(() => store.claim('on-the-log'))).to.equal('PAIR_NONCE_REPLAYED');
    now += 2 * CLOCK_WINDOW_MS + 1;
    store.claim('b');
    expect(store.size).to.equal(1);
  });
});
