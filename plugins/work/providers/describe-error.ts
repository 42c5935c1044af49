/** An error's message with its cause's code (ECONNRESET, UND_ERR_SOCKET) or message, which Node's fetch hides behind "terminated". */
export function describeError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = (error as { cause?: { code?: unknown; message?: unknown } }).cause;
  const detail = typeof cause?.code === 'string' ? cause.code : typeof cause?.message === 'string' ? cause.message : null;
  return detail ? `${error.message} (${detail})` : error.message;
}
