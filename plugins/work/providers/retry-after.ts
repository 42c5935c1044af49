/**
 * How long a vendor asked us to wait, in ms, from its response headers:
 * `retry-after-ms` (Anthropic's and OpenAI's SDKs honour it first), then
 * `retry-after` as seconds (fractions allowed) or as an HTTP date. Null when
 * absent or unreadable; never negative.
 */

export interface HeaderSource {
  get(name: string): string | null;
}

export function retryAfterMs(headers: HeaderSource | null | undefined, now: number = Date.now()): number | null {
  if (!headers) return null;
  const ms = headers.get('retry-after-ms');
  if (ms !== null && ms.trim() !== '' && Number.isFinite(Number(ms))) return Math.max(0, Math.round(Number(ms)));
  const value = headers.get('retry-after')?.trim();
  if (!value) return null;
  if (/^\d+(\.\d+)?$/.test(value)) return Math.round(Number(value) * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}
