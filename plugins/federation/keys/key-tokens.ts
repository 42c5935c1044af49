import { token } from '../../../core/di/token.js';

/** Key rotation's services, bound in the federation plugin's container for its routes. */
export const PeerKeysToken = token<import('./peer-keys.js').PeerKeys>('federation.PeerKeys');
export const KeyRotationToken = token<import('./key-rotation.js').KeyRotation>('federation.KeyRotation');
