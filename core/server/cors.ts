/**
 * CORS through Hapi's own support: it answers preflights and writes the
 * headers. This narrows it to the origins the CorsPolicy allows, read per
 * request so a configuration change applies to the next request: for a
 * routed request it marks the origin as not matching (Hapi then writes no
 * CORS headers), and for a preflight it removes the headers Hapi's preflight
 * handler wrote.
 */
import type { Request, ResponseToolkit, Server } from '@hapi/hapi';
import type { CorsPolicy } from '../access/cors-policy.js';

function refused(request: Request, policy: () => CorsPolicy | null): boolean {
  const origin = request.headers['origin'];
  const current = policy();
  return typeof origin === 'string' && current !== null && !current.allows(origin);
}

export function installCors(server: Server, policy: () => CorsPolicy | null): void {
  server.ext('onPreAuth', (request: Request, h: ResponseToolkit) => {
    const info = request.info as { cors?: { isOriginMatch: boolean } | null };
    if (info.cors && refused(request, policy)) info.cors.isOriginMatch = false;
    return h.continue;
  });
  server.ext('onPreResponse', (request: Request, h: ResponseToolkit) => {
    if (request.method !== 'options' || !refused(request, policy)) return h.continue;
    const response = request.response as { headers?: Record<string, unknown> } | null;
    for (const name of Object.keys(response?.headers ?? {})) if (name.toLowerCase().startsWith('access-control-')) delete response!.headers![name];
    return h.continue;
  });
}
