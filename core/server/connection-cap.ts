/**
 * At most `max` open connections per remote address. A connection past the
 * cap is not counted; its first request is answered `429
 * TOO_MANY_CONNECTIONS` in the envelope with `connection: close` (through
 * Hapi, so the client reads a whole answer after sending its request), and a
 * connection that sends nothing is closed after a short grace. The count
 * lives only as long as the connections do, so its memory is bounded by the
 * open sockets. Behind a reverse proxy every client shares the proxy's
 * address: raise the cap there (or set 0 to turn it off).
 */
import type { Server as HttpServer } from 'node:http';
import type { Socket } from 'node:net';
import type { Server } from '@hapi/hapi';
import { LoomError } from '../errors/loom-error.js';
import { retryAfterSeconds } from './error-envelope.js';

/** How long a connection over the cap may take to send its request before it is closed unanswered. */
const GRACE_MS = 2000;

export function installConnectionCap(listener: HttpServer, server: Server, max: number): void {
  if (max <= 0) return;
  const open = new Map<string, number>();
  const over = new WeakSet<Socket>();
  listener.on('connection', (socket: Socket) => {
    const address = socket.remoteAddress ?? '';
    const count = open.get(address) ?? 0;
    if (count >= max) {
      over.add(socket);
      setTimeout(() => socket.destroy(), GRACE_MS).unref();
      return;
    }
    open.set(address, count + 1);
    socket.once('close', () => {
      const left = (open.get(address) ?? 1) - 1;
      if (left > 0) open.set(address, left);
      else open.delete(address);
    });
  });
  server.ext('onRequest', (request, h) => {
    if (!over.has(request.raw.req.socket)) return h.continue;
    const refusal = new LoomError('TOO_MANY_CONNECTIONS', `more than ${max} connections are open from this address; reuse one (keep-alive) or close some and retry`, { retry_after_ms: 1000 });
    const envelope = refusal.toEnvelope();
    return h.response(envelope).code(refusal.status).header('connection', 'close').header('retry-after', retryAfterSeconds(envelope)).takeover();
  });
}
