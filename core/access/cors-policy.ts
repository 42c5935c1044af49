/**
 * Which browser origins get CORS headers. The server answers CORS through
 * Hapi's own support (preflights included) and asks this policy, per
 * request, whether the origin may have them; without a policy every origin
 * may. A plugin exposes one (the auth plugin: listed origins only while auth
 * is required, spec §2.9 `auth_cors_origins`).
 */
import { token } from '../di/token.js';

export interface CorsPolicy {
  allows(origin: string): boolean;
}

export const CorsPolicy = token<CorsPolicy>('core.CorsPolicy');
