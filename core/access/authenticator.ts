/**
 * The authentication extension point (hapi's scheme/strategy, reduced to the
 * one strategy Loom needs). A plugin exposes one Authenticator; core calls it
 * for every non-exempt request before the body is read, and enforces the
 * route's declared scope on the Caller it returns (core/server/authorize.ts).
 * Without an Authenticator every request runs as LOCAL.
 */
import { token } from '../di/token.js';
import type { ErrorCode } from '../errors/codes.js';
import type { Caller } from './caller.js';

/** What an authenticator sees of a request: never the body. */
export interface CallerRequest {
  readonly method: string;
  readonly path: string;
  /** Lower-case header names. */
  readonly headers: Readonly<Record<string, string | undefined>>;
  readonly remoteAddress: string;
}

export interface Authenticator {
  /**
   * The caller, or null when the request carries no credential. Throws a
   * LoomError for a credential that does not hold: AUTH_REQUIRED (malformed,
   * unknown, revoked, expired), or one of its declared `errors`.
   */
  authenticate(request: CallerRequest): Caller | null | Promise<Caller | null>;
  /**
   * The codes `authenticate` may throw besides AUTH_REQUIRED (the auth
   * plugin's grant and actor-claim refusals): every authenticated route
   * declares them in the OpenAPI document and the response check.
   */
  readonly errors: readonly ErrorCode[];
  /** Whether a request without a credential is refused right now (read per request: hot reload). */
  required(): boolean;
}

export const Authenticator = token<Authenticator>('core.Authenticator');
