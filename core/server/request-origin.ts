/**
 * The origin a client reached this server at: the Host header (or a proxy's
 * X-Forwarded-Host), with https when a proxy says so through
 * X-Forwarded-Proto. Used to write absolute URLs a client follows (a 401's
 * resource_metadata, the Protected Resource Metadata document); null when
 * the header is absent or not a plain host[:port].
 */
const HOST = /^[A-Za-z0-9.-]+(?::\d{1,5})?$|^\[[0-9A-Fa-f:.]+\](?::\d{1,5})?$/;

export function requestOrigin(headers: Readonly<Record<string, string | undefined>>): string | null {
  const host = headers['x-forwarded-host'] ?? headers['host'];
  if (!host || !HOST.test(host)) return null;
  const proto = headers['x-forwarded-proto'] === 'https' ? 'https' : 'http';
  return `${proto}://${host}`;
}
