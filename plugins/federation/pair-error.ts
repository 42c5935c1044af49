/**
 * Why a pull failed, as a pair's `last_error`: a stable code (the prior
 * art's CONNECT_REFUSED, TIMEOUT, DNS_FAILURE, HTTP_4XX, HTTP_5XX,
 * PARSE_ERROR, plus what this side detects: SIGNATURE_INVALID and TAMPERED
 * (altered in transit), UNREQUESTED_PAGE (a genuine page that does not
 * answer this request: replayed or skipped ahead), RECORD_REFUSED (a signed
 * record this instance will not store, which holds the cursor), NO_PROGRESS
 * (a pull that moved nothing) and the manifest checks) and a message.
 */
export type PairErrorCode =
  | 'CONNECT_REFUSED'
  | 'TIMEOUT'
  | 'DNS_FAILURE'
  | 'HTTP_4XX'
  | 'HTTP_5XX'
  | 'PARSE_ERROR'
  | 'SIGNATURE_INVALID'
  | 'TAMPERED'
  | 'UNREQUESTED_PAGE'
  | 'RECORD_REFUSED'
  | 'NO_PROGRESS'
  | 'MANIFEST_INVALID'
  | 'MANIFEST_EXPIRED'
  | 'MANIFEST_DID_MISMATCH'
  | 'NO_PEER_TOKEN'
  // The peer's key rotation (keys/peer-keys.ts): a forged chain, or a previous key past its expired_ts.
  | 'KEY_CHAIN_INVALID'
  | 'KEY_EXPIRED'
  | 'INTERNAL';

export class PairError extends Error {
  /** The peer's HTTP status, for HTTP_4XX/HTTP_5XX (a 401 means the peer refuses this side's token). */
  constructor(readonly code: PairErrorCode, message: string, readonly status: number | null = null) {
    super(message);
    this.name = 'PairError';
  }
}

/** Classifies anything a pull threw. Messages never include the peer bearer. */
export function pairErrorOf(error: unknown, timedOut: boolean): PairError {
  if (error instanceof PairError) return error;
  if (timedOut) return new PairError('TIMEOUT', 'the peer did not answer in time');
  const cause = (error as { cause?: { code?: string; message?: string } })?.cause;
  switch (cause?.code) {
    case 'ECONNREFUSED':
      return new PairError('CONNECT_REFUSED', `connection refused (${cause.message ?? 'ECONNREFUSED'})`);
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return new PairError('DNS_FAILURE', `the peer's host name does not resolve (${cause.code})`);
    case 'ECONNRESET':
    case 'UND_ERR_SOCKET':
    case 'EPIPE':
      return new PairError('CONNECT_REFUSED', `the connection was reset (${cause.code})`);
    case 'UND_ERR_HEADERS_TIMEOUT':
    case 'UND_ERR_BODY_TIMEOUT':
    case 'ETIMEDOUT':
      return new PairError('TIMEOUT', `the peer did not answer in time (${cause.code})`);
  }
  if (error instanceof SyntaxError) return new PairError('PARSE_ERROR', `the peer's answer is not valid JSON: ${error.message}`);
  return new PairError('INTERNAL', (error as Error)?.message ?? String(error));
}
