/**
 * The initiator's side (`loom federation pair <url>`): three round trips at
 * most. (1) GET the peer's `/.well-known/service` and verify its federation
 * manifest (signature, expiry) before trusting any field of it; it must
 * accept pair requests. (2) Mint a token for the peer, record `requested`,
 * POST the signed request to the manifest's `pair_endpoint`, and verify the
 * signed answer (the peer's DID, this request's nonce). A 200 carries the
 * peer's token: it is kept like a hand-copied `peer_token` and the sync
 * pair pulling the peer starts (`active`). A 202 leaves the pair
 * `establishing`; (3) the handshake refresher polls with a signed body until
 * the peer's operator approves. A refused or failed request revokes the
 * token minted for it, so nothing usable is left behind.
 */
import { SYSTEM } from '../../../core/access/caller.js';
import { LoomError } from '../../../core/errors/loom-error.js';
import type { JsonObject } from '../../../core/records/json.js';
import { FEDERATION_PROTOCOL_VERSION } from '../config.js';
import { descendsFrom } from '../keys/key-chain.js';
import { verifyManifest } from '../manifest.js';
import type { PairMode } from '../pair-records.js';
import { HANDSHAKE_KIND, type FederationPair } from './federation-pair-records.js';
import { newNonce, pairIdOf, readPairAnswer, requirePeerSignature, signBody, syncPairIdOf, type PairAnswerBody } from './handshake-bodies.js';
import { PAIR_TOKEN_TTL_MS, type HandshakeDeps } from './handshake-deps.js';
import { exchange } from './peer-exchange.js';
import type { PairRevoker } from './pair-revoker.js';

export interface InitiateInput {
  /** The peer's base URL. */
  readonly url: string;
  /** Where the peer reaches this instance. */
  readonly selfUrl: string;
  readonly mode: PairMode;
  /** The poll interval of mode polling; null: the instance's pairPollIntervalMs. */
  readonly pollIntervalMs?: number | null;
  /** Who asked (a DID). */
  readonly by: string;
}

const failed = (message: string) => new LoomError('PAIR_HANDSHAKE_FAILED', message);

export class PairInitiator {
  constructor(
    private readonly deps: HandshakeDeps,
    private readonly revoker: PairRevoker,
  ) {}

