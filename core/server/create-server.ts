/**
 * Builds the Hapi server from the route catalogue. Never listens: `start()`
 * in create-loom.ts does, and tests use `server.inject` or a real port.
 */
import Hapi from '@hapi/hapi';
import type { DependencyContainer } from 'tsyringe';
import type { CorsPolicy } from '../access/cors-policy.js';
import { randomUUID } from 'node:crypto';
import type { RequestEvent, RequestObserver } from '../plugin/request-observer.js';
import type { Logger } from '../plugin/logger.js';
import type { RouteCatalog } from '../plugin/route-catalog.js';
import type { AuthorizeOptions } from './authorize.js';
import { installClientErrorHandler } from './client-error.js';
import { installConnectionCap } from './connection-cap.js';
import { createListener, DEFAULT_CONNECTION_LIMITS, type ConnectionLimits } from './connection-limits.js';
import { installCors } from './cors.js';
import { installRequestDeadline } from './request-deadline.js';
import { installErrorEnvelope } from './error-envelope.js';
import { installResponseCheck } from './response-contract.js';
import { mountRoutes } from './mount-routes.js';

export interface ServerOptions {
  readonly host: string;
  readonly port: number;
  readonly maxBodyBytes: number;
  readonly log: Logger;
  readonly auth: () => AuthorizeOptions;
  readonly cors: () => CorsPolicy | null;
  readonly rateLimit?: { readonly perSecond: number; readonly burst: number } | null;
  /** Check every answer against its route's declaration (core/server/response-contract.ts). @default false */
  readonly checkResponses?: boolean;
  /** Request headers the plugins declared for CORS preflights (PluginScope.corsHeaders). @default [] */
  readonly corsHeaders?: readonly string[];
  /** Told of every answered request, after it was sent. */
  readonly observers?: readonly RequestObserver[];
  /** Deadlines and the per-address connection cap (core/server/connection-limits.ts). @default DEFAULT_CONNECTION_LIMITS */
  readonly connections?: ConnectionLimits;
}

/** A client's request id worth keeping: a short token of safe characters (anything else is replaced). */
const REQUEST_ID = /^[A-Za-z0-9._:/+=-]{1,128}$/;

export function createServer(catalog: RouteCatalog, containers: ReadonlyMap<string, DependencyContainer>, options: ServerOptions): Hapi.Server {
  const limits = options.connections ?? DEFAULT_CONNECTION_LIMITS;
  const listener = createListener(limits);
  const server = Hapi.server({
    listener,
    host: options.host,
    port: options.port,
    router: { stripTrailingSlash: true },
    routes: {
      // No response or idle-socket timeout: watches and long polls stay open on purpose; deadlines apply to what clients send (connection-limits.ts).
      timeout: { server: false, socket: false },
      // Byte-stream routes answer ranges themselves (core/plugin/byte-stream-reply.ts); Hapi must not clip JSON answers.
      response: { ranges: false },
      // Hapi answers preflights and sets the headers; installCors narrows them to the policy's origins.
      cors: { origin: ['*'], additionalHeaders: [...new Set([...(options.corsHeaders ?? []), 'x-request-id'])], additionalExposedHeaders: ['location', 'www-authenticate', 'x-request-id'] },
    },
    // Hapi's own debug output would print stacks to stderr; Loom logs instead.
    debug: false,
  });
  // Hapi installed its own handler on the listener (a bare 400); the envelope's replaces it.
  installClientErrorHandler(listener, options.log);
  installConnectionCap(listener, server, limits.maxConnectionsPerClient);
  installRequestDeadline(server, { timeoutMs: limits.requestTimeoutMs, minBytesPerSecond: limits.minBodyBytesPerSecond });
  installErrorEnvelope(server, options.log);
  installCors(server, options.cors);
  // After the envelope, so refusals are checked as they are sent.
  if (options.checkResponses) installResponseCheck(server, options.log, catalog);
  mountRoutes(server, catalog, containers, { maxBodyBytes: options.maxBodyBytes, auth: options.auth, rateLimit: options.rateLimit ?? null });
  const observers = options.observers ?? [];
  // Every request gets an id: the client's X-Request-Id when it is a usable token, else a new UUID; the answer echoes it.
  server.ext('onRequest', (request, h) => {
    const sent = request.headers['x-request-id'];
    (request.app as { requestId?: string }).requestId = typeof sent === 'string' && REQUEST_ID.test(sent) ? sent : randomUUID();
    return h.continue;
  });
  server.ext('onPreResponse', (request, h) => {
    const id = (request.app as { requestId?: string }).requestId;
    const response = request.response as { isBoom?: boolean; output?: { headers: Record<string, string> }; header?: (name: string, value: string) => unknown } | null;
    if (id && response) {
      if (response.isBoom && response.output) response.output.headers['x-request-id'] = id;
      else response.header?.('x-request-id', id);
    }
    return h.continue;
  });
  server.events.on('response', (request) => {
    const response = request.response as { statusCode?: number; source?: unknown } | null;
    const source = response?.source as { object?: unknown; code?: unknown } | null | undefined;
    const event: RequestEvent = {
      route: (request.route?.settings?.id as string | undefined) ?? null,
      method: request.method.toUpperCase(),
      status: response?.statusCode ?? 0,
      durationMs: Date.now() - request.info.received,
      code: source && typeof source === 'object' && source.object === 'error' && typeof source.code === 'string' ? source.code : null,
      requestId: (request.app as { requestId?: string }).requestId ?? '',
      path: request.path,
      remoteAddress: request.info.remoteAddress,
    };
    // The access log: never a token, a header or a body.
    options.log.log('info', 'request', {
      req_id: event.requestId,
      route: event.route,
      method: event.method,
      path: event.path,
      status: event.status,
      ...(event.code ? { code: event.code } : {}),
      ms: event.durationMs,
      remote: event.remoteAddress,
    });
    for (const observe of observers) {
      try {
        observe(event);
      } catch (error) {
        options.log.log('warn', 'request observer failed', { error: (error as Error).message });
      }
    }
  });
  return server;
}
