/**
 * Thrown by a synchronous read of a global fold whose checkpoint is still
 * loading in the background (./fold-engine.ts, `lazyCheckpointBytes`). It is
 * a 503 wherever nobody waits; the route layer waits for `loaded` and runs the
 * handler again, so a request that needs the fold waits for that fold only.
 */
import { LoomError } from '../errors/loom-error.js';

export class FoldLoadingError extends LoomError {
  constructor(
    readonly fold: string,
    /** Resolves once the fold is loaded and caught up with the log; rejects if the server stops first. */
    readonly loaded: Promise<void>,
  ) {
    super('SERVICE_UNAVAILABLE', `fold ${fold} is still loading its checkpoint after a start; retry shortly`);
  }
}

/** Runs `work` again each time it failed only because a fold was still loading, once that fold has loaded. */
export async function whenFoldsLoaded<T>(work: () => T | Promise<T>): Promise<T> {
  for (;;) {
    try {
      return await work();
    } catch (error) {
      if (!(error instanceof FoldLoadingError)) throw error;
      await error.loaded;
    }
  }
}
