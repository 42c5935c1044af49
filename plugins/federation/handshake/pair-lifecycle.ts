/**
 * The operator's verbs on a federation pair after the handshake (spec §3,
 * §4.13 "operator lifecycle operations"): pause and resume, the mode and poll
 * interval, refresh (the peer's manifest fetched and verified again, a change
 * recorded as `peer_manifest_changed`, then a pull now) and re-sending the
 * revoke notice. Every change is a `pair.lifecycle.v1` record written
 * before the sync pair is told, so the log says what the pair should be
 * whichever server runs it. The view joins the record state with the sync
 * pair's live status (last error, next retry).
 */
import { SYSTEM } from '../../../core/access/caller.js';
import { LoomError } from '../../../core/errors/loom-error.js';
import { canonicalJson } from '../../../core/records/canonical-json.js';
import type { JsonObject } from '../../../core/records/json.js';
import { verifyManifest } from '../manifest.js';
import type { PairMode } from '../pair-records.js';
import { federationPairView, type FederationPair, type FederationPairView, type PairLiveStatus } from './federation-pair-records.js';
import type { HandshakeDeps } from './handshake-deps.js';
import type { PairInitiator } from './pair-initiator.js';
import { LIFECYCLE_KIND } from './pair-lifecycle-records.js';
import type { PairRevoker } from './pair-revoker.js';
import { exchange } from './peer-exchange.js';

export interface PairSettingsChange {
  readonly mode?: PairMode;
  readonly poll_interval_ms?: number;
}

const withoutSignature = (manifest: Record<string, unknown>) => canonicalJson(Object.fromEntries(Object.entries(manifest).filter(([key]) => key !== 'signature')) as JsonObject);

function requireNotRevoked(pair: FederationPair): void {
  if (pair.state === 'revoked') throw new LoomError('PAIR_REVOKED', `federation pair ${pair.pair_id} is revoked`);
}

export class PairLifecycle {
  constructor(
    private readonly deps: HandshakeDeps,
    private readonly initiator: PairInitiator,
    private readonly revoker: PairRevoker,
  ) {}

  /** The pair's sync pair as its runner reports it (null before active and after revoked). */
  async live(pair: FederationPair): Promise<PairLiveStatus | null> {
    if (pair.state === 'establishing' || pair.state === 'revoked') return null;
    return this.deps.sync.find(pair.sync_pair_id);
  }

  async view(pair: FederationPair): Promise<FederationPairView> {
    return federationPairView(pair, await this.live(pair));
  }

  pause(pairId: string, by: string): Promise<FederationPair> {
    const { log, sync, feeds } = this.deps;
    return log.exclusive(async () => {
      const pair = log.get(pairId);
      requireNotRevoked(pair);
      if (pair.state === 'establishing') throw new LoomError('PAIR_STATE_CONFLICT', `federation pair ${pairId} is not active yet: revoke it instead`);
      if (pair.state === 'paused') return pair;
      await log.write({ kind: LIFECYCLE_KIND, step: 'paused', pair_id: pairId, by });
      if (await sync.find(pair.sync_pair_id)) await sync.pause(SYSTEM, pair.sync_pair_id);
      // Feeds the peer holds open were authorised before the pause.
      for (const issued of [pair.issued, pair.previous_issued]) if (issued) feeds.cut(issued.service_account_id);
      return log.get(pairId);
    });
  }

  resume(pairId: string, by: string): Promise<FederationPair> {
    const { log, sync } = this.deps;
    return log.exclusive(async () => {
      const pair = log.get(pairId);
      requireNotRevoked(pair);
      if (pair.state !== 'paused') return pair;
      await log.write({ kind: LIFECYCLE_KIND, step: 'resumed', pair_id: pairId, by });
      if (await sync.find(pair.sync_pair_id)) await sync.resume(SYSTEM, pair.sync_pair_id);
      return log.get(pairId);
    });
  }

