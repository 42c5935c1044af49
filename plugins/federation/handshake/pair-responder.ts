/**
 * The responder's side of the handshake (spec §4.13 `POST /v1/federation/pair`,
 * no bearer: the signatures are the authentication, §5.1 rule 7, §5.7).
 * A request is read in this order and refused at the first failure, writing
 * nothing: the exact body shape; that it is addressed to this instance; the
 * initiator's manifest (signature against its own DID, expiry, that DID is
 * the body's `initiator_did`); the body's signature by that DID; the nonce
 * (single use, 410); the signed `created` (±60 s); the consent policy. Then,
 * recorded step by step: `requested`, and with an `open` posture at once
 * `approved` (tokens minted) and `active` (the sync pair pulling the
 * initiator exists), answered 200 with this side's token; with
 * `pair-then-ask` the pair stays `establishing` (202) until an operator
 * approves, and the initiator's next signed poll collects the token.
 */
import { SYSTEM } from '../../../core/access/caller.js';
import { LoomError } from '../../../core/errors/loom-error.js';
import type { JsonObject } from '../../../core/records/json.js';
import { FEDERATION_PROTOCOL_VERSION } from '../config.js';
import { acceptableKeys } from '../keys/key-chain.js';
import { verifyManifest } from '../manifest.js';
import { HANDSHAKE_KIND, type FederationPair } from './federation-pair-records.js';
import { pairIdOf, readPairPoll, readPairRequest, readRevokeNotice, requireFresh, requirePeerSignature, requireSignature, signBody, syncPairIdOf, type PairAnswerBody } from './handshake-bodies.js';
import { PAIR_TOKEN_TTL_MS, type HandshakeDeps } from './handshake-deps.js';
import type { PairRevoker } from './pair-revoker.js';

export type Answer = { status: 200 | 202; body: PairAnswerBody };

const answerState = (pair: FederationPair): 'active' | 'establishing' | 'revoked' => (pair.state === 'establishing' || pair.state === 'revoked' ? pair.state : 'active');

export class PairResponder {
  constructor(
    private readonly deps: HandshakeDeps,
    private readonly revoker: PairRevoker,
  ) {}

  private answer(pair: FederationPair, nonce: string, token: { bearer: string; expires_at: string } | null): PairAnswerBody {
    // Paused and degraded are this side's business: to the initiator the pair is active.
    const state = answerState(pair);
    return signBody(this.deps.key, {
      object: 'pair_answer' as const,
      pair_id: pair.pair_id,
      state,
      initiator_did: pair.peer_did,
      responder_did: this.deps.key.did,
      nonce,
      created: new Date(this.deps.now()).toISOString(),
      token: state === 'active' && token ? token.bearer : null,
      token_expires_at: state === 'active' && token ? token.expires_at : null,
      scopes: [...pair.scopes],
    });
  }

  async request(value: unknown): Promise<Answer> {
    const { key, now, policy, nonces, log, files, sync, options } = this.deps;
    const request = readPairRequest(value);
    if (request.responder_did !== key.did) throw new LoomError('PAIR_MISDIRECTED', `this pair request is addressed to ${request.responder_did}, not to this instance (${key.did})`);
    if (request.initiator_did === key.did) throw new LoomError('PAIR_MISDIRECTED', 'an instance does not pair with itself');
    // The manifest's key chain must descend from the key pinned for this DID (its own key for a stranger);
    // the request is then signed by one of the manifest's keys in force.
    const manifest = verifyManifest(request.initiator_manifest, { now: now(), strict: options.strictManifests, expectedDid: request.initiator_did, ...(this.deps.peerKeys ? { pinned: this.deps.peerKeys.pinned(request.initiator_did) } : {}) });
    if (!manifest.ok) throw new LoomError(manifest.reason === 'key_chain_invalid' ? 'KEY_CHAIN_INVALID' : 'PAIR_SIGNATURE_INVALID', `initiator_manifest: ${manifest.message}`);
    requireSignature(request, request.initiator_did, 'pair_request', acceptableKeys(manifest.keys, now()));
    nonces.claim(request.nonce);
    requireFresh(request.created, now());
    if (request.protocol !== FEDERATION_PROTOCOL_VERSION) throw new LoomError('INVALID_SHAPE', `pair_request: protocol ${request.protocol} is not ${FEDERATION_PROTOCOL_VERSION}, the one this instance speaks`);
    if (!policy.accepts()) throw new LoomError('PAIR_REQUESTS_CLOSED', `this instance takes no pair requests (consent posture ${policy.posture()})`);
    sync.ensureRoom();
    const pairId = pairIdOf(request.initiator_did, key.did, request.nonce);
    const syncPairId = syncPairIdOf(pairId);
    return log.exclusive(async () => {
      // The initiator's token waits with the other peer tokens; it is used once the pair is active.
      await files.setSecret(syncPairId, request.token);
      await log.write({
        kind: HANDSHAKE_KIND,
        step: 'requested',
        pair_id: pairId,
        role: 'responder',
        peer_did: request.initiator_did,
        peer_url: request.initiator_url.replace(/\/+$/, ''),
        mode: request.mode,
        nonce: request.nonce,
        sync_pair_id: syncPairId,
        peer_manifest: request.initiator_manifest as JsonObject,
        held_token_expires_at: request.token_expires_at,
        issued: null,
        scopes: [],
      });
      const pair = log.get(pairId);
      if (policy.approval() === 'manual') return { status: 202 as const, body: this.answer(pair, request.nonce, null) };
      const token = await this.activate(pair, `policy:${policy.posture()}`, request.token_expires_at);
      return { status: 200 as const, body: this.answer(log.get(pairId), request.nonce, token) };
    });
  }

