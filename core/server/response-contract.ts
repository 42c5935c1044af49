/**
 * Test-time response checking (fastify's response schemas, as a check):
 * every answer of a declared route must use a status the route declares
 * and, for JSON bodies, match the schema declared for that status; a refusal
 * must carry a code the route declares (its `errors`, the codes its auth
 * adds, or one any route may answer). A violation replaces the answer with
 * 500 INTERNAL naming it, so a test that exercises the route fails.
 *
 * On in `npm test` (LOOM_CHECK_RESPONSES=1, inherited by the servers tests
 * spawn) and wherever `LoomOptions.checkResponses` is set; off in production,
 * where it would only cost time.
 */
import type { Request, ResponseToolkit, Server } from '@hapi/hapi';
import { Value } from 'typebox/value';
import type { Logger } from '../plugin/logger.js';
import type { AnyRouteDecl } from '../plugin/route.js';
import type { RouteCatalog } from '../plugin/route-catalog.js';

/** Codes any route may answer: a crash, an overloaded or stopping server, the per-client limit. */
const ANY_ROUTE = new Set(['INTERNAL', 'SERVICE_UNAVAILABLE', 'RATE_LIMITED']);

/** What is wrong with an answer of `route`, or null. */
export function responseViolation(route: AnyRouteDecl, status: number, body: unknown, contentType: string | null, authErrors: readonly string[] = []): string | null {
  if (status >= 400) {
    const code = body !== null && typeof body === 'object' ? (body as { code?: unknown }).code : undefined;
    if (typeof code !== 'string') return `${route.operationId} answered ${status} without an error envelope`;
    if (ANY_ROUTE.has(code) || route.errors.includes(code as never) || authErrors.includes(code)) return null;
    return `${route.operationId} answered ${status} ${code}, which it does not declare (errors: ${[...route.errors, ...authErrors].join(', ') || 'none'})`;
  }
  const declared = route.responses[status];
  if (!declared) return `${route.operationId} answered ${status}, which it does not declare (responses: ${Object.keys(route.responses).join(', ')})`;
  if (!declared.schema) return null;
  let value = body;
  if (typeof body === 'string') {
    // A JSON body written as text (a page from stored record text) is checked as the JSON it is.
    if (!contentType?.startsWith('application/json')) return null;
    try {
      value = JSON.parse(body);
    } catch {
      return `${route.operationId} answered ${status} with text that is not JSON under Content-Type ${contentType}`;
    }
  } else if (body === null || typeof body !== 'object' || typeof (body as { pipe?: unknown }).pipe === 'function') {
    return null;
  }
  if (Value.Check(declared.schema, value)) return null;
  const first = [...Value.Errors(declared.schema, value)][0];
  return `${route.operationId} answered ${status} with a body its schema refuses: ${first ? `${first.instancePath || '/'} ${first.message}` : 'no detail'}`;
}

export function installResponseCheck(server: Server, log: Logger, catalog: RouteCatalog): void {
  server.ext('onPreResponse', (request: Request, h: ResponseToolkit) => {
    const route = (request.route?.settings?.plugins as { loom?: AnyRouteDecl } | undefined)?.loom;
    const response = request.response as { statusCode?: number; source?: unknown; headers?: Record<string, unknown>; isBoom?: boolean } | null;
    if (!route || !response || response.isBoom) return h.continue;
    const contentType = typeof response.headers?.['content-type'] === 'string' ? (response.headers['content-type'] as string) : null;
    const violation = responseViolation(route, response.statusCode ?? 200, response.source, contentType ?? (typeof response.source === 'object' ? 'application/json' : null), catalog.authErrors(route));
    if (violation === null) return h.continue;
    log.log('error', 'response contract violated', { route: route.operationId, violation });
    return h.response({ object: 'error', code: 'INTERNAL', message: `response contract: ${violation}` }).code(500).takeover();
  });
}
