/**
 * The one place refusals become the envelope `{object: "error", code, message}`
 * (plus `type` where the catalogue has one) with the catalogue's status. A
 * thrown LoomError reaches here boomified in place (hapi calls Boom.boomify on
 * the same object), so `instanceof` still holds. Hapi's own refusals are mapped
 * by status. 5xx answers never carry internals: the code is INTERNAL and the
 * message generic, while the cause goes to the log.
 */
import Boom from '@hapi/boom';
import type { Request, ResponseToolkit, Server } from '@hapi/hapi';
import type { ErrorCode } from '../errors/codes.js';
import { LoomError, type ErrorEnvelope } from '../errors/loom-error.js';
import type { Logger } from '../plugin/logger.js';
import type { AnyRouteDecl } from '../plugin/route.js';
import { requestOrigin } from './request-origin.js';

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

function routeDecl(request: Request): AnyRouteDecl | undefined {
  return (request.route?.settings?.plugins as { loom?: AnyRouteDecl } | undefined)?.loom;
}

function codeForStatus(status: number, request: Request): ErrorCode {
  switch (status) {
    case 400:
      return routeDecl(request)?.invalidInput ?? 'INVALID_SHAPE';
    case 401:
      return 'AUTH_REQUIRED';
    case 403:
      return 'SCOPE_FORBIDDEN';
    case 404:
      return 'NOT_FOUND';
    case 405:
      return 'METHOD_NOT_ALLOWED';
    case 408:
      return 'REQUEST_TIMEOUT';
    case 413:
      return 'PAYLOAD_TOO_LARGE';
    case 414:
      return 'URI_TOO_LONG';
    case 415:
      return 'UNSUPPORTED_MEDIA_TYPE';
    case 431:
      return 'HEADERS_TOO_LARGE';
    case 429:
      return 'RATE_LIMITED';
    case 503:
      return 'SERVICE_UNAVAILABLE';
    default:
      return 'INTERNAL';
  }
}

/** Hapi answers 404 for a known path with another method; the client deserves 405. */
function otherMethods(server: Server, request: Request): string[] {
  const path = request.path;
  return METHODS.filter((method) => method !== request.method.toUpperCase() && server.match(method.toLowerCase() as never, path) !== null);
}

/** The 401 challenge: the realm, plus the route's Protected Resource Metadata URL when it declares one (RFC 9728 §5.1). */
function bearerChallenge(request: Request): string {
  const path = routeDecl(request)?.resourceMetadata;
  const origin = path ? requestOrigin(request.headers as Record<string, string | undefined>) : null;
  return path && origin ? `Bearer realm="loom", resource_metadata="${origin}${path}"` : 'Bearer realm="loom"';
}

/** `Retry-After` in whole seconds, at least 1, from an envelope's `retry_after_ms` when it has one. */
export function retryAfterSeconds(envelope: ErrorEnvelope): string {
  const ms = (envelope as { retry_after_ms?: unknown }).retry_after_ms;
  return String(typeof ms === 'number' && ms > 0 ? Math.max(1, Math.ceil(ms / 1000)) : 1);
}

export function installErrorEnvelope(server: Server, log: Logger): void {
  server.ext('onPreResponse', (request: Request, h: ResponseToolkit) => {
    const response = request.response;
    if (!Boom.isBoom(response)) return h.continue;

    let status: number;
    let envelope: ErrorEnvelope;
    const headers: Record<string, string> = {};
    // Deliberate refusals keep their code and message, 5xx included (e.g. 503 SEMANTIC_SEARCH_DISABLED).
    if (response instanceof LoomError && response.code !== 'INTERNAL') {
      status = response.status;
      envelope = response.toEnvelope();
    } else {
      status = response.output.statusCode;
      if (status === 404 && !routeDecl(request)) {
        const allowed = otherMethods(server, request);
        if (allowed.length > 0) {
          status = 405;
          headers['allow'] = allowed.join(', ');
        }
      }
      const code = codeForStatus(status, request);
      if (status >= 500) {
        log.log('error', 'request failed', {
          method: request.method,
          path: request.path,
          status,
          error: response.message,
          stack: response.stack,
        });
        status = status === 503 ? 503 : 500;
        envelope =
          status === 503
            ? { object: 'error', code: 'SERVICE_UNAVAILABLE', message: 'service unavailable; retry later' }
            : { object: 'error', code: 'INTERNAL', message: 'internal error; the server log has details' };
      } else {
        const message =
          status === 404 ? `no route for ${request.method.toUpperCase()} ${request.path}` : status === 405 ? `${request.method.toUpperCase()} is not allowed on ${request.path} (allowed: ${headers['allow']})` : (response.output.payload.message ?? response.message);
        envelope = { object: 'error', code, message };
      }
    }
    if (status === 401 || status === 403) {
      // Denials go to the instance log, never to records (spec §4.10): who, which route, why.
      const caller = (request.app as { loomCaller?: { kind: string; principal: string | null; credential: string | null } }).loomCaller;
      log.log('warn', 'permission denied', {
        method: request.method.toUpperCase(),
        path: request.path,
        status,
        code: envelope.code,
        reason: envelope.message,
        caller: caller ? { kind: caller.kind, principal: caller.principal, credential: caller.credential } : null,
        remote_address: request.info.remoteAddress,
      });
      if (status === 401) headers['www-authenticate'] = bearerChallenge(request);
    }
    // RFC 9110 §10.2.3: a 429 says when to come back, in whole seconds (from the refusal's retry_after_ms, else 1).
    if (status === 429) headers['retry-after'] = retryAfterSeconds(envelope);
    for (const [name, value] of Object.entries(response.output.headers ?? {})) {
      if (typeof value === 'string' && name.toLowerCase() !== 'content-type') headers[name] = value;
    }
    const reply = h.response(envelope).code(status);
    for (const [name, value] of Object.entries(headers)) reply.header(name, value);
    return reply;
  });
}
