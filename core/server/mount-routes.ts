/**
 * Route declarations → Hapi routes. Each declaration becomes one
 * `server.route()` with `options.id` = operationId (Hapi refuses duplicates)
 * and the declaration itself in `plugins.loom`, so `server.table()` can prove
 * the catalogue and the router agree. Dependencies are resolved once, here.
 */
import type { Readable } from 'node:stream';
import type { Request, ResponseToolkit, Server, ServerRoute } from '@hapi/hapi';
import type { DependencyContainer } from 'tsyringe';
import { RateLimiter } from '../access/rate-limiter.js';
import { whenFoldsLoaded } from '../engine/fold-loading-error.js';
import { LoomError } from '../errors/loom-error.js';
import { Reply } from '../plugin/reply.js';
import type { AnyRouteDecl } from '../plugin/route.js';
import type { RouteCatalog } from '../plugin/route-catalog.js';
import { ANONYMOUS, type Caller } from '../access/caller.js';
import { authorize, type AuthorizeOptions } from './authorize.js';
import { limitedStream, checkRawContentType } from './raw-body.js';
import { decodedBody, readBody } from './read-body.js';
import { HandlerInput } from './handler-input.js';
import { parseJsonBody } from './request-body.js';
import { compileValidator, type Validator } from './validators.js';

export interface MountOptions {
  /** Default largest request body. @default 1 MiB */
  readonly maxBodyBytes: number;
  /** The authenticator and enforcement switch, resolved once when the server is built. */
  readonly auth: () => AuthorizeOptions;
  /** Requests per client (credential, else address): a token bucket; null for none. */
  readonly rateLimit?: { readonly perSecond: number; readonly burst: number } | null;
}

/** Where the authorized caller is kept on a Hapi request (for the denial log). */
export interface RequestCallerSlot {
  loomCaller?: import('../access/caller.js').Caller;
}

function successStatus(decl: AnyRouteDecl): number {
  const statuses = Object.keys(decl.responses).map(Number).filter((s) => s >= 200 && s < 300).sort();
  return statuses[0] ?? 200;
}

/** The per-client limiter; the health probes are never limited (an orchestrator must always reach them). */
function clientLimit(options: MountOptions): ((decl: AnyRouteDecl, caller: Caller, address: string) => void) | null {
  if (!options.rateLimit) return null;
  const { perSecond, burst } = options.rateLimit;
  const limiter = new RateLimiter(burst, 1000 / perSecond, 100_000);
  return (decl, caller, address) => {
    if (decl.path.startsWith('/health')) return;
    const key = caller.kind === 'credential' && caller.credential ? `token:${caller.credential}` : `address:${address}`;
    if (!limiter.take(key)) {
      throw new LoomError('RATE_LIMITED', `more than ${perSecond} requests per second (burst ${burst}) from this ${key.startsWith('token') ? 'credential' : 'address'}; slow down and retry`, { retry_after_ms: Math.ceil(1000 / perSecond) });
    }
  };
}

