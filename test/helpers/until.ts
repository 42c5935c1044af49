/**
 * Polls `probe` until it answers something truthy, and answers that; past
 * `timeoutMs` it fails naming what it waited for. For tests that watch a
 * server (or two) reach a state they cannot be told about.
 */
export async function until<T>(what: string, timeoutMs: number, probe: () => Promise<T | null | undefined | false>, everyMs = 25): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}
