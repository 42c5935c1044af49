/**
 * Preloaded (`node --expose-gc --import <this file>`) into a `loom serve`
 * a test starts, so the test can ask for a full garbage collection and read
 * the memory that is left: on SIGUSR2 it collects twice and writes
 * `memory <process.memoryUsage() as JSON>` to stderr. Test-only; nothing in
 * the server knows about it.
 */
process.on('SIGUSR2', () => {
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  gc?.();
  process.stderr.write(`memory ${JSON.stringify({ ...process.memoryUsage(), collected: gc !== undefined })}\n`);
});
