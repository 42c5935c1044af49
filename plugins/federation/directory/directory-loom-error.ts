/** A DirectoryError as the LoomError the routes and the gate answer with: same code, the field in details. */
import { LoomError } from '../../../core/errors/loom-error.js';
import { DirectoryError } from './directory-error.js';

export function asLoomError(error: unknown): unknown {
  if (!(error instanceof DirectoryError)) return error;
  return new LoomError(error.code, error.message, error.field === null ? undefined : { field: error.field });
}

/** Runs `work`, rethrowing a DirectoryError as its LoomError. */
export function directoryCall<T>(work: () => T): T {
  try {
    return work();
  } catch (error) {
    throw asLoomError(error);
  }
}
