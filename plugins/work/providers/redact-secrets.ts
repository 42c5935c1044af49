/**
 * Keeps provider keys out of every message Loom keeps or shows. Vendors
 * echo keys back: OpenAI's 401 quotes the key masked to its first three and
 * last four characters, and some OpenAI-compatible servers quote it whole.
 * So both the key itself and any masked token (a run of three or more `*`)
 * become `[redacted]`.
 */

const MASKED_TOKEN = /\S*\*{3,}\S*/g;

export function redactSecrets(text: string, secrets: readonly (string | null | undefined)[]): string {
  let out = text;
  for (const secret of secrets) {
    // Short values (a placeholder, an empty key) are not secrets, and redacting them would mangle ordinary words.
    if (secret && secret.length >= 8) out = out.split(secret).join('[redacted]');
  }
  return out.replace(MASKED_TOKEN, '[redacted]');
}
