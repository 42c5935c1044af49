/**
 * The listener's `clientError` handler: what the HTTP parser and Node's
 * deadlines refuse, answered in the envelope instead of Node's (or Hapi's)
 * bare `400 Bad Request` with no body. It replaces Hapi's handler, which
 * writes that bare line whenever no request was dispatched yet.
 *
 * - Header block over the parser's limit (`HPE_HEADER_OVERFLOW`, llhttp's one
 *   code for the request line and the headers): `414 URI_TOO_LONG` when the
 *   packet the parser stopped in begins a request whose first line alone is
 *   over the limit, else `431 HEADERS_TOO_LARGE`. The parser does not say
 *   which part overflowed; a URL split across many small packets is answered
 *   431, still a refusal in the envelope.
 * - Headers or body not received in time (`ERR_HTTP_REQUEST_TIMEOUT`): `408 REQUEST_TIMEOUT`.
 * - Chunk extensions over Node's limit: `413 PAYLOAD_TOO_LARGE`.
 * - Any other parser error (malformed request line, header, chunk framing): `400 MALFORMED_REQUEST`.
 * - Socket errors (a reset, a broken pipe): closed without an answer.
 */
import { maxHeaderSize as NODE_MAX_HEADER_SIZE, type Server as HttpServer } from 'node:http';
import type { Socket } from 'node:net';
import type { ErrorCode } from '../errors/codes.js';
import type { Logger } from '../plugin/logger.js';
import { refuseOnSocket } from './socket-refusal.js';

interface ParserError extends Error {
  code?: string;
  rawPacket?: Buffer;
}

/** The request line alone fills the packet past the limit: nothing but a URL can make a request line that long. */
function requestLineOverflows(packet: Buffer | undefined, maxHeaderSize: number): boolean {
  if (!Buffer.isBuffer(packet) || packet.length <= maxHeaderSize) return false;
  if (!/^[A-Z]{3,10} \S/.test(packet.subarray(0, 16).toString('latin1'))) return false;
  const lineEnd = packet.indexOf(0x0a);
  return lineEnd === -1 || lineEnd > maxHeaderSize;
}

function refusalOf(error: ParserError, maxHeaderSize: number): { code: ErrorCode; message: string } | null {
  switch (error.code) {
    case 'HPE_HEADER_OVERFLOW':
      return requestLineOverflows(error.rawPacket, maxHeaderSize)
        ? { code: 'URI_TOO_LONG', message: `the request line is longer than the server accepts (${maxHeaderSize} bytes for the request line and headers together); send long queries in a POST body` }
        : { code: 'HEADERS_TOO_LARGE', message: `the request line and headers are larger than the server accepts (${maxHeaderSize} bytes)` };
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return { code: 'REQUEST_TIMEOUT', message: 'the request was not received in time; the connection is closed' };
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return { code: 'PAYLOAD_TOO_LARGE', message: 'chunk extensions are larger than the server accepts' };
    default:
      if (error.code?.startsWith('HPE_')) return { code: 'MALFORMED_REQUEST', message: `the request is not well-formed HTTP/1.1 (${error.code})` };
      return null;
  }
}

export function installClientErrorHandler(listener: HttpServer, log: Logger, maxHeaderSize = NODE_MAX_HEADER_SIZE): void {
  listener.removeAllListeners('clientError');
  listener.on('clientError', (error: ParserError, socket: Socket) => {
    const refusal = refusalOf(error, maxHeaderSize);
    if (!refusal) {
      socket.destroy();
      return;
    }
    // One line per refusal, like the access log: the code and the address, never the bytes sent.
    log.log('info', 'client error', { code: refusal.code, parser_code: error.code, remote: socket.remoteAddress });
    refuseOnSocket(socket, refusal.code, refusal.message);
  });
}