  async pair(input: InitiateInput): Promise<FederationPair> {
    const { key, now, options, credentials, policy, log, sync } = this.deps;
    const base = input.url.replace(/\/+$/, '');
    const discovery = await exchange(`${base}/.well-known/service`, { headers: { accept: 'application/json' } });
    if (discovery.status !== 200) throw failed(`GET /.well-known/service answered ${discovery.status}`);
    const verdict = verifyManifest((discovery.body as { federation_manifest?: unknown } | null)?.federation_manifest, { now: now(), strict: options.strictManifests });
    if (!verdict.ok) throw failed(`the peer's manifest does not verify: ${verdict.message}`);
    // A peer this instance already pinned a key for (an earlier pair) must still descend from that key.
    const pinned = this.deps.peerKeys?.pinned(verdict.did);
    if (pinned !== undefined && !descendsFrom(verdict.keys, pinned)) throw new LoomError('KEY_CHAIN_INVALID', `the peer's key in force ${verdict.keys.current} does not descend from the key pinned for ${verdict.did} (${pinned})`);
    const manifest = verdict.manifest as Record<string, any>;
    if (verdict.did === key.did) throw new LoomError('PAIR_MISDIRECTED', 'that URL serves this instance itself');
    if (manifest['consent_policy']?.['accepts_pair_requests'] !== true) throw new LoomError('PAIR_REQUESTS_CLOSED', `the peer ${verdict.did} takes no pair requests (posture ${String(manifest['consent_policy']?.['default_posture'])})`);
    const endpoint = typeof manifest['federation']?.['pair_endpoint'] === 'string' ? new URL(manifest['federation']['pair_endpoint'], `${base}/`).toString() : `${base}/v1/federation/pair`;
    const issuer = credentials();
    if (!issuer) throw new LoomError('PAIR_REQUESTS_CLOSED', 'this instance has no auth plugin to mint a token for the peer with');
    sync.ensureRoom();

    const nonce = newNonce();
    const pairId = pairIdOf(key.did, verdict.did, nonce);
    const scopes = policy.scopes();
    const issued = await issuer.issue({ label: `federation pair ${pairId}`, peerDid: verdict.did, scopes, namespace: 'default', ttlMs: PAIR_TOKEN_TTL_MS, now: now() });
    await log.write({
      kind: HANDSHAKE_KIND,
      step: 'requested',
      pair_id: pairId,
      role: 'initiator',
      peer_did: verdict.did,
      peer_url: base,
      mode: input.mode,
      ...(input.pollIntervalMs ? { poll_interval_ms: input.pollIntervalMs } : {}),
      nonce,
      sync_pair_id: syncPairIdOf(pairId),
      peer_manifest: manifest as JsonObject,
      issued: { service_account_id: issued.service_account_id, token_id: issued.token_id, expires_at: issued.expires_at },
      scopes,
      by: input.by,
    });
    const request = signBody(key, {
      object: 'pair_request' as const,
      protocol: FEDERATION_PROTOCOL_VERSION,
      initiator_did: key.did,
      initiator_url: input.selfUrl.replace(/\/+$/, ''),
      initiator_manifest: this.ownManifest(),
      responder_did: verdict.did,
      nonce,
      created: new Date(now()).toISOString(),
      mode: input.mode,
      token: issued.bearer,
      token_expires_at: issued.expires_at,
    });
    let answer: PairAnswerBody;
    try {
      const reply = await exchange(endpoint, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json' }, body: JSON.stringify(request) });
      if (reply.status !== 200 && reply.status !== 202) {
        const envelope = reply.body as { code?: unknown; message?: unknown } | null;
        throw failed(`the peer refused the pair request: ${reply.status} ${typeof envelope?.code === 'string' ? `${envelope.code}: ${String(envelope.message)}` : ''}`.trim());
      }
      answer = await this.verifyAnswer(reply.body, log.get(pairId), nonce);
      if ((reply.status === 200) !== (answer.state === 'active')) throw failed(`the peer answered ${reply.status} with state ${answer.state}`);
    } catch (error) {
      await this.revoker.revoke(pairId, { side: 'local', reason: `handshake failed: ${(error as LoomError).code ?? 'INTERNAL'}`, by: input.by, notify: false });
      throw error;
    }
    return this.settle(pairId, answer);
  }

  /** The handshake refresher's poll of an establishing pair this instance initiated. */
  async refresh(pairId: string): Promise<FederationPair> {
    const { key, now, log } = this.deps;
    const pair = log.get(pairId);
    if (pair.role !== 'initiator' || pair.state !== 'establishing') return pair;
    const nonce = newNonce();
    const poll = signBody(key, { object: 'pair_poll' as const, pair_id: pairId, initiator_did: key.did, responder_did: pair.peer_did, nonce, created: new Date(now()).toISOString() });
    const reply = await exchange(`${pair.peer_url}/v1/federation/pair/${pairId}/poll`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json' }, body: JSON.stringify(poll) });
    if (reply.status !== 200) throw failed(`the peer answered the poll with ${reply.status}`);
    return this.settle(pairId, await this.verifyAnswer(reply.body, pair, nonce));
  }

  private async verifyAnswer(value: unknown, pair: FederationPair, nonce: string): Promise<PairAnswerBody> {
    let answer: PairAnswerBody;
    try {
      answer = readPairAnswer(value);
      await requirePeerSignature(this.deps.peerKeys, answer, pair.peer_did, 'pair_answer', pair.peer_url);
    } catch (error) {
      throw failed(`the peer's answer does not verify (${(error as LoomError).code}: ${(error as Error).message})`);
    }
    if (answer.responder_did !== pair.peer_did || answer.initiator_did !== this.deps.key.did || answer.pair_id !== pair.pair_id || answer.nonce !== nonce) {
      throw failed("the peer's answer is not an answer to this request");
    }
    if (answer.state === 'active' && answer.token === null) throw failed('the peer answered active without a token');
    return answer;
  }

  /** Applies a verified answer: active → keep the token, start the sync pair, record `active`; revoked → revoke here. */
  private async settle(pairId: string, answer: PairAnswerBody): Promise<FederationPair> {
    const { log, sync } = this.deps;
    if (answer.state === 'revoked') return (await this.revoker.revoke(pairId, { side: 'peer', reason: 'the peer revoked the pair', by: log.get(pairId).peer_did, notify: false })).pair;
    if (answer.state !== 'active') return log.get(pairId);
    return log.exclusive(async () => {
      const pair = log.get(pairId);
      if (pair.state !== 'establishing') return pair;
      await sync.create(SYSTEM, { pair_id: pair.sync_pair_id, peer_did: pair.peer_did, peer_url: pair.peer_url, mode: pair.mode, poll_interval_ms: pair.poll_interval_ms ?? this.deps.options.pairPollIntervalMs, peer_token: answer.token! });
      await log.write({ kind: HANDSHAKE_KIND, step: 'active', pair_id: pairId, held_token_expires_at: answer.token_expires_at });
      return log.get(pairId);
    });
  }

  /** This instance's signed manifest, as /.well-known/service serves it. */
  private ownManifest(): Record<string, unknown> {
    return this.deps.manifest();
  }
}
