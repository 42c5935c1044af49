/**
 * Thrown by Loom's own stream readers when an answer breaks its vendor's
 * protocol (events out of order, no terminator, a line that is not JSON);
 * the adapters report it as `malformed_response`.
 */
export class MalformedStreamError extends Error {
  override readonly name = 'MalformedStreamError';
}
