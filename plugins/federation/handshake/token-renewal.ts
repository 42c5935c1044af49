/**
 * Renewing a pair's tokens before they expire (90 days, spec §8), through a
 * signed exchange like the poll (no bearer; the pinned peer DID signs):
 * - the holder of a token (either side) POSTs a signed `pair_token_renew` to
 *   the issuer's `/v1/federation/pair/{id}/renew`;
 * - the issuer verifies it (pinned DID, single-use nonce, `created` ±60 s),
 *   mints a new token with the pair's scopes, records `token_renewed` (side
 *   `issued`, the old token kept as `previous`) and answers a signed
 *   `pair_token` bound to the request's nonce;
 * - the holder verifies the answer, keeps the new token where the old one
 *   was, records `token_renewed` (side `held`) and restarts its pull so the
 *   new token is used at once;
 * - the issuer revokes the old token the first time the peer uses the new
 *   one (peer-contact.ts). A second renewal before that revokes the unused
 *   one at once. Paused pairs renew too: their credentials stay valid.
 */
import { LoomError } from '../../../core/errors/loom-error.js';
import type { PairRunners } from '../pair-runners.js';
import type { FederationPair } from './federation-pair-records.js';
import { newNonce, readTokenRenew, readTokenRenewed, requireFresh, requirePeerSignature, signBody, type TokenRenewedBody } from './handshake-bodies.js';
import { PAIR_TOKEN_TTL_MS, type HandshakeDeps } from './handshake-deps.js';
import { LIFECYCLE_KIND } from './pair-lifecycle-records.js';
import { postSigned } from './peer-exchange.js';

const failed = (message: string) => new LoomError('PAIR_HANDSHAKE_FAILED', message);

function requireLive(pair: FederationPair): void {
  if (pair.state === 'revoked') throw new LoomError('PAIR_REVOKED', `federation pair ${pair.pair_id} is revoked`);
  if (pair.state === 'establishing') throw new LoomError('PAIR_STATE_CONFLICT', `federation pair ${pair.pair_id} is not active yet`);
}

export class TokenRenewal {
  constructor(
    private readonly deps: HandshakeDeps,
    private readonly runners: Pick<PairRunners, 'runner'>,
  ) {}

  /** The holder's side: a new token from the peer, in use before this returns. */
  async renew(pairId: string): Promise<FederationPair> {
    const { key, now, log, files } = this.deps;
    const pair = log.get(pairId);
    requireLive(pair);
    const nonce = newNonce();
    const request = signBody(key, { object: 'pair_token_renew' as const, pair_id: pairId, from_did: key.did, to_did: pair.peer_did, nonce, created: new Date(now()).toISOString() });
    const reply = await postSigned(`${pair.peer_url}/v1/federation/pair/${pairId}/renew`, request);
    if (reply.status !== 200) {
      const envelope = reply.body as { code?: unknown } | null;
      throw failed(`the peer refused the token renewal: ${reply.status}${typeof envelope?.code === 'string' ? ` ${envelope.code}` : ''}`);
    }
    let answer: TokenRenewedBody;
    try {
      answer = readTokenRenewed(reply.body);
      await requirePeerSignature(this.deps.peerKeys, answer, pair.peer_did, 'pair_token', pair.peer_url);
    } catch (error) {
      throw failed(`the peer's renewed token does not verify (${(error as LoomError).code})`);
    }
    if (answer.pair_id !== pairId || answer.from_did !== pair.peer_did || answer.to_did !== key.did || answer.nonce !== nonce) throw failed("the peer's answer is not an answer to this renewal");
    return log.exclusive(async () => {
      const current = log.get(pairId);
      if (current.state === 'revoked') return current;
      await files.setSecret(current.sync_pair_id, answer.token);
      await log.write({ kind: LIFECYCLE_KIND, step: 'token_renewed', side: 'held', pair_id: pairId, held_token_expires_at: answer.token_expires_at });
      // Cut the pull in flight (an open stream keeps the old bearer) so the next one carries the new token.
      const runner = this.runners.runner(current.sync_pair_id);
      if (runner) runner.reconfigure(runner.pair);
      return log.get(pairId);
    });
  }

  /** The issuer's side: the peer's signed renewal, answered with a new token. */
  async answer(pairId: string, value: unknown): Promise<TokenRenewedBody> {
    const { key, now, log, nonces, credentials, files } = this.deps;
    const request = readTokenRenew(value);
    if (request.pair_id !== pairId) throw new LoomError('INVALID_SHAPE', 'pair_token_renew: pair_id is not the one in the path');
    if (request.to_did !== key.did) throw new LoomError('PAIR_MISDIRECTED', `this renewal is addressed to ${request.to_did}, not to this instance`);
    const known = log.find(pairId);
    if (!known || request.from_did !== known.peer_did) throw new LoomError('PAIR_SIGNATURE_INVALID', 'pair_token_renew: no pair with this peer here');
    await requirePeerSignature(this.deps.peerKeys, request, known.peer_did, 'pair_token_renew', known.peer_url);
    nonces.claim(request.nonce);
    requireFresh(request.created, now());
    return log.exclusive(async () => {
      const pair = log.get(pairId);
      requireLive(pair);
      const issuer = credentials();
      if (!issuer) throw new LoomError('PAIR_REQUESTS_CLOSED', 'this instance has no auth plugin to mint a token with');
      const issued = await issuer.issue({ label: `federation pair ${pairId} (renewed)`, peerDid: pair.peer_did, scopes: pair.scopes, namespace: 'default', ttlMs: PAIR_TOKEN_TTL_MS, now: now() });
      const retired: string[] = [];
      try {
        if (pair.previous_issued) {
          await issuer.revoke(pair.previous_issued.service_account_id, `federation pair ${pairId}: renewed again before the peer used it`);
          retired.push(pair.previous_issued.service_account_id);
        }
        await log.write({
          kind: LIFECYCLE_KIND,
          step: 'token_renewed',
          side: 'issued',
          pair_id: pairId,
          issued: { service_account_id: issued.service_account_id, token_id: issued.token_id, expires_at: issued.expires_at },
          previous: pair.issued ? { ...pair.issued } : null,
          retired,
        });
      } catch (error) {
        await issuer.revoke(issued.service_account_id, `federation pair ${pairId}: renewal failed`);
        throw error;
      }
      // The token a responder kept for its initiator's poll is the old one: not handed out again.
      await files.setSecret(pairId, null);
      return signBody(key, { object: 'pair_token' as const, pair_id: pairId, from_did: key.did, to_did: pair.peer_did, nonce: request.nonce, created: new Date(now()).toISOString(), token: issued.bearer, token_expires_at: issued.expires_at });
    });
  }
}