  /** An operator approves an establishing pair this instance responded to. */
  approve(pairId: string, by: string): Promise<FederationPair> {
    const { log } = this.deps;
    return log.exclusive(async () => {
      const pair = log.get(pairId);
      if (pair.state === 'revoked') throw new LoomError('PAIR_REVOKED', `federation pair ${pairId} is revoked`);
      if (pair.role !== 'responder') throw new LoomError('PAIR_STATE_CONFLICT', `federation pair ${pairId} was initiated here: the peer approves it`);
      if (pair.state === 'active') return pair;
      await this.activate(pair, by, null);
      return log.get(pairId);
    });
  }

  /**
   * Mints this side's token, records `approved`, keeps the token for the
   * initiator's poll, starts the sync pair pulling the initiator with its
   * token, records `active`. A failure part-way revokes the token it minted.
   */
  private async activate(pair: FederationPair, by: string, heldExpiresAt: string | null): Promise<{ bearer: string; expires_at: string }> {
    const { credentials, policy, log, files, sync, now } = this.deps;
    const issuer = credentials();
    if (!issuer) throw new LoomError('PAIR_REQUESTS_CLOSED', 'this instance has no auth plugin to mint a peer token with');
    const scopes = policy.scopes();
    await files.refresh(pair.sync_pair_id);
    const held = files.secret(pair.sync_pair_id);
    if (!held) throw new LoomError('PAIR_STATE_CONFLICT', `federation pair ${pair.pair_id}: the initiator's token is not held here any more; revoke the pair and pair again`);
    const issued = await issuer.issue({ label: `federation pair ${pair.pair_id}`, peerDid: pair.peer_did, scopes, namespace: 'default', ttlMs: PAIR_TOKEN_TTL_MS, now: now() });
    try {
      await log.write({ kind: HANDSHAKE_KIND, step: 'approved', pair_id: pair.pair_id, by, scopes, issued: { service_account_id: issued.service_account_id, token_id: issued.token_id, expires_at: issued.expires_at } });
      await files.setSecret(pair.pair_id, `${issued.expires_at} ${issued.bearer}`);
      sync.ensureRoom();
      await sync.create(SYSTEM, { pair_id: pair.sync_pair_id, peer_did: pair.peer_did, peer_url: pair.peer_url, mode: pair.mode, poll_interval_ms: pair.poll_interval_ms ?? this.deps.options.pairPollIntervalMs, peer_token: held });
      await log.write({ kind: HANDSHAKE_KIND, step: 'active', pair_id: pair.pair_id, held_token_expires_at: heldExpiresAt ?? pair.held_token_expires_at });
    } catch (error) {
      await issuer.revoke(issued.service_account_id, `federation pair ${pair.pair_id}: activation failed`);
      await files.setSecret(pair.pair_id, null);
      await sync.removeIfPresent(SYSTEM, pair.sync_pair_id);
      throw error;
    }
    return { bearer: issued.bearer, expires_at: issued.expires_at };
  }

  /** The initiator's refresh: a signed poll, answered with the pair's state (and, once active, this side's token). */
  async poll(pairId: string, value: unknown): Promise<PairAnswerBody> {
    const { key, log, nonces, now, files } = this.deps;
    const poll = readPairPoll(value);
    if (poll.pair_id !== pairId) throw new LoomError('INVALID_SHAPE', 'pair_poll: pair_id is not the one in the path');
    if (poll.responder_did !== key.did) throw new LoomError('PAIR_MISDIRECTED', `this poll is addressed to ${poll.responder_did}, not to this instance`);
    const pair = log.find(pairId);
    // Only the pinned initiator may learn anything of the pair, even whether it exists.
    if (!pair || pair.role !== 'responder' || poll.initiator_did !== pair.peer_did) throw new LoomError('PAIR_SIGNATURE_INVALID', 'pair_poll: no pair of this initiator here');
    await requirePeerSignature(this.deps.peerKeys, poll, pair.peer_did, 'pair_poll', pair.peer_url);
    nonces.claim(poll.nonce);
    requireFresh(poll.created, now());
    let token: { bearer: string; expires_at: string } | null = null;
    if (answerState(pair) === 'active') {
      await files.refresh(pairId);
      const kept = files.secret(pairId);
      if (kept) {
        const space = kept.indexOf(' ');
        token = { expires_at: kept.slice(0, space), bearer: kept.slice(space + 1) };
      }
    }
    return this.answer(pair, poll.nonce, token);
  }

  /** The peer's signed revoke notice: this side marks the pair revoked too (and tells nobody back). */
  async noticeRevoked(pairId: string, value: unknown): Promise<{ object: 'pair_revoke_ack'; pair_id: string; state: 'revoked' }> {
    const { key, log, nonces, now } = this.deps;
    const notice = readRevokeNotice(value);
    if (notice.pair_id !== pairId) throw new LoomError('INVALID_SHAPE', 'pair_revoke_notice: pair_id is not the one in the path');
    if (notice.to_did !== key.did) throw new LoomError('PAIR_MISDIRECTED', `this notice is addressed to ${notice.to_did}, not to this instance`);
    const pair = log.find(pairId);
    if (!pair || notice.from_did !== pair.peer_did) throw new LoomError('PAIR_SIGNATURE_INVALID', 'pair_revoke_notice: no pair with this peer here');
    await requirePeerSignature(this.deps.peerKeys, notice, pair.peer_did, 'pair_revoke_notice', pair.peer_url);
    nonces.claim(notice.nonce);
    requireFresh(notice.created, now());
    await this.revoker.revoke(pairId, { side: 'peer', reason: notice.reason, by: pair.peer_did, notify: false });
    return { object: 'pair_revoke_ack', pair_id: pairId, state: 'revoked' };
  }
}
