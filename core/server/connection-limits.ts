/**
 * What a client may hold of the server: deadlines for its headers, its body
 * and the idle time between its requests, and how many connections one
 * address may have open. Defaults suit a public bind; every figure is a
 * LoomOptions member and a `loom serve` flag.
 */
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';

export interface ConnectionLimits {
  /** Time to receive a request's line and headers (Node's `headersTimeout`), in ms; past it 408. @default 15000 */
  readonly headersTimeoutMs: number;
  /** Time a body may take once the headers are in, before its rate allowance (core/server/request-deadline.ts), in ms; 0 for none. @default 30000 */
  readonly requestTimeoutMs: number;
  /** Each this many body bytes received extends the body deadline by one second. @default 16384 */
  readonly minBodyBytesPerSecond: number;
  /** Idle time a kept-alive connection waits for its next request (Node's `keepAliveTimeout`), in ms. @default 5000 */
  readonly keepAliveTimeoutMs: number;
  /** Connections one remote address may hold open; 0 for no cap. @default 256 */
  readonly maxConnectionsPerClient: number;
}

export const DEFAULT_CONNECTION_LIMITS: ConnectionLimits = {
  headersTimeoutMs: 15_000,
  requestTimeoutMs: 30_000,
  minBodyBytesPerSecond: 16 * 1024,
  keepAliveTimeoutMs: 5_000,
  maxConnectionsPerClient: 256,
};

/**
 * The Node listener Hapi serves on. Node's own `requestTimeout` stays off: it
 * is one figure for every route, and the body deadline is Loom's. Node checks
 * header deadlines every `connectionsCheckingInterval` (30 s by default, which
 * is how a 300 s deadline became 329 s); here it is a quarter of the deadline,
 * at most a second.
 */
export function createListener(limits: ConnectionLimits): HttpServer {
  return createHttpServer({
    headersTimeout: limits.headersTimeoutMs,
    requestTimeout: 0,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    connectionsCheckingInterval: Math.max(25, Math.min(1000, Math.floor(limits.headersTimeoutMs / 4))),
  });
}
