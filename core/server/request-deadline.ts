/**
 * The body deadline. Node's `headersTimeout` bounds the wait for a request's
 * headers; once they are in, the body gets `timeoutMs` plus one second for
 * every `minBytesPerSecond` bytes received. A client that trickles a body
 * cannot stretch the deadline by sending a byte now and then (only data
 * at the minimum rate buys time, and then at most `maxBytes / rate`), while
 * a large upload at a reasonable rate (an import, a data chunk) is never
 * cut. Node's `requestTimeout` cannot do this: it is one figure for the
 * whole server, so it would either cut imports or let a trickle hold a
 * connection for minutes.
 *
 * Only requests whose body is still arriving are timed. Answers the server
 * holds open on purpose (thread watches, the continuous changes feed, long
 * polls) are GET requests complete on arrival, so no deadline ever applies
 * to them. Past the deadline the client hears `408 REQUEST_TIMEOUT` when
 * nothing was answered yet, and the connection is closed either way.
 */
import type { Server } from '@hapi/hapi';
import { refuseOnSocket } from './socket-refusal.js';

export interface RequestDeadline {
  /** Time a body may take, from its headers, before the rate allowance. In ms. */
  readonly timeoutMs: number;
  /** Each this many bytes received adds one second. 0 for a fixed deadline. In bytes per second. */
  readonly minBytesPerSecond: number;
}

export function installRequestDeadline(server: Server, deadline: RequestDeadline): void {
  if (deadline.timeoutMs <= 0) return;
  server.ext('onRequest', (request, h) => {
    const req = request.raw.req;
    if (req.complete) return h.continue;
    const socket = req.socket;
    const started = Date.now();
    const bytesAtStart = socket.bytesRead;
    let timer: NodeJS.Timeout;
    const check = () => {
      if (req.complete || socket.destroyed) return;
      const earned = deadline.minBytesPerSecond > 0 ? ((socket.bytesRead - bytesAtStart) / deadline.minBytesPerSecond) * 1000 : 0;
      const left = started + deadline.timeoutMs + earned - Date.now();
      if (left > 0) {
        timer = setTimeout(check, left).unref();
        return;
      }
      refuseOnSocket(socket, 'REQUEST_TIMEOUT', `the request body did not arrive in time (${deadline.timeoutMs} ms, plus 1 s per ${deadline.minBytesPerSecond} bytes received); the connection is closed`);
    };
    timer = setTimeout(check, deadline.timeoutMs).unref();
    const clear = () => clearTimeout(timer);
    req.once('end', clear);
    req.once('close', clear);
    return h.continue;
  });
}
