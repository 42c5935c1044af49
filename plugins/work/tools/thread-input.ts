/** A tool's thread input: the schema the model reads, and the check the thread routes make. */
import { Type } from 'typebox';
import { LoomError } from '../../../core/errors/loom-error.js';
import { isThreadId } from '../../../core/records/thread-id.js';

export const ThreadField = Type.String({ minLength: 1, maxLength: 80, description: 'A thread id: th_ and 64 lowercase hex digits, or a reserved thread.' });

/** INVALID_SHAPE for what cannot be a thread id, as the thread routes answer, so a typo does not read as an empty thread. */
export function checkThread(thread: string, field = 'thread'): string {
  if (!isThreadId(thread)) throw new LoomError('INVALID_SHAPE', `${field} ${JSON.stringify(thread)} is not a thread id (th_ + 64 lowercase hex, or a reserved thread)`);
  return thread;
}
