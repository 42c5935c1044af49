/**
 * A refusal written straight onto a socket, for the cases no Hapi request can
 * answer: the HTTP parser gave up (an oversized URL or header block, a
 * malformed request line), a body or header deadline passed, a client is over
 * its connection cap. The answer is a complete HTTP/1.1 response in the one
 * envelope (`content-type: application/json`, `connection: close`), written
 * only when the socket is writable and nothing of another response was sent
 * (Node's own rule for its default reply: never corrupt a response in
 * flight). The socket is then ended and, if the client keeps sending,
 * destroyed shortly after, so a refusal never holds a connection.
 */
import type { Socket } from 'node:net';
import { STATUS_CODES } from 'node:http';
import type { ErrorCode } from '../errors/codes.js';
import { LoomError } from '../errors/loom-error.js';

/** How long a refused socket may linger after its answer (for the client to read it) before it is destroyed. */
const LINGER_MS = 1000;

export function refusalBytes(code: ErrorCode, message: string): Buffer {
  const error = new LoomError(code, message);
  const body = JSON.stringify(error.toEnvelope());
  const head =
    `HTTP/1.1 ${error.status} ${STATUS_CODES[error.status] ?? 'Error'}\r\n` +
    'content-type: application/json; charset=utf-8\r\n' +
    `content-length: ${Buffer.byteLength(body)}\r\n` +
    'cache-control: no-store\r\n' +
    'connection: close\r\n\r\n';
  return Buffer.from(head + body, 'utf8');
}

/** Whether an answer can still be written: the socket is open and no response on it has begun. */
export function canAnswer(socket: Socket): boolean {
  const inFlight = (socket as Socket & { _httpMessage?: { headersSent?: boolean } | null })._httpMessage;
  return socket.writable && !socket.destroyed && !inFlight?.headersSent;
}

/** Answers `code` on the socket when it can, then closes it (a plain close when nothing can be written). */
export function refuseOnSocket(socket: Socket, code: ErrorCode, message: string): void {
  if (canAnswer(socket)) {
    socket.end(refusalBytes(code, message));
    setTimeout(() => socket.destroy(), LINGER_MS).unref();
  } else {
    socket.destroy();
  }
}
