/**
 * Disk errors as refusals: a full disk or exhausted quota on the volume is
 * 507 STORAGE_FULL (retry when space is freed), anything else is left to the
 * error envelope as INTERNAL with the cause in the log.
 */
import { LoomError } from '../../core/errors/loom-error.js';

const FULL = new Set(['ENOSPC', 'EDQUOT', 'EFBIG']);

export function storageError(error: unknown): unknown {
  if (error instanceof LoomError) return error;
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code && FULL.has(code)) return new LoomError('STORAGE_FULL', `the instance's disk is full (${code}): nothing was stored; retry when space is freed`);
  return error;
}
