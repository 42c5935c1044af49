/** CORS per spec §2.9: only the listed origins while auth is required, every origin while it is off. */
import type { Authenticator } from '../../core/access/authenticator.js';
import type { CorsPolicy } from '../../core/access/cors-policy.js';
import type { Config } from '../../core/folds/config/config-topic.js';
import { authCorsOriginsTopic } from './topics.js';

export function authCorsPolicy(authenticator: Authenticator, config: Config): CorsPolicy {
  return {
    allows(origin) {
      if (!authenticator.required()) return true;
      const origins = config.single(authCorsOriginsTopic)?.origins ?? [];
      return origins.includes('*') || origins.includes(origin);
    },
  };
}
