/**
 * Which browser origins may call the MCP endpoint (Streamable HTTP: Origin
 * validation is a MUST, against DNS rebinding). A request without Origin
 * (every non-browser client) passes. A present Origin passes when it is
 * configured (`allowedOrigins`, exact `scheme://host[:port]`), or when it
 * is this server's own loopback origin: a localhost/127.0.0.1/[::1] origin
 * whose host equals the request's Host. A rebinding page has its own name
 * in both Origin and Host, which is not a loopback name, so it is refused;
 * a Host-derived same-origin for any name would let it through.
 */
const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

export function originAllowed(origin: string, host: string | undefined, configured: readonly string[]): boolean {
  if (configured.includes(origin)) return true;
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return false;
  if (!LOOPBACK.has(url.hostname)) return false;
  return host !== undefined && url.host === host.toLowerCase();
}
