/**
 * Runs an action while another client asks GET /health back to back, and
 * reports the slowest /health answer seen meanwhile: a request that holds the
 * event loop shows up there, whatever its own answer says.
 */
import { get } from './http-server.js';

export interface Probed<T> {
  readonly result: T;
  /** The slowest /health round trip (ms) while the action ran. */
  readonly healthMaxMs: number;
  readonly healthAnswers: number;
}

export async function whileProbingHealth<T>(url: string, action: () => Promise<T>): Promise<Probed<T>> {
  let done = false;
  let healthMaxMs = 0;
  let healthAnswers = 0;
  const probe = (async () => {
    while (!done) {
      const started = performance.now();
      const answer = await get(url, '/health');
      if (answer.status !== 200) throw new Error(`/health answered ${answer.status}`);
      healthMaxMs = Math.max(healthMaxMs, performance.now() - started);
      healthAnswers++;
    }
  })();
  let result: T;
  try {
    result = await action();
  } finally {
    done = true;
    await probe;
  }
  return { result, healthMaxMs, healthAnswers };
}