function toHapiRoute(decl: AnyRouteDecl, container: DependencyContainer, options: MountOptions, limit: ReturnType<typeof clientLimit>): ServerRoute {
  const invalidInput = decl.invalidInput ?? 'INVALID_SHAPE';
  const validators: Partial<Record<'params' | 'query' | 'body' | 'headers', Validator>> = {};
  for (const part of ['params', 'query', 'body', 'headers'] as const) {
    const schema = decl.request?.[part];
    if (schema && !(part === 'body' && decl.bodyValidation === 'handler')) validators[part] = compileValidator(part, schema, invalidInput);
  }
  const deps = Object.fromEntries(Object.entries(decl.inject).map(([name, key]) => [name, container.resolve(key as symbol)]));
  const status = successStatus(decl);
  // A DELETE reads a body only when it declares one (an optional {note}); otherwise none is read.
  const raw = decl.request?.raw;
  if (raw && decl.request?.body) throw new Error(`${decl.operationId}: a route takes a JSON body or a raw body, not both`);
  const hasBody = !raw && decl.method !== 'GET' && (decl.method !== 'DELETE' || decl.request?.body !== undefined);
  const maxBodyBytes = raw ? raw.maxBytes : (decl.maxBodyBytes ?? options.maxBodyBytes);
  const orCapability = typeof decl.auth === 'object' && decl.auth.orCapability !== undefined;

  return {
    method: decl.method,
    path: decl.path,
    options: {
      id: decl.operationId,
      description: decl.summary,
      tags: ['api', ...decl.tags],
      plugins: { loom: decl } as never,
      // The body arrives as a stream and is read by readBody, so an oversized chunked body still gets a 413 answer.
      ...(hasBody || raw ? { payload: { parse: false, output: 'stream', maxBytes: maxBodyBytes } } : {}),
      handler: async (request: Request, h: ResponseToolkit) => {
        const headers = request.headers as Record<string, string | undefined>;
        const remoteAddress = request.info.remoteAddress;
        // Authenticate and check the scope before reading the body: an unauthorized client uploads nothing.
        let caller: Caller;
        let authRefusal: LoomError | null = null;
        try {
          caller = await whenFoldsLoaded(() => authorize(decl.auth, { method: decl.method, path: request.path, headers, remoteAddress }, options.auth()));
        } catch (error) {
          if (!orCapability || !(error instanceof LoomError)) throw error;
          caller = ANONYMOUS;
          authRefusal = error;
        }
        (request.app as RequestCallerSlot).loomCaller = caller;
        limit?.(decl, caller, remoteAddress);
        if (raw) {
          checkRawContentType(headers['content-type'], raw.contentTypes ?? ['application/octet-stream']);
          // Raw bodies are the bytes themselves (hashed, ranged): a compressed transfer would change them.
          const encoding = headers['content-encoding']?.trim().toLowerCase();
          if (encoding && encoding !== 'identity') throw new LoomError('UNSUPPORTED_MEDIA_TYPE', `Content-Encoding ${JSON.stringify(headers['content-encoding'])} is not accepted on ${decl.method} ${decl.path}: send the bytes uncompressed`);
        }
        let body: unknown;
        if (hasBody) {
          // A declared array bound (a batch's maxItems) is enforced while the text is scanned, before it is parsed.
          const maxItems = (decl.request?.body as { maxItems?: unknown } | undefined)?.maxItems;
          const bodyOptions = { ndjson: decl.ndjson === true, ...(typeof maxItems === 'number' ? { maxItems } : {}) };
          body = parseJsonBody(await readBody(decodedBody(request.payload as Readable, headers['content-encoding']), maxBodyBytes), headers['content-type'], invalidInput, bodyOptions);
          if (!decl.request?.body && body !== undefined) throw new LoomError(invalidInput, `${decl.method} ${decl.path} takes no request body`);
        }
        const input = new HandlerInput(
          validators.params ? validators.params(request.params) : request.params,
          validators.query ? validators.query(request.query) : request.query,
          validators.body ? validators.body(body) : body,
          validators.headers ? (validators.headers(headers) as typeof headers) : headers,
          raw ? limitedStream(request.payload as Readable, raw.maxBytes) : undefined,
          authRefusal,
          caller,
          remoteAddress,
          request.raw.res,
        );
        // A fold still loading its checkpoint after a start: wait for that fold and answer as if it had been
        // there. Not for a raw body, which the first run may have read.
        const result = raw ? await decl.handler(input, deps) : await whenFoldsLoaded(() => decl.handler(input, deps));
        if (result instanceof Reply) {
          const response = h.response((result.kind === 'empty' ? null : result.body) as never).code(result.status);
          for (const [name, value] of Object.entries(result.headers)) response.header(name, value);
          return response;
        }
        return h.response(result as never).code(status);
      },
    },
  };
}

export function mountRoutes(server: Server, catalog: RouteCatalog, containers: ReadonlyMap<string, DependencyContainer>, options: MountOptions): void {
  const limit = clientLimit(options);
  for (const { plugin, route } of catalog.all()) {
    const container = containers.get(plugin);
    if (!container) throw new Error(`no container for plugin ${plugin}`);
    server.route(toHapiRoute(route, container, options, limit));
  }
}
