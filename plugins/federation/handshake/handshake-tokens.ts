import { token } from '../../../core/di/token.js';
import type { PairInitiator } from './pair-initiator.js';
import type { PairLog } from './pair-log.js';
import type { PairResponder } from './pair-responder.js';
import type { PairRevoker } from './pair-revoker.js';

/** The handshake's services, bound in the federation plugin's own container for its routes. */
export const PairResponderToken = token<PairResponder>('federation.PairResponder');
export const PairInitiatorToken = token<PairInitiator>('federation.PairInitiator');
export const PairRevokerToken = token<PairRevoker>('federation.PairRevoker');
export const PairLogToken = token<PairLog>('federation.PairLog');
export const LiveFeedsToken = token<import('./live-feeds.js').LiveFeeds>('federation.LiveFeeds');
export const PeerContactToken = token<import('./peer-contact.js').PeerContact>('federation.PeerContact');
export const PairLifecycleToken = token<import('./pair-lifecycle.js').PairLifecycle>('federation.PairLifecycle');
export const TokenRenewalToken = token<import('./token-renewal.js').TokenRenewal>('federation.TokenRenewal');
