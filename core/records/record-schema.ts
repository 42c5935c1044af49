/**
 * JSON Schemas of the record: the stored form (`Record`) and the ingest form
 * (`RecordInput`). Built from the same constants the validator uses, read by
 * the OpenAPI builder. The hand-written validator stays authoritative for the
 * precise INVALID_SHAPE messages.
 */
import { ACTS } from './acts.js';
import { DATA_TYPES } from './data-types.js';
import { RESERVED_THREADS } from './reserved-threads.js';

const recordIdSchema = { type: 'string', pattern: '^[0-9a-f]{64}$', description: 'Record id: SHA-256 of the canonical JSON of the seven hashed fields, 64 lowercase hex.' } as const;

const fieldSchemas = {
  parents: { type: 'array', items: recordIdSchema, description: 'Record ids this builds on, sorted ascending; [] for a root.' },
  thread: {
    type: 'string',
    description: 'Thread id: th_ + 64 lowercase hex, or a reserved thread.',
    anyOf: [{ pattern: '^th_[0-9a-f]{64}$' }, { enum: [...RESERVED_THREADS] }],
  },
  actor: { type: 'string', description: 'A DID (did:key, did:web or did:sync).', pattern: '^did:[a-z0-9]+:.+$' },
  act: { type: 'string', enum: [...ACTS] },
  body: { type: 'object', additionalProperties: true, description: 'JSON payload, opaque to the kernel.' },
  clock: { type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER, description: 'Monotonic per (actor, thread); the first record of an actor on a thread has clock 0.' },
  data_type: { type: 'string', enum: [...DATA_TYPES] },
  judged_by: { type: ['string', 'null'], description: 'Pointer to the record whose judgment this reflects; not hashed.' },
} as const;

export const RECORD_ID_SCHEMA = recordIdSchema;

export const RECORD_INPUT_SCHEMA = {
  type: 'object',
  description: 'A record to ingest. parents and judged_by may be omitted ([] and null).',
  required: ['thread', 'actor', 'act', 'body', 'clock', 'data_type'],
  additionalProperties: false,
  properties: { ...fieldSchemas, id: { ...recordIdSchema, description: 'Optional echo of the id; must equal the computed id.' } },
} as const;

export const RECORD_SCHEMA = {
  type: 'object',
  description: 'A stored record: the eight fields plus its content-addressed id.',
  required: ['id', 'parents', 'thread', 'actor', 'act', 'body', 'clock', 'data_type', 'judged_by'],
  additionalProperties: false,
  properties: { id: recordIdSchema, ...fieldSchemas },
} as const;