  configure(pairId: string, change: PairSettingsChange, by: string): Promise<FederationPair> {
    const { log, sync } = this.deps;
    return log.exclusive(async () => {
      const pair = log.get(pairId);
      requireNotRevoked(pair);
      const mode = change.mode ?? pair.mode;
      const interval = change.poll_interval_ms ?? pair.poll_interval_ms;
      if (mode === pair.mode && interval === pair.poll_interval_ms) return pair;
      await log.write({ kind: LIFECYCLE_KIND, step: 'settings', pair_id: pairId, mode, ...(interval !== null ? { poll_interval_ms: interval } : {}), by });
      if (await sync.find(pair.sync_pair_id)) await sync.update(SYSTEM, pair.sync_pair_id, { mode, ...(interval !== null ? { poll_interval_ms: interval } : {}) });
      return log.get(pairId);
    });
  }

  /**
   * Fetches and verifies the peer's manifest against the pinned DID, records
   * `peer_manifest_changed` when it differs from the snapshot (the signature
   * block aside: it changes at every re-signing), then has the pair pull now
   * (its runner verifies the manifest again first). An establishing pair
   * this side initiated is polled instead.
   */
  async refresh(pairId: string): Promise<{ pair: FederationPair; manifest_changed: boolean }> {
    const { log, now, options, sync } = this.deps;
    const pair = log.get(pairId);
    requireNotRevoked(pair);
    if (pair.state === 'establishing') {
      if (pair.role !== 'initiator') throw new LoomError('PAIR_STATE_CONFLICT', `federation pair ${pairId} waits for approval here: loom federation approve ${pairId}`);
      return { pair: await this.initiator.refresh(pairId), manifest_changed: false };
    }
    const discovery = await exchange(`${pair.peer_url}/.well-known/service`, { headers: { accept: 'application/json' } });
    if (discovery.status !== 200) throw new LoomError('PAIR_HANDSHAKE_FAILED', `GET /.well-known/service on the peer answered ${discovery.status}`);
    const peerKeys = this.deps.peerKeys;
    const verdict = verifyManifest((discovery.body as { federation_manifest?: unknown } | null)?.federation_manifest, { now: now(), strict: options.strictManifests, expectedDid: pair.peer_did, ...(peerKeys ? { pinned: peerKeys.pinned(pair.peer_did) } : {}) });
    if (!verdict.ok) throw new LoomError('PAIR_HANDSHAKE_FAILED', `the peer's manifest does not verify against ${pair.peer_did}: ${verdict.message}`);
    // A rotation countersigned by the pinned key: pin the peer's key in force.
    await peerKeys?.follow(pair.peer_did, verdict.keys);
    const manifest = verdict.manifest as Record<string, unknown>;
    const changed = withoutSignature(manifest) !== withoutSignature(pair.peer_manifest);
    if (changed) {
      await log.exclusive(async () => {
        if (log.get(pairId).state === 'revoked') return;
        await log.write({ kind: LIFECYCLE_KIND, step: 'peer_manifest_changed', pair_id: pairId, manifest: manifest as JsonObject });
      });
    }
    if (log.get(pairId).state !== 'paused' && (await sync.find(pair.sync_pair_id))) await sync.kick(SYSTEM, pair.sync_pair_id);
    return { pair: log.get(pairId), manifest_changed: changed };
  }

  /** Sends the signed revoke notice again (the peer missed it); only for a revoked pair. */
  async notifyRevoke(pairId: string): Promise<{ pair: FederationPair; peer_notified: boolean }> {
    const pair = this.deps.log.get(pairId);
    if (pair.state !== 'revoked') throw new LoomError('PAIR_STATE_CONFLICT', `federation pair ${pairId} is ${pair.state}, not revoked: loom federation revoke ${pairId}`);
    return { pair, peer_notified: await this.revoker.notify(pair, pair.revoked_reason ?? 'revoked') };
  }
}
