/**
 * Revoking a federation pair, on either side (spec §3: any non-terminal
 * state → `revoked`, terminal). In this order, so that a revocation cut short
 * leaves nothing usable: the tokens this side issued through the pair die
 * (one auth record revokes the account and every token under it), the feeds
 * the peer holds open are cut, `pair.revoke.v1` is written, the sync pair
 * pulling the peer is removed (its runner stops before this returns) and the
 * peer's token is forgotten. Then, for a revocation decided here, the peer
 * is told best-effort with a signed notice it verifies against this
 * instance's DID (POST /v1/federation/pair/{id}/revoke); offline, it keeps
 * a dead token until it tries it.
 */
import { SYSTEM } from '../../../core/access/caller.js';
import type { JsonObject } from '../../../core/records/json.js';
import { REVOKE_KIND, type FederationPair } from './federation-pair-records.js';
import { newNonce, signBody } from './handshake-bodies.js';
import type { HandshakeDeps } from './handshake-deps.js';
import { untilAborted } from '../until-aborted.js';

export interface RevokeOutcome {
  readonly pair: FederationPair;
  /** The peer acknowledged the notice (null: no notice was due). */
  readonly peer_notified: boolean | null;
}

const NOTICE_TIMEOUT_MS = 3_000;

export class PairRevoker {
  constructor(private readonly deps: Pick<HandshakeDeps, 'log' | 'sync' | 'files' | 'credentials' | 'feeds' | 'key' | 'logger' | 'now'>) {}

  /** Revokes (idempotent on a revoked pair); `side` says who decided. */
  async revoke(pairId: string, input: { side: 'local' | 'peer'; reason: string; by: string; notify: boolean }): Promise<RevokeOutcome> {
    const { log } = this.deps;
    const revokedNow = await log.exclusive(async () => {
      const pair = log.get(pairId);
      if (pair.state === 'revoked') return false;
      await this.kill(pair, input);
      return true;
    });
    const pair = log.get(pairId);
    if (!revokedNow || !input.notify || input.side !== 'local') return { pair, peer_notified: null };
    return { pair, peer_notified: await this.notify(pair, input.reason) };
  }

  /** The revocation itself, inside the pair log's exclusive section. */
  async kill(pair: FederationPair, input: { side: 'local' | 'peer'; reason: string; by: string }): Promise<void> {
    const { credentials, feeds, log, sync, files } = this.deps;
    const accounts: string[] = [];
    // A renewed token's predecessor may still be alive (the peer had not used the new one yet).
    for (const issued of [pair.issued, pair.previous_issued]) {
      if (!issued) continue;
      const issuer = credentials();
      if (issuer) await issuer.revoke(issued.service_account_id, `federation pair ${pair.pair_id} revoked (${input.side})`);
      feeds.cut(issued.service_account_id);
      accounts.push(issued.service_account_id);
    }
    await log.write({ kind: REVOKE_KIND, pair_id: pair.pair_id, peer_did: pair.peer_did, side: input.side, reason: input.reason.slice(0, 512), by: input.by, tokens_revoked: accounts } as JsonObject);
    await sync.removeIfPresent(SYSTEM, pair.sync_pair_id);
    await files.setSecret(pair.sync_pair_id, null);
    await files.setSecret(pair.pair_id, null);
  }

  /** Sends the signed revoke notice (again, for `notify-revoke`); true when the peer acknowledged it. */
  async notify(pair: FederationPair, reason: string): Promise<boolean> {
    const body = signBody(this.deps.key, {
      object: 'pair_revoke_notice' as const,
      pair_id: pair.pair_id,
      from_did: this.deps.key.did,
      to_did: pair.peer_did,
      nonce: newNonce(),
      created: new Date(this.deps.now()).toISOString(),
      reason: reason.slice(0, 512) || 'revoked',
    });
    try {
      const signal = AbortSignal.timeout(NOTICE_TIMEOUT_MS);
      const answer = await untilAborted(fetch(`${pair.peer_url}/v1/federation/pair/${pair.pair_id}/revoke`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json' }, body: JSON.stringify(body), signal }), signal);
      await untilAborted(answer.arrayBuffer(), signal);
      if (!answer.ok) this.deps.logger.log('warn', 'federation pair: the peer refused the revoke notice', { pair_id: pair.pair_id, status: answer.status });
      return answer.ok;
    } catch (error) {
      this.deps.logger.log('warn', 'federation pair: the peer could not be told of the revocation', { pair_id: pair.pair_id, error: String((error as Error)?.name ?? error) });
      return false;
    }
  }
}
