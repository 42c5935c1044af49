/**
 * A route is declared once: operationId, method, path, auth scope, request and
 * response schemas, and the error codes it can return. That one declaration
 * feeds Hapi's routing and validation (core/server/mount-routes.ts), the
 * OpenAPI document (openapi/build-spec.ts) and through it the SDK.
 */
import type { Readable } from 'node:stream';
import type { Static, TSchema } from 'typebox';
import type { LoomError } from '../errors/loom-error.js';
import type { ErrorCode } from '../errors/codes.js';
import type { Token } from '../di/token.js';
import type { Reply } from './reply.js';
import type { Caller } from '../access/caller.js';
import type { Scope } from '../access/scopes.js';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface RequestSchemas {
  readonly params?: TSchema;
  readonly query?: TSchema;
  /** JSON body schema. Bodies are always parsed by Loom (UTF-8 and JSON checked) before validation. */
  readonly body?: TSchema;
  readonly headers?: TSchema;
  /**
   * The body is raw bytes, streamed to the handler as `input.raw` and never
   * read into memory (uploads). Exclusive with `body`.
   */
  readonly raw?: RawBodySpec;
}

export interface RawBodySpec {
  readonly description: string;
  /** Largest accepted body; more is refused with 413 PAYLOAD_TOO_LARGE while streaming. */
  readonly maxBytes: number;
  /** Accepted Content-Types; a request without one is accepted too. @default ['application/octet-stream'] */
  readonly contentTypes?: readonly string[];
}

export interface ResponseSpec {
  readonly description: string;
  /** JSON schema of the body; omit for non-JSON bodies. */
  readonly schema?: TSchema;
  /** @default 'application/json' */
  readonly contentType?: string;
  /** The body is bytes (`format: binary` in the OpenAPI document, a Blob in the SDK). */
  readonly binary?: boolean;
}

type StaticOr<S, Fallback> = S extends TSchema ? Static<S> : Fallback;

export interface RouteInput<R extends RequestSchemas> {
  readonly params: StaticOr<R['params'], Record<string, never>>;
  readonly query: StaticOr<R['query'], Record<string, never>>;
  readonly body: StaticOr<R['body'], undefined>;
  /** The streamed request body of a route declaring `request.raw`; it errors with PAYLOAD_TOO_LARGE past the limit. */
  readonly raw: R['raw'] extends RawBodySpec ? Readable : undefined;
  /**
   * Routes with `auth.orCapability`: the refusal core would have made (no
   * credential, a bad one, a missing scope), for the handler to throw unless
   * the request carries a capability it accepts. Null otherwise.
   */
  readonly authRefusal: LoomError | null;
  readonly headers: Readonly<Record<string, string | undefined>>;
  /** Aborted when the client goes away (for streams). */
  readonly signal: AbortSignal;
  /** Who is calling, resolved and authorized before the input was read (core/server/authorize.ts). */
  readonly caller: Caller;
  /** The client's address (for rate limits and logs). */
  readonly remoteAddress: string;
}

/**
 * How a route is authenticated and authorized, enforced by core before the
 * handler (and before the body is read):
 * - `'none'`: exempt, never authenticated; the caller is ANONYMOUS.
 * - `'optional'`: the credential's caller if one is sent (and valid), else ANONYMOUS.
 * - `{scope}`: a caller covering `scope` (null: any live credential, no scope);
 *   while enforcement is off, a request without a credential runs as LOCAL.
 *   `always: true` needs a credential even when enforcement is off.
 *   `orCapability`: the request may instead carry a capability the handler
 *   verifies (a signed URL); core does not refuse, it hands the refusal to
 *   the handler as `input.authRefusal` and the caller is ANONYMOUS. The
 *   capability is a security scheme of its own in the OpenAPI document.
 */
export type RouteAuth = 'none' | 'optional' | { readonly scope: Scope | null; readonly always?: boolean; readonly orCapability?: CapabilityScheme };

