/**
 * Ingest validation (spec §2.1 "Validation at ingest"), pure. Every failure
 * names the field and the rule, so the INVALID_SHAPE message tells a client
 * exactly what to fix. Namespace narrowing is not here: it needs the registry
 * and lives in the engine.
 */
import { ACTS, isAct } from './acts.js';
import { DATA_TYPES, isDataType } from './data-types.js';
import { didSyntaxError } from './did-syntax.js';
import { isJsonObject, type JsonObject } from './json.js';
import { RECORD_ID_PATTERN } from './record-id.js';
import type { RecordFields } from './record.js';
import { RESERVED_THREADS } from './reserved-threads.js';
import { isThreadId } from './thread-id.js';

/** Highest clock accepted: clocks above 2^53-1 cannot pass through JSON in JS exactly, so they are refused. */
export const MAX_CLOCK = Number.MAX_SAFE_INTEGER;
/** The spec's full i64 range, reported in messages. */
export const I64_MAX = '9223372036854775807';
export const MAX_PARENTS = 1000;
export const MAX_BODY_DEPTH = 64;
export const MAX_JUDGED_BY_LENGTH = 512;

const LONE_SURROGATE = /[\uD800-\uDFFF]/u;

const ALLOWED_KEYS = new Set(['parents', 'thread', 'actor', 'act', 'body', 'clock', 'data_type', 'judged_by', 'id']);

export type RecordValidation =
  | { ok: true; fields: RecordFields; claimedId: string | undefined }
  | { ok: false; field: string; message: string };

function fail(field: string, rule: string): RecordValidation {
  return { ok: false, field, message: `${field}: ${rule}` };
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return `the string ${JSON.stringify(value.length > 80 ? value.slice(0, 77) + '...' : value)}`;
  if (typeof value === 'number') return `the number ${value}`;
  return `a ${typeof value}`;
}

function bodyDepthExceeds(body: JsonObject, limit: number): boolean {
  const stack: Array<[unknown, number]> = [[body, 1]];
  while (stack.length > 0) {
    const [value, depth] = stack.pop()!;
    if (typeof value !== 'object' || value === null) continue;
    if (depth > limit) return true;
    for (const member of Array.isArray(value) ? value : Object.values(value)) {
      if (typeof member === 'object' && member !== null) stack.push([member, depth + 1]);
    }
  }
  return false;
}

export function validateRecordInput(input: unknown): RecordValidation {
  if (!isJsonObject(input)) return fail('record', `must be a JSON object with the record fields, got ${describe(input)}`);
  for (const key of Object.keys(input)) {
    if (!ALLOWED_KEYS.has(key)) return fail(key, 'is not a record field (a record has exactly parents, thread, actor, act, body, clock, data_type, judged_by)');
  }

  // parents and judged_by may be omitted: the spec's ingest examples omit both (docs/decisions.md).
  // Omitted means []; an explicit null is a wrong type, not an omission.
  const parents = 'parents' in input ? input.parents : [];
  if (!Array.isArray(parents)) return fail('parents', `must be an array of record ids, got ${describe(parents)}`);
  if (parents.length > MAX_PARENTS) return fail('parents', `must have at most ${MAX_PARENTS} entries, got ${parents.length}`);
  for (let i = 0; i < parents.length; i++) {
    const parent = parents[i];
    if (typeof parent !== 'string' || !RECORD_ID_PATTERN.test(parent)) {
      return fail(`parents[${i}]`, `must be a record id (64 lowercase hex), got ${describe(parent)}`);
    }
    if (i > 0 && !(parents[i - 1]! < parent)) {
      return fail('parents', `must be sorted ascending without duplicates (entry ${i} is not greater than entry ${i - 1})`);
    }
  }

  if (!('thread' in input)) return fail('thread', 'is required');
  if (!isThreadId(input.thread)) {
    return fail('thread', `must match ^th_[0-9a-f]{64}$ or be a reserved thread (${RESERVED_THREADS.join(', ')}), got ${describe(input.thread)}`);
  }

  if (!('actor' in input)) return fail('actor', 'is required');
  const didError = didSyntaxError(input.actor);
  if (didError) return fail('actor', `${didError}, got ${describe(input.actor)}`);

  if (!('act' in input)) return fail('act', 'is required');
  if (!isAct(input.act)) return fail('act', `must be one of ${ACTS.join(', ')}, got ${describe(input.act)}`);

  if (!('body' in input)) return fail('body', 'is required');
  if (!isJsonObject(input.body)) return fail('body', `must be a JSON object, got ${describe(input.body)}`);
  if (bodyDepthExceeds(input.body, MAX_BODY_DEPTH)) return fail('body', `must not nest deeper than ${MAX_BODY_DEPTH} levels`);

  if (!('clock' in input)) return fail('clock', 'is required');
  const clock = input.clock;
  if (typeof clock !== 'number' || !Number.isInteger(clock)) return fail('clock', `must be a non-negative integer, got ${describe(clock)}`);
  if (clock < 0) return fail('clock', `must be non-negative, got ${clock}`);
  if (clock > MAX_CLOCK) {
    return fail('clock', `exceeds ${MAX_CLOCK} (2^53-1), the largest clock this server can carry exactly; the i64 range up to ${I64_MAX} is refused above that rather than rounded`);
  }

  if (!('data_type' in input)) return fail('data_type', 'is required');
  if (!isDataType(input.data_type)) return fail('data_type', `must be one of ${DATA_TYPES.join(', ')}, got ${describe(input.data_type)}`);

  const judgedBy = input.judged_by ?? null;
  if (judgedBy !== null && (typeof judgedBy !== 'string' || judgedBy.length === 0 || judgedBy.length > MAX_JUDGED_BY_LENGTH)) {
    return fail('judged_by', `must be null or a non-empty string of at most ${MAX_JUDGED_BY_LENGTH} characters, got ${describe(judgedBy)}`);
  }
  // Not hashed, so canonicalisation never sees it; a lone surrogate cannot be stored as UTF-8 faithfully.
  if (typeof judgedBy === 'string' && LONE_SURROGATE.test(judgedBy)) return fail('judged_by', 'must be well-formed Unicode (it contains a lone UTF-16 surrogate)');
  // A pointer has no use for NUL, and PostgreSQL's text cannot hold it: refused on every driver alike.
  if (typeof judgedBy === 'string' && judgedBy.includes('\u0000')) return fail('judged_by', 'must not contain U+0000 (NUL)');

  const claimedId = input.id;
  if (claimedId !== undefined && (typeof claimedId !== 'string' || !RECORD_ID_PATTERN.test(claimedId))) {
    return fail('id', `is computed by the server; when echoed back it must be the 64-hex record id, got ${describe(claimedId)}`);
  }

  return {
    ok: true,
    claimedId: claimedId as string | undefined,
    fields: {
      parents: parents as string[],
      thread: input.thread,
      actor: input.actor as string,
      act: input.act,
      body: input.body,
      // -0 is an integer JSON may carry; it is the clock 0.
      clock: clock === 0 ? 0 : clock,
      data_type: input.data_type,
      judged_by: judgedBy as string | null,
    },
  };
}
