/** A usage or client error the CLI prints as one line, never as a stack trace. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode = 2,
    /**
     * The code `--json` prints in its error envelope: the server's (SCOPE_FORBIDDEN …),
     * `UNREACHABLE` when no server answered, else `USAGE` (exit 2) or `FAILED`.
     */
    readonly code: string = exitCode === 2 ? 'USAGE' : 'FAILED',
    /** The HTTP status of a server refusal. */
    readonly status?: number,
  ) {
    super(message);
    this.name = 'CliError';
  }
}

/** How a network failure reads to an operator: the address and the cause in words. */
export function unreachableMessage(url: string, error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } })?.cause;
  const code = cause?.code ?? (error as { code?: string })?.code;
  const words: Record<string, string> = {
    ECONNREFUSED: 'connection refused: nothing listens there (is loom serve running? check --url or LOOM_URL)',
    ENOTFOUND: 'the host name does not resolve',
    EAI_AGAIN: 'the host name could not be resolved right now',
    ETIMEDOUT: 'the connection timed out',
    ECONNRESET: 'the connection was reset',
    EHOSTUNREACH: 'the host is unreachable',
    UND_ERR_CONNECT_TIMEOUT: 'the connection timed out',
  };
  const detail = code ? `${words[code] ?? cause?.message ?? code} (${code})` : (cause?.message ?? (error as Error)?.message ?? String(error));
  return `cannot reach ${url}: ${detail}`;
}
