/**
 * The federation plugin (spec §1, §2.8, §4.13): this instance's Ed25519
 * identity (did:key, and did:web with a configured domain), its signed
 * federation manifest, the consent-filtered changes feed, record transfer
 * between instances, and sync pairs that pull a peer. Built on core's
 * extension points only: routes, a read policy (control threads), ingest
 * gates (consent and pair records), global folds (consent, the pair
 * registry), a singleton loop (the pair runners), `via: 'federation'`
 * writes, the plugin data directory (record origins; pair secrets and
 * cursors with a log of its own, the store's slots with a shared one),
 * discovery facts.
 * Off unless loaded (`loom serve --federation`).
 */
import { join } from 'node:path';
import type { DependencyContainer } from 'tsyringe';
import { resolve } from '../../core/di/token.js';
import { IngestorToken } from '../../core/engine/ingest.js';
import { RecordReaderToken } from '../../core/engine/record-reader.js';
import { RecordWriterToken } from '../../core/engine/record-writer.js';
import { ClockToken } from '../../core/engine/clock.js';
import { SYSTEM } from '../../core/access/caller.js';
import type { JsonObject } from '../../core/records/json.js';
import { EngineStatusToken } from '../../core/engine/engine-status.js';
import { definePlugin } from '../../core/plugin/plugin.js';
import { ServerInfo } from '../../core/server/server-info.js';
import { INSTANCE_LOCAL_THREADS, LocalRecords, LocalRecordsToken } from './local-records.js';
import { TH_CONSENT, TH_FEDERATION_PAIRS } from '../../core/records/reserved-threads.js';
import { RecordStore } from '../../storage/contract/record-store.js';
import type { AnyRouteDecl } from '../../core/plugin/route.js';
import { ChangesFeed } from './changes-feed.js';
import { FederationOptions, FEDERATION_PROTOCOL_VERSION } from './config.js';
import { consentFold } from './consent/consent-fold.js';
import { consentRecordsGate } from './consent/consent-records-gate.js';
import { controlThreadsPolicy } from './consent-visibility.js';
import { controlRecordsGate } from './control-records-gate.js';
import { didDocument, didWebFromDomain } from './did-document.js';
import { ConsentGrantsToken, DidDocumentToken, FederationOptionsToken, SyncServiceToken } from './federation-token.js';
import type { InstanceKey } from './instance-key.js';
import { buildFederationManifest, manifestNeedsResign, signManifest } from './manifest.js';
import { LevelOriginStore, MemoryOriginStore } from './origin-store.js';
import { PairFiles } from './pair-files.js';
import type { PairKeeping } from './pair-keeping.js';
import { pairRegistryFold } from './pair-registry-fold.js';
import { PairRunners } from './pair-runners.js';
import { PairSecretBox } from './pair-secret-box.js';
import { RecordReceiver } from './record-receiver.js';
import { listConsentGrants } from './routes/consent-routes.js';
import { getDidDocument } from './routes/get-did-document.js';
import { getSyncChanges } from './routes/get-sync-changes.js';
import { postSyncRecords } from './routes/post-sync-records.js';
import { SYNC_PAIR_ROUTES } from './routes/sync-pair-routes.js';
import { SharedPairKeeping } from './shared-pair-keeping.js';
import { bindValue } from '../../core/di/token.js';
import { Config } from '../../core/folds/config/config-topic.js';
import { PeerCredentialsToken, type PeerCredentials } from '../auth/index.js';
import { federationPairsFold } from './handshake/federation-pair-records.js';
import { CLOCK_WINDOW_MS } from './handshake/handshake-bodies.js';
import { PAIR_TOKEN_TTL_MS } from './handshake/handshake-deps.js';
import { HandshakeRefresher } from './handshake/handshake-refresher.js';
import { LiveFeedsToken, PairInitiatorToken, PairLifecycleToken, PairLogToken, PairResponderToken, PairRevokerToken, PeerContactToken, TokenRenewalToken } from './handshake/handshake-tokens.js';
import { PairHealth } from './handshake/pair-health.js';
import { PairLifecycle } from './handshake/pair-lifecycle.js';
import { PeerContact } from './handshake/peer-contact.js';
import { TokenRenewal } from './handshake/token-renewal.js';
import { TokenRenewer } from './handshake/token-renewer.js';
import { FEDERATION_PAIR_LIFECYCLE_ROUTES } from './routes/federation-pair-lifecycle-routes.js';
import { LiveFeeds } from './handshake/live-feeds.js';
import { NonceStore } from './handshake/nonce-store.js';
import { PairInitiator } from './handshake/pair-initiator.js';
import { PairLog } from './handshake/pair-log.js';
import { federationPairingTopic, pairPolicy } from './handshake/pair-policy.js';
import { PairResponder } from './handshake/pair-responder.js';
import { PairRevoker } from './handshake/pair-revoker.js';
import { FEDERATION_PAIR_ROUTES } from './routes/federation-pair-routes.js';
import { IntervalLoop } from '../../core/engine/interval-loop.js';
import { FEDERATION_PLUGIN, SyncService } from './sync-service.js';
// ---- key rotation (issue 35) ----
import { KeyRotation } from './keys/key-rotation.js';
import { KeyRotationToken, PeerKeysToken } from './keys/key-tokens.js';
import { PEER_KEY_KIND, peerKeysFold } from './keys/peer-key-records.js';
import { PeerKeys } from './keys/peer-keys.js';
import { FEDERATION_KEY_ROUTES } from './routes/federation-key-routes.js';
// ---- end key rotation ----
// ---- did:sync directory (issue 35) ----
import { registerDirectory } from './directory/index.js';
// ---- end did:sync directory ----
// ---- relay mailbox (issue 35) ----
import { registerRelay } from './relay/register-relay.js';
// ---- end relay mailbox ----