/** A credential carried in the URL itself (OpenAPI: an apiKey scheme in the query). */
export interface CapabilityScheme {
  /** The security scheme's name in the OpenAPI document, e.g. `signedUrl`. */
  readonly name: string;
  /** The query parameter that carries it. */
  readonly query: string;
  readonly description: string;
}

export type Deps<I extends Record<string, Token<unknown>>> = { [K in keyof I]: I[K] extends Token<infer T> ? T : never };

export interface RouteDecl<R extends RequestSchemas = RequestSchemas, I extends Record<string, Token<unknown>> = Record<string, Token<unknown>>> {
  /** camelCase, unique: Hapi route id, OpenAPI operationId and SDK function name. */
  readonly operationId: string;
  readonly method: HttpMethod;
  /** Plain `{param}` segments only, e.g. `/v1/records/{id}`. */
  readonly path: string;
  readonly summary: string;
  readonly description?: string;
  /** One tag per plugin. */
  readonly tags: readonly string[];
  /** See RouteAuth. AUTH_REQUIRED, SCOPE_FORBIDDEN and the authenticator's own codes are added to `errors` from this, not listed by hand. */
  readonly auth: RouteAuth;
  readonly request?: R;
  /** Success responses by status. */
  readonly responses: Readonly<Record<number, ResponseSpec>>;
  /** Spec codes this route may return. */
  readonly errors: readonly ErrorCode[];
  /**
   * `schema` (default): the body is checked against `request.body` before the handler.
   * `handler`: the schema only documents the body; the handler validates it
   * itself, for messages more precise than a schema can give.
   */
  readonly bodyValidation?: 'schema' | 'handler';
  /** Code used when request validation fails. @default 'INVALID_SHAPE' */
  readonly invalidInput?: ErrorCode;
  /** Largest accepted body in bytes; overrides the server default. */
  readonly maxBodyBytes?: number;
  /**
   * Also accept `application/x-ndjson` (one JSON value per line, blank lines
   * ignored), handed to the handler as the array of those values; the body
   * schema is then an array schema.
   */
  readonly ndjson?: boolean;
  /**
   * The path of the OAuth Protected Resource Metadata (RFC 9728) describing
   * this route, e.g. `/.well-known/oauth-protected-resource/v1/mcp`: its 401
   * answers name it in `WWW-Authenticate: Bearer resource_metadata="<origin><path>"`,
   * which is how an MCP client finds where to get a token.
   */
  readonly resourceMetadata?: string;
  /** Exactly the services the handler uses, resolved once at mount. */
  readonly inject: I;
  /** Returns the body of the first declared success response, or a Reply. */
  handler(input: RouteInput<R>, deps: Deps<I>): Promise<unknown> | unknown;
}

// The catalogue holds routes of every request and dependency shape.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyRouteDecl = RouteDecl<any, any>;

/** Identity with inference: gives the handler typed input and typed deps. */
export function defineRoute<R extends RequestSchemas, I extends Record<string, Token<unknown>>>(decl: RouteDecl<R, I>): RouteDecl<R, I> {
  return decl;
}

/**
 * The codes a route can return because of its auth, added by the framework
 * rather than listed by hand: core's own (AUTH_REQUIRED: no credential, or
 * one the authenticator refuses; SCOPE_FORBIDDEN: the route's scope is not
 * held), then whatever the loaded authenticator declares it throws
 * (`Authenticator.errors`).
 */
export function authErrors(route: AnyRouteDecl, authenticatorErrors: readonly ErrorCode[] = []): ErrorCode[] {
  if (route.auth === 'none' || route.auth === 'optional') return [];
  const core: ErrorCode[] = route.auth.scope === null ? ['AUTH_REQUIRED'] : ['AUTH_REQUIRED', 'SCOPE_FORBIDDEN'];
  return [...core, ...authenticatorErrors.filter((code) => !core.includes(code))];
}
