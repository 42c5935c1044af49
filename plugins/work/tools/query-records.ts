/**
 * `query_records`: the structured filter of POST /v1/records/query (the same
 * parser, the same INVALID_QUERY refusals), over what the member may see,
 * with a page small enough for a model to read.
 */
import { Type } from 'typebox';
import type { RecordReader } from '../../../core/engine/record-reader.js';
import { LoomError } from '../../../core/errors/loom-error.js';
import { isThreadId } from '../../../core/records/thread-id.js';
import { parseRecordQuery } from '../../../storage/contract/query/parse-query.js';
import type { ToolDescriptor } from '../../members/index.js';
import { defineTool } from './define-tool.js';
import { clampLimit, toolRecord } from './tool-record.js';

const LIMIT_DEFAULT = 20;
const LIMIT_MAX = 100;

export function queryRecordsTool(reader: RecordReader): ToolDescriptor {
  return defineTool({
    name: 'query_records',
    description:
      'Finds records by a structured filter over the records you may see. filter maps field paths to a value (equality) or to operators: ' +
      '$eq $ne $gt $gte $lt $lte $in $nin $like $ilike $regex $exists $not, combined with $and/$or/$not. Fields: id, thread, actor, act, clock, namespace, created_at, sequence, and body.<key>[.<key>] ' +
      '(e.g. {"filter": {"act": "DO", "body.kind": {"$like": "core.task%"}}, "sort": {"sequence": -1}}). thread narrows to one thread. ' +
      `Answers {records, matched_total, capped}: capped is true when more match beyond this page (use offset). limit defaults to ${LIMIT_DEFAULT}, at most ${LIMIT_MAX}.`,
    inputSchema: Type.Object(
      {
        thread: Type.Optional(Type.String({ maxLength: 80, description: 'Only this thread.' })),
        filter: Type.Optional(Type.Record(Type.String(), Type.Unknown(), { description: 'Field paths and $and/$or/$not.' })),
        sort: Type.Optional(Type.Record(Type.String(), Type.Union([Type.Literal(1), Type.Literal(-1)]), { description: 'A field and 1 (ascending) or -1 (descending).' })),
        limit: Type.Optional(Type.Integer({ minimum: 1, maximum: LIMIT_MAX })),
        offset: Type.Optional(Type.Integer({ minimum: 0 })),
      },
      { additionalProperties: false },
    ),
    direct: true,
    scope: 'records:read',
    readOnly: true,
    destructive: false,
    async run(input, { caller }) {
      // As the route: a malformed thread can never match, so it is refused rather than answered as "no records".
      if (input.thread !== undefined && !isThreadId(input.thread)) throw new LoomError('INVALID_QUERY', `thread ${JSON.stringify(input.thread)} is not a thread id (th_ + 64 lowercase hex, or a reserved thread)`);
      const query = parseRecordQuery({ ...input, limit: clampLimit(input.limit, LIMIT_DEFAULT, LIMIT_MAX), explain: false });
      if (!reader.storeCapabilities.structuredQuery) throw new LoomError('INVALID_QUERY', `the ${reader.storeCapabilities.backend} store does not support structured queries`);
      const result = await reader.query(caller, query);
      return { records: result.items.map(toolRecord), matched_total: result.matchedTotal, capped: result.capped };
    },
  });
}
