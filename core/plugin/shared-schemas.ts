/**
 * Named schemas every plugin shares. A schema with an `$id` becomes a named
 * OpenAPI component (openapi/build-spec.ts replaces it by a $ref), so the SDK
 * gets `Record` and `ErrorEnvelope`, not one anonymous copy per operation.
 */
import { Type, type TSchema } from 'typebox';
import type { LoomRecord } from '../records/record.js';
import { RECORD_INPUT_SCHEMA, RECORD_SCHEMA } from '../records/record-schema.js';

export const RecordSchema = Type.Unsafe<LoomRecord>({ ...RECORD_SCHEMA, $id: 'Record' });

export const RecordInputSchema = Type.Unsafe<unknown>({ ...RECORD_INPUT_SCHEMA, $id: 'RecordInput' });

export const ErrorEnvelopeSchema = Type.Object(
  {
    object: Type.Literal('error'),
    type: Type.Optional(Type.String({ description: 'Error family, e.g. invalid_request_error on namespace refusals.' })),
    code: Type.String({ description: 'Stable UPPER_SNAKE code from the error catalogue.' }),
    message: Type.String({ description: 'Human-readable; clients may render it verbatim.' }),
  },
  { $id: 'ErrorEnvelope', additionalProperties: true },
);

/** `{object: "list", data, has_more, next_cursor}`: the cursor-paginated list shape. */
export function cursorList<T extends TSchema>(item: T, id: string) {
  return Type.Object(
    {
      object: Type.Literal('list'),
      data: Type.Array(item),
      has_more: Type.Boolean(),
      next_cursor: Type.Union([Type.String(), Type.Null()], { description: 'Pass as `after` to get the next page; null at the end.' }),
    },
    { $id: id },
  );
}

export const FoldAnswerSchema = Type.Object(
  {
    fold_name: Type.String(),
    cache_key: Type.String({ description: 'Opaque; changes whenever the value may have changed.' }),
    watermark: Type.Integer({ minimum: 0, description: 'Highest record sequence the value covers.' }),
    value: Type.Unknown(),
  },
  { $id: 'FoldAnswer' },
);
