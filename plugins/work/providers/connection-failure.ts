/**
 * Whether an error thrown out of a vendor client is the connection failing
 * (refused, reset, closed mid-answer) rather than the vendor answering.
 * Node's fetch reports these as `TypeError: fetch failed` (before the
 * response) or `TypeError: terminated` (mid-body), with the socket error as
 * the cause; the SDKs wrap the first as APIConnectionError. The cause chain
 * is walked, since each layer wraps the last.
 */

const CODES = new Set(['ECONNRESET', 'ECONNREFUSED', 'ECONNABORTED', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED', 'UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);
const NAMES = new Set(['APIConnectionError', 'APIConnectionTimeoutError']);

export function isConnectionFailure(error: unknown): boolean {
  for (let e: unknown = error, depth = 0; e && depth < 6; e = (e as { cause?: unknown }).cause, depth++) {
    const { code, name, message } = e as { code?: unknown; name?: unknown; message?: unknown };
    if (typeof code === 'string' && CODES.has(code)) return true;
    if (typeof name === 'string' && NAMES.has(name)) return true;
    if (name === 'TypeError' && (message === 'terminated' || message === 'fetch failed')) return true;
  }
  return false;
}
