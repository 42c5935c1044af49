import { LoomError } from './loom-error.js';

/**
 * For tests and callers that expect a refusal: awaits `promise` and returns
 * the LoomError it was refused with. Throws if it resolved, and rethrows any
 * other failure unchanged.
 */
export async function refusalOf(promise: Promise<unknown>): Promise<LoomError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof LoomError) return error;
    throw error;
  }
  throw new Error('expected a refusal (a LoomError), but the call succeeded');
}

/** The same for a synchronous call: runs `run` and returns the LoomError it threw. */
export function refusalOfSync(run: () => unknown): LoomError {
  try {
    run();
  } catch (error) {
    if (error instanceof LoomError) return error;
    throw error;
  }
  throw new Error('expected a refusal (a LoomError), but the call succeeded');
}
