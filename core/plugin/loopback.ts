/**
 * In-process requests through the whole HTTP surface: the same router,
 * authentication, scope gate, validation, read policies, error envelope and
 * response checks a network client meets, without a socket. A plugin that
 * answers on behalf of a client (the MCP tool server, plugins/mcp) calls an
 * operation this way with the client's own Authorization header, so the
 * operation runs as that client and nothing is re-implemented beside it.
 * The header never leaves the process.
 *
 * Attached once the server is built (plugins register before it exists);
 * a request before that is a programming error.
 */
import { token } from '../di/token.js';

export interface LoopbackRequest {
  readonly method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Path and query, e.g. `/v1/work/loop/th_…`. */
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  /** A JSON body, sent as application/json. */
  readonly body?: unknown;
}

export interface LoopbackResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  /** The body as text (JSON answers are parsed by the caller). */
  readonly text: string;
}

export class Loopback {
  private send: ((request: LoopbackRequest) => Promise<LoopbackResponse>) | null = null;

  /** Called once by createLoom when the server exists. */
  attach(send: (request: LoopbackRequest) => Promise<LoopbackResponse>): void {
    this.send = send;
  }

  request(request: LoopbackRequest): Promise<LoopbackResponse> {
    if (!this.send) throw new Error('the loopback is used before the server was built');
    return this.send(request);
  }
}

export const LoopbackToken = token<Loopback>('core.Loopback');
