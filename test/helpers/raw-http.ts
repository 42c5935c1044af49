/**
 * HTTP over a bare TCP socket, for what fetch cannot send: oversized request
 * lines and headers, malformed requests, bodies that stop half way. The
 * answer is parsed as far as it goes (status, headers, body); `closedAfterMs`
 * says when the server closed the connection.
 */
import { connect, type Socket } from 'node:net';

export interface RawAnswer {
  /** 0 when the server closed without answering. */
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: string;
  readonly json: any;
  readonly closedAfterMs: number;
}

export function parseRaw(text: string, closedAfterMs: number): RawAnswer {
  const end = text.indexOf('\r\n\r\n');
  if (!text.startsWith('HTTP/1.1 ') || end === -1) return { status: 0, headers: {}, body: text, json: undefined, closedAfterMs };
  const [line, ...fields] = text.slice(0, end).split('\r\n');
  const headers: Record<string, string> = {};
  for (const field of fields) {
    const colon = field.indexOf(':');
    headers[field.slice(0, colon).trim().toLowerCase()] = field.slice(colon + 1).trim();
  }
  const body = text.slice(end + 4);
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    json = undefined;
  }
  return { status: Number(line!.split(' ')[1]), headers, body, json, closedAfterMs };
}

/** Opens a connection to `url`'s host and port. */
export function openSocket(url: string): Promise<Socket> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => resolve(socket));
    socket.once('error', reject);
  });
}

/** Reads until the server closes the socket (or `timeoutMs` passes), then parses what came. */
export function readUntilClosed(socket: Socket, timeoutMs = 10_000): Promise<RawAnswer> {
  const started = Date.now();
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => socket.destroy(), timeoutMs);
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', () => {});
    socket.once('close', () => {
      clearTimeout(timer);
      resolve(parseRaw(Buffer.concat(chunks).toString('utf8'), Date.now() - started));
    });
  });
}

/**
 * Sends `text`, then reads the answer until the server closes. The sending
 * side stays open: Node aborts a request whose client half-closes before the
 * answer, so a well-formed request should say `connection: close` instead.
 */
export async function rawRequest(url: string, text: string | Buffer, options: { timeoutMs?: number } = {}): Promise<RawAnswer> {
  const socket = await openSocket(url);
  const answer = readUntilClosed(socket, options.timeoutMs);
  socket.write(text);
  return answer;
}
