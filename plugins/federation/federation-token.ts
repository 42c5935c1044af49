import { token } from '../../core/di/token.js';
import type { FederationOptions } from './config.js';
import type { ConsentGrantState } from './consent/consent-index.js';
import type { SyncService } from './sync-service.js';

/** The federation plugin's service, for its routes. */
export const SyncServiceToken = token<SyncService>('federation.SyncService');
export const FederationOptionsToken = token<FederationOptions>('federation.Options');

/** The did:web document served at /.well-known/did.json (only with a configured domain). */
export const DidDocumentToken = token<Record<string, unknown>>('federation.DidDocument');

/** The consent grants in force at the plugin's clock (kept current with every publish). */
export const ConsentGrantsToken = token<{ readonly inForce: () => ConsentGrantState[] }>('federation.ConsentGrants');
