/** What the handshake's services share (each takes the part it uses). */
import type { PeerCredentials } from '../../auth/index.js';
import type { Logger } from '../../../core/plugin/logger.js';
import type { FederationOptions } from '../config.js';
import type { PeerKeys } from '../keys/peer-keys.js';
import type { InstanceKey } from '../instance-key.js';
import type { PairKeeping } from '../pair-keeping.js';
import type { SyncService } from '../sync-service.js';
import type { LiveFeeds } from './live-feeds.js';
import type { NonceStore } from './nonce-store.js';
import type { PairLog } from './pair-log.js';
import type { PairPolicy } from './pair-policy.js';

export interface HandshakeDeps {
  readonly log: PairLog;
  readonly sync: SyncService;
  /** Peer tokens held (under the sync pair id) and a responder's token awaiting its initiator's poll (under the pair id). */
  readonly files: PairKeeping;
  /** The auth plugin's peer credentials; null without the auth plugin (then no pair can be made). */
  readonly credentials: () => PeerCredentials | null;
  readonly policy: PairPolicy;
  readonly key: Pick<InstanceKey, 'did' | 'sign'>;
  readonly nonces: NonceStore;
  readonly feeds: LiveFeeds;
  readonly options: FederationOptions;
  readonly logger: Logger;
  readonly now: () => number;
  /** The peers' keys in force and their rotations (absent in unit tests: DID keys only). */
  readonly peerKeys?: PeerKeys;
  /** This instance's signed federation manifest (sent with a pair request). */
  readonly manifest: () => Record<string, unknown>;
}

/** Federation tokens last 90 days (spec §8). */
export const PAIR_TOKEN_TTL_MS = 90 * 86_400_000;
