/** The `{id}` of thread routes: a derived or reserved thread id. */
import { Type } from 'typebox';
import { LoomError } from '../../core/errors/loom-error.js';
import { isThreadId } from '../../core/records/thread-id.js';

export const ThreadParams = Type.Object({ id: Type.String({ maxLength: 80, description: 'th_ + 64 hex, or a reserved thread id.' }) });

export function checkThreadId(id: string, where = 'params.id'): string {
  if (!isThreadId(id)) throw new LoomError('INVALID_SHAPE', `${where}: ${JSON.stringify(id)} is not a thread id (th_ + 64 lowercase hex, or a reserved thread)`);
  return id;
}
