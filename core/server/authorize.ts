/**
 * The one place a route's declared auth is enforced (hapi authenticates
 * before the payload is read; so does Loom): resolve the caller through the
 * Authenticator, then check the route's scope with the coarse gate. The
 * per-resource half of grains is the read policies' and ingest gates' job.
 */
import { ANONYMOUS, LOCAL, type Caller } from '../access/caller.js';
import type { Authenticator, CallerRequest } from '../access/authenticator.js';
import { covers } from '../access/scopes.js';
import { LoomError } from '../errors/loom-error.js';
import type { RouteAuth } from '../plugin/route.js';

export interface AuthorizeOptions {
  /** The Authenticator a plugin exposed, or null: then every scoped request runs as LOCAL. */
  readonly authenticator: Authenticator | null;
  /** `--insecure-localhost`: requests without a credential run as LOCAL even when auth is required. */
  readonly enforcementDisabled: boolean;
}

export async function authorize(auth: RouteAuth, request: CallerRequest, options: AuthorizeOptions): Promise<Caller> {
  if (auth === 'none') return ANONYMOUS;
  const authenticator = options.authenticator;
  if (auth === 'optional') {
    // Auth-invariant routes answer every caller; a credential that does not hold is simply not used.
    if (!authenticator) return ANONYMOUS;
    try {
      return (await authenticator.authenticate(request)) ?? ANONYMOUS;
    } catch (error) {
      if (error instanceof LoomError) return ANONYMOUS;
      throw error;
    }
  }
  const caller = authenticator ? await authenticator.authenticate(request) : null;
  if (!caller) {
    if (auth.always) throw new LoomError('AUTH_REQUIRED', `${request.method} ${request.path} always needs a bearer token: send Authorization: Bearer <token>`);
    if (!authenticator || options.enforcementDisabled || !authenticator.required()) return LOCAL;
    throw new LoomError('AUTH_REQUIRED', `authentication required: send Authorization: Bearer <token> (loom bootstrap creates the first one)`);
  }
  if (auth.scope !== null && !covers(caller.scopes, auth.scope)) {
    throw new LoomError('SCOPE_FORBIDDEN', `this credential lacks the scope ${auth.scope} that ${request.method} ${request.path} needs`);
  }
  return caller;
}
