/**
 * Builds the Hapi server from the route catalogue. Never listens: `start()`
 * in create-loom.ts does, and tests use `server.inject` or a real port.
 */
import Hapi from '@hapi/hapi';
import type { DependencyContainer } from 'tsyringe';
import type { CorsPolicy } from '../access/cors-policy.js';
import type { RequestEvent, RequestObserver } from '../plugin/request-observer.js';
import type { Logger } from '../plugin/logger.js';
import type { RouteCatalog } from '../plugin/route-catalog.js';
import type { AuthorizeOptions } from './authorize.js';
import { installCors } from './cors.js';
import { installErrorEnvelope } from './error-envelope.js';
import { mountRoutes } from './mount-routes.js';

export interface ServerOptions {
  readonly host: string;
  readonly port: number;
  readonly maxBodyBytes: number;
  readonly log: Logger;
  readonly auth: () => AuthorizeOptions;
  readonly cors: () => CorsPolicy | null;
  readonly rateLimit?: { readonly perSecond: number; readonly burst: number } | null;
  /** Told of every answered request, after it was sent. */
  readonly observers?: readonly RequestObserver[];
}

export function createServer(catalog: RouteCatalog, containers: ReadonlyMap<string, DependencyContainer>, options: ServerOptions): Hapi.Server {
  const server = Hapi.server({
    host: options.host,
    port: options.port,
    router: { stripTrailingSlash: true },
    routes: {
      timeout: { server: false, socket: false },
      // Byte-stream routes answer ranges themselves (core/plugin/byte-stream-reply.ts); Hapi must not clip JSON answers.
      response: { ranges: false },
      // Hapi answers preflights and sets the headers; installCors narrows them to the policy's origins.
      cors: { origin: ['*'], additionalHeaders: ['x-service-actor', 'last-event-id'], additionalExposedHeaders: ['location', 'www-authenticate'] },
    },
    // Hapi's own debug output would print stacks to stderr; Loom logs instead.
    debug: false,
  });
  installErrorEnvelope(server, options.log);
  installCors(server, options.cors);
  mountRoutes(server, catalog, containers, { maxBodyBytes: options.maxBodyBytes, auth: options.auth, rateLimit: options.rateLimit ?? null });
  const observers = options.observers ?? [];
  server.events.on('response', (request) => {
    const response = request.response as { statusCode?: number; source?: unknown } | null;
    const durationMs = Date.now() - request.info.received;
    options.log.log('debug', 'request', {
      method: request.method.toUpperCase(),
      path: request.path,
      status: response?.statusCode,
      ms: durationMs,
    });
    if (observers.length === 0) return;
    const source = response?.source as { object?: unknown; code?: unknown } | null | undefined;
    const event: RequestEvent = {
      route: (request.route?.settings?.id as string | undefined) ?? null,
      method: request.method.toUpperCase(),
      status: response?.statusCode ?? 0,
      durationMs,
      code: source && typeof source === 'object' && source.object === 'error' && typeof source.code === 'string' ? source.code : null,
    };
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
