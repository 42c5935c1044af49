/**
 * Adds the relay to the federation plugin's scope (issue 35): the two
 * configuration topics, the mailboxes this instance may serve, the sender
 * (deposits for pairs whose peer went silent), the inbox (polls this
 * instance's mailbox), their loop, the routes, and the capability
 * `federation.relay`, true when the relay can be used: the instance can
 * send and receive through a relay (it has pairs' tokens, so the auth plugin
 * is loaded), and serves mailboxes once its operator turns them on.
 * Everything crosses the kernel through its verbs: records in through the
 * RecordReceiver (ingest gates, `via: 'federation'`), pages out through the
 * changes feed (the record reader), state through the pair folds.
 */
import { join } from 'node:path';
import { bindValue, resolve } from '../../../core/di/token.js';
import { IntervalLoop } from '../../../core/engine/interval-loop.js';
import { Config } from '../../../core/folds/config/config-topic.js';
import type { PluginScope } from '../../../core/plugin/plugin-scope.js';
import type { ChangesFeed } from '../changes-feed.js';
import type { FederationOptions } from '../config.js';
import type { FederationPair } from '../handshake/federation-pair.js';
import type { PairEntry } from '../pair-records.js';
import type { PairKeeping } from '../pair-keeping.js';
import type { RecordReceiver } from '../record-receiver.js';
import { MailboxStore } from './mailbox-store.js';
import { relayMailboxTopic, relaySettings, relayTopic } from './relay-config.js';
import { RelayInbox } from './relay-inbox.js';
import type { KeyChain } from '../keys/key-chain.js';
import type { PeerKeys } from '../keys/peer-keys.js';
import { RELAY_ROUTES } from './relay-routes.js';
import { RelaySender, type PeerRead } from './relay-sender.js';
import { RelayService, RelayServiceToken } from './relay-service.js';

/** How often the loop looks for silent peers and due mailboxes (each relay keeps its own poll interval). */
const TICK_MS = 200;

export interface RelayWiring {
  /** The instance key; `chain` once it has rotated (envelopes and mailbox proofs then carry it). */
  readonly key: { did: string; sign(message: Uint8Array): Uint8Array; chain?(): KeyChain };
  /** The keys this instance trusts for each peer (key rotation): envelopes from a rotated sender are checked against them. */
  readonly peerKeys?: Pick<PeerKeys, 'pinned' | 'acceptable'>;
  readonly feed: ChangesFeed;
  readonly pairs: () => FederationPair[];
  readonly registry: () => ReadonlyMap<string, PairEntry>;
  readonly files: PairKeeping;
  readonly receiver: RecordReceiver;
  readonly lastRead: (accountId: string) => PeerRead | undefined;
  readonly feedOpen: (accountId: string) => boolean;
  readonly options: FederationOptions;
  readonly canPair: () => boolean;
  readonly now: () => number;
}

export function registerRelay(scope: PluginScope, wiring: RelayWiring): RelayService {
  scope.configTopic(relayTopic);
  scope.configTopic(relayMailboxTopic);
  const config = scope.container.isRegistered(Config as symbol, true) ? resolve(scope.container, Config) : null;
  const settings = relaySettings(config);
  const dir = scope.dataDir;
  const mailboxes = new MailboxStore(dir === null ? null : join(dir, 'mailbox'), wiring.now);
  const sender = new RelaySender({
    pairs: wiring.pairs,
    feed: wiring.feed,
    key: wiring.key,
    settings,
    lastRead: wiring.lastRead,
    feedOpen: wiring.feedOpen,
    defaultPollMs: wiring.options.pairPollIntervalMs,
    stateFile: dir === null ? null : join(dir, 'relay-push.json'),
    log: scope.log,
    now: wiring.now,
  });
  const inbox = new RelayInbox({
    pairs: wiring.pairs,
    registry: wiring.registry,
    files: wiring.files,
    receiver: wiring.receiver,
    key: wiring.key,
    ...(wiring.peerKeys ? { peerKeys: wiring.peerKeys } : {}),
    settings,
    reportFile: dir === null ? null : join(dir, 'relay-rejected.json'),
    log: scope.log,
    now: wiring.now,
  });
  const service = new RelayService(mailboxes, settings, sender, inbox, wiring.now);
  bindValue(scope.container, RelayServiceToken, service);
  for (const route of RELAY_ROUTES) scope.route(route);
  // Mailbox envelopes are deleted on ack or expiry, not kept: a backup restores them, and a stale one is only deduplicated.
  scope.backupState(['relay-push.json', 'relay-rejected.json']);
  const failed = (context: string, error: unknown) => scope.log.log('error', context, { error: error instanceof Error ? error.message : String(error) });
  let sweptAt = 0;
  // Leader only on a shared log: one server deposits and polls for the instance.
  scope.loop(
    new IntervalLoop(
      'federation-relay',
      TICK_MS,
      async () => {
        await sender.tick();
        await inbox.tick();
        const serving = settings.serving();
        if (serving.serve && wiring.now() - sweptAt > 60_000) {
          sweptAt = wiring.now();
          await mailboxes.sweep({ maxEnvelopes: serving.maxEnvelopes, ttlMs: serving.ttlMs });
        }
      },
      failed,
      false,
      true,
    ),
  );
  scope.onStart(() => mailboxes.load());
  scope.capability('federation.relay', wiring.canPair());
  // Counts only: /health may be public, and the mailboxes' receivers are nobody else's business.
  scope.describe('health', 'federation_relay', () => {
    const serving = settings.serving();
    const boxes = mailboxes.stats();
    return { serving: serving.serve, mailboxes: boxes.length, envelopes_waiting: boxes.reduce((n, b) => n + b.envelopes, 0), pairs_pushing: sender.view().filter((s) => s.pushing).length, rejected: inbox.view().rejected.length };
  });
  return service;
}