export { LocalRecordsToken, type LocalRecords } from './local-records.js';
export { InstanceKey } from './instance-key.js';
export { FederationOptions } from './config.js';
export { SyncServiceToken } from './federation-token.js';
export { SyncService, FEDERATION_PLUGIN } from './sync-service.js';
export { verifyManifest, signManifest, buildFederationManifest } from './manifest.js';
export { didKeyFromPublicKey, publicKeyFromDidKey } from './did-key.js';
export { signRecord, verifyRecordSig, type RecordSig } from './signing.js';
// Blueprints (plugins/members) sign and verify with the same keys and canonical JSON.
export { signCanonical, verifyCanonical } from './signing.js';
export { projectRecord, type HashLevel } from './consent/hash-levels.js';
export { pageProblem, type SyncPage, type SyncEntry } from './sync-page.js';

/** The flat sync routes; each is also served under /v1/federation/sync/* (spec §4.13). */
export const SYNC_ROUTES: readonly AnyRouteDecl[] = [getSyncChanges, postSyncRecords, ...SYNC_PAIR_ROUTES, listConsentGrants];

/** The same route under the domain-grouped prefix, with its own operation id. */
function groupedAlias(route: AnyRouteDecl): AnyRouteDecl {
  const operationId = `federation${route.operationId.charAt(0).toUpperCase()}${route.operationId.slice(1)}`;
  return { ...route, operationId, path: route.path.replace(/^\/v1\/sync\//, '/v1/federation/sync/'), summary: `${route.summary} (same as ${route.method} ${route.path})` };
}

/** Where the reference server keeps the instance key: the plugin's data directory. */
export function instanceKeyDir(dataDir: string): string {
  return join(dataDir, 'plugins', FEDERATION_PLUGIN);
}

export interface FederationHooks {
  /** This instance's key (InstanceKey.loadOrCreate(instanceKeyDir(dataDir))); its did:key must be the server's instanceDid. */
  readonly key: InstanceKey;
}

export function createFederationPlugin(hooks: FederationHooks) {
  const key = hooks.key;
  return definePlugin({
    name: FEDERATION_PLUGIN,
    tags: { federation: 'Federation: signed changes feeds, sync pairs between instances, consent and the instance manifest.' },
    version: '1.0.0',
    dependencies: ['ledger'],
    // The handshake mints and revokes peer tokens through the auth plugin; without it no pair can be made.
    optionalDependencies: ['auth'],
    options: FederationOptions,
    register(scope, options) {
      const now = resolve(scope.container, ClockToken);
      // The instance's identity and its pairings' secrets and cursors (all replaced atomically); record origins are not kept.
      scope.backupState(['instance-key', 'instance-keys.json', 'pair-secrets.json', 'pair-cursors.json']);
      // The changes feed resumes from the event id an EventSource sends back.
      scope.corsHeaders(['last-event-id']);
      const info = resolve(scope.container, ServerInfo);
      if (info.instanceDid !== key.did) {
        throw new Error(`the federation plugin's key is ${key.did} but the server's instance DID is ${info.instanceDid}: start the server with instanceDid = key.did`);
      }
      const reader = resolve(scope.container, RecordReaderToken);
      const ingestor = resolve(scope.container, IngestorToken);
      scope.systemThread(TH_CONSENT);
      scope.systemThread(TH_FEDERATION_PAIRS);
      scope.ingestGate(consentRecordsGate);
      scope.ingestGate(controlRecordsGate);
      scope.readPolicy(controlThreadsPolicy);

      // Folds, applied inline with every publish (a grant applies to the next request) and fed every server's records on a shared log.
      const consentState = scope.fold(consentFold);
      const registry = scope.fold(pairRegistryFold);
      const origins = scope.dataDir === null ? new MemoryOriginStore() : new LevelOriginStore(join(scope.dataDir, 'origins'));
      const files = pairKeeping(scope.container, scope.dataDir, key);
      // The member registry is this instance's own too: a peer's definitions would name its owners, and the
      // receiving registry gate refuses them (a served one would stop the pair). Other plugins add theirs.
      const localThreads = new LocalRecords(INSTANCE_LOCAL_THREADS);
      scope.expose(LocalRecordsToken, localThreads);
      const feed = new ChangesFeed({
        reader,
        get consent() {
          return consentState.state();
        },
        signer: key,
        localThreads,
        now,
      });
      const receiver = new RecordReceiver({ ingestor, origins, now, instanceLocal: (record) => localThreads.hasThread(record.thread) });
      // The peers' keys in force: pinned per peer DID by a fold, followed through countersigned rotations (keys/).
      const peerKeyTable = scope.fold(peerKeysFold);
      let pinWriter: (body: Record<string, unknown>) => Promise<void> = async () => {
        throw new Error('the pair log is not ready');
      };
      const peerKeys = new PeerKeys({
        pins: () => peerKeyTable.state(),
        pin: (did, chain) => pinWriter({ kind: PEER_KEY_KIND, peer_did: did, keys: chain }),
        urlFor: (did) => [...registry.state().values()].find((pair) => pair.peer_did === did)?.peer_url ?? null,
        strictManifests: () => options.strictManifests,
        now,
      });
      scope.expose(PeerKeysToken, peerKeys);
      // A federation pair's health hears its sync pair's pulls (set up with the handshake below).
      // and caps a federation pair's retry delay at its poll interval (hand-made sync pairs keep backoffMaxMs).
      let health: PairHealth | null = null;
      let federationPairOf: (syncPairId: string) => boolean = () => false;
      const runners = new PairRunners(() => registry.state(), files, {
        receiver,
        options,
        log: scope.log,
        now,
        observe: (pairId, outcome) => health?.observe(pairId, outcome),
        backoffCapMs: (entry) => (federationPairOf(entry.pair_id) ? entry.poll_interval_ms : null),
        peerKeys,
      });
      scope.loop(runners);
      const sync = new SyncService({
        writer: resolve(scope.container, RecordWriterToken),
        reader,
        files,
        registry: () => registry.state(),
        runners,
        sharedLog: resolve(scope.container, EngineStatusToken).sharedLog,
        receiver,
        origins,
        feed,
        options,
        log: scope.log,
        instanceDid: key.did,
        get consent() {
          return consentState.state();
        },
        signer: key,
        localThreads,
        now,
      });
      scope.expose(SyncServiceToken, sync);

      // The pairing handshake and the federation pairs' lifecycle (handshake/).
      scope.configTopic(federationPairingTopic);
      const pairTable = scope.fold(federationPairsFold);
      const pairLog = new PairLog(resolve(scope.container, RecordWriterToken), () => pairTable.state(), key.did, now);
      pinWriter = (body) => pairLog.write(body as JsonObject);
      let peerCredentials: PeerCredentials | null | undefined;
      const credentials = () => (peerCredentials === undefined ? (peerCredentials = scope.container.isRegistered(PeerCredentialsToken as symbol, true) ? resolve(scope.container, PeerCredentialsToken) : null) : peerCredentials);
      const feeds = new LiveFeeds();
      const handshake = {
        log: pairLog,
        sync,
        files,
        credentials,
        policy: pairPolicy(scope.container.isRegistered(Config as symbol, true) ? resolve(scope.container, Config) : null, { posture: options.pairPosture, readScopes: options.pairReadScopes }, () => credentials() !== null),
        key,
        nonces: new NonceStore(() => pairLog.nonces, now),
        feeds,
        options,
        logger: scope.log,
        now,
        peerKeys,
        manifest: (): Record<string, unknown> => {
          throw new Error('the manifest is not signed yet');
        },
      };
      const revoker = new PairRevoker(handshake);
      const responder = new PairResponder(handshake, revoker);
      const initiator = new PairInitiator(handshake, revoker);
      bindValue(scope.container, PairLogToken, pairLog);
      bindValue(scope.container, PairRevokerToken, revoker);
      bindValue(scope.container, PairResponderToken, responder);
      bindValue(scope.container, PairInitiatorToken, initiator);
      bindValue(scope.container, LiveFeedsToken, feeds);
      const renewal = new TokenRenewal(handshake, runners);
      health = new PairHealth(handshake);
      federationPairOf = (syncPairId) => pairLog.all().some((pair) => pair.sync_pair_id === syncPairId);
      bindValue(scope.container, PairLifecycleToken, new PairLifecycle(handshake, initiator, revoker));
      const peerContact = new PeerContact(handshake, runners);
      bindValue(scope.container, PeerContactToken, peerContact);
      bindValue(scope.container, TokenRenewalToken, renewal);
      // Both follow peers over the network, not the log: the kernel's interval loop, one server at a time on a shared log.
      const loopFailed = (context: string, error: unknown) => scope.log.log('error', context, { error: error instanceof Error ? error.message : String(error) });
      const refresher = new HandshakeRefresher(pairLog, initiator, revoker, { intervalMs: options.handshakePollMs, pendingTtlMs: options.pendingPairTtlMs, now }, scope.log);
      const renewer = new TokenRenewer(pairLog, renewal, { leadMs: options.tokenRenewLeadMs, now }, scope.log);
      scope.loop(new IntervalLoop('federation-handshake', options.handshakePollMs, () => refresher.tick(), loopFailed, false, true));
      scope.loop(new IntervalLoop('federation-token-renewal', options.tokenCheckMs, () => renewer.tick(), loopFailed, false, true));
      for (const route of FEDERATION_PAIR_ROUTES) scope.route(route);
      for (const route of FEDERATION_PAIR_LIFECYCLE_ROUTES) scope.route(route);
      bindValue(scope.container, KeyRotationToken, new KeyRotation({ key, sharedLog: resolve(scope.container, EngineStatusToken).sharedLog, overlapMs: options.keyOverlapSeconds * 1000, now, record: (body) => pairLog.write(body) }));
      for (const route of FEDERATION_KEY_ROUTES) scope.route(route);
      scope.expose(FederationOptionsToken, options);
      scope.expose(ConsentGrantsToken, { inForce: () => consentState.state().inForce(now()) });
      for (const route of SYNC_ROUTES) {
        scope.route(route);
        scope.route(groupedAlias(route));
      }

      const didWeb = options.domain ? didWebFromDomain(options.domain) : null;
      if (didWeb) {
        const document = didDocument(didWeb, key.publicKey, [key.did]);
        scope.expose(DidDocumentToken, document);
        // The document names the key that signs now: updated in place when it rotates.
        key.onRotated(() => Object.assign(document, didDocument(didWeb, key.publicKey, [key.did])));
        scope.route(getDidDocument);
      }

      // The manifest is re-signed when a quarter of its lifetime is left.
      const ttlMs = options.manifestTtlSeconds * 1000;
      const consentPolicy = () => ({ default_posture: handshake.policy.posture(), accepts_pair_requests: handshake.policy.accepts() });
      const unsigned = () =>
        buildFederationManifest({ did: key.did, keys: key.chain(), version: info.version, federationProtocolVersion: FEDERATION_PROTOCOL_VERSION, baseUrl: options.baseUrl, kinds: [], namespaces: [...new Set(consentState.state().inForce(now()).map((grant) => grant.source_namespace))], consentPolicy: consentPolicy() });
      // Signed at the first read (the consent fold it names namespaces from is up by then), again when the pairing posture changes.
      let manifest: ReturnType<typeof signManifest> | null = null;
      const currentManifest = () => {
        const policy = consentPolicy();
        const signed = manifest?.['consent_policy'] as { default_posture?: string; accepts_pair_requests?: boolean } | undefined;
        const stale = signed?.default_posture !== policy.default_posture || signed?.accepts_pair_requests !== policy.accepts_pair_requests;
        if (manifest === null || stale || manifestNeedsResign(manifest, now(), ttlMs)) manifest = signManifest(key, unsigned(), { now: now(), ttlMs });
        return manifest;
      };
      // A rotation is announced by the next manifest: signed by the new key, listing the old one with its countersignature.
      key.onRotated(() => {
        manifest = null;
      });
      handshake.manifest = currentManifest;
      scope.describe('discovery', 'federation_manifest', currentManifest);
      // What manifest.responders_ref points at: how this instance answers the handshake.
      const at = (path: string) => (options.baseUrl ? `${options.baseUrl.replace(/\/+$/, '')}${path}` : path);
      scope.describe('discovery', 'responders', () => ({
        pair: { endpoint: at('/v1/federation/pair'), accepts_pair_requests: handshake.policy.accepts(), approval: handshake.policy.approval(), protocol: FEDERATION_PROTOCOL_VERSION },
        poll: at('/v1/federation/pair/{pair_id}/poll'),
        revoke_notice: at('/v1/federation/pair/{pair_id}/revoke'),
        token_renewal: at('/v1/federation/pair/{pair_id}/renew'),
        clock_window_seconds: CLOCK_WINDOW_MS / 1000,
        token_ttl_seconds: PAIR_TOKEN_TTL_MS / 1000,
        signature: 'Ed25519 by the sender did:key over the canonical JSON of the body without sig',
      }));
      scope.describe('health', 'federation', () => ({ ...sync.summary(), ...(didWeb ? { did_web: didWeb } : {}) }));
      scope.describe('manifest', 'conventions.sync_path', () => '/v1/sync');

      let unsubscribe = () => {};
      scope.onStart(async () => {
        await origins.open();
        await sync.start();
        // After the folds' own listener: the runners see the registry with these records applied.
        unsubscribe = reader.onPublished((records) => runners.onPublished(records));
      });
      scope.onStop(async () => {
        unsubscribe();
        await sync.stop();
        await origins.close();
      });

      scope.capability('federation', true);
      scope.capability('federation.changes_feed', true);
      scope.capability('federation.continuous_feed', true);
      scope.capability('federation.record_transfer', true);
      scope.capability('federation.sync_pairs', true);
      scope.capability('federation.consent', true);
      // True only with the auth plugin: without it no token can be minted, and the manifest says so.
      scope.capability('federation.handshake', credentials() !== null);
      // ---- key rotation (issue 35) ----
      scope.capability('federation.key_rotation', true);
      // ---- end key rotation ----
      // ---- did:sync directory (issue 35): off unless the directory_enabled record says so; sets federation.directory ----
      registerDirectory(scope, key.did);
      // ---- end did:sync directory ----
      // ---- relay mailbox (issue 35): deposits for silent peers, polls this instance's mailbox, serves mailboxes when configured; sets federation.relay ----
      registerRelay(scope, {
        key,
        peerKeys,
        feed,
        pairs: () => pairLog.all(),
        registry: () => registry.state(),
        files,
        receiver,
        lastRead: (account) => peerContact.lastRead(account),
        feedOpen: (account) => feeds.isOpen(account),
        options,
        canPair: () => credentials() !== null,
        now,
      });
      // ---- end relay mailbox ----
    },
  });
}

/**
 * Where pair secrets and cursors live: the store's slots on a shared log (the
 * next leader runs the pairs), sealed with a key derived from the instance
 * key; the plugin's data directory otherwise.
 */
function pairKeeping(container: DependencyContainer, dataDir: string | null, key: InstanceKey): PairKeeping {
  const store = resolve(container, RecordStore);
  if (store.capabilities.sharedLog === true && store.readSlot && store.writeSlot) {
    const slots = { readSlot: store.readSlot.bind(store), writeSlot: store.writeSlot.bind(store) };
    return new SharedPairKeeping(slots, new PairSecretBox(key.deriveKey('federation.pair-secret')));
  }
  return new PairFiles(dataDir);
}
