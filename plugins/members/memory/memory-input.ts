/**
 * A memory request checked before anything is written: the three required
 * fields named when missing (400 MISSING_FIELD), everything else against
 * the schema (422 INVALID_BODY), then what a schema cannot say (a blank
 * name, a source thread that is no thread id).
 */
import { LoomError } from '../../../core/errors/loom-error.js';
import type { ErrorCode } from '../../../core/errors/codes.js';
import { isThreadId } from '../../../core/records/thread-id.js';
import { compileValidator } from '../../../core/server/validators.js';
import { MemoryInputSchema, memoryFields, type MemoryFields, type MemoryInput } from './memory.js';

const validate = compileValidator('body', MemoryInputSchema, 'INVALID_BODY');
const REQUIRED = ['name', 'memory_type', 'description'] as const;

/** What is wrong with checked fields beyond the schema, or null. */
export function memoryProblem(fields: MemoryFields): string | null {
  if (fields.name === '') return 'name must not be blank';
  if (fields.source_thread !== null && !isThreadId(fields.source_thread)) return `source_thread ${JSON.stringify(fields.source_thread)} is not a thread id`;
  return null;
}

/** The fields of a POST body, or the refusal. */
export function memoryFromRequest(raw: unknown): MemoryFields {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) throw new LoomError('INVALID_BODY', 'the body must be a JSON object');
  const body = raw as Record<string, unknown>;
  for (const field of REQUIRED) {
    if (body[field] === undefined || (typeof body[field] === 'string' && body[field].trim() === '')) throw new LoomError('MISSING_FIELD', `${field} is required and must not be blank`);
  }
  return checked(memoryFields(validate(body) as MemoryInput), 'INVALID_BODY');
}

export function checked(fields: MemoryFields, code: ErrorCode, where = ''): MemoryFields {
  const problem = memoryProblem(fields);
  if (problem !== null) throw new LoomError(code, `${where}${problem}`);
  return fields;
}
