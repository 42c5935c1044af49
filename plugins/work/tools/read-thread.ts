/** `read_thread`: a thread's records as the member may see them, oldest first, a page at a time. */
import { Type } from 'typebox';
import type { RecordReader } from '../../../core/engine/record-reader.js';
import type { ToolDescriptor } from '../../members/index.js';
import { defineTool } from './define-tool.js';
import { checkThread, ThreadField } from './thread-input.js';
import { clampLimit, toolRecord } from './tool-record.js';

const LIMIT_DEFAULT = 20;
const LIMIT_MAX = 100;

export function readThreadTool(reader: RecordReader): ToolDescriptor {
  return defineTool({
    name: 'read_thread',
    description:
      'Reads the records of one thread, oldest first, as your credential may see them (records you may not read are left out, and a thread you may not read answers empty). ' +
      'Answers {records: [{id, thread, actor, act, body, parents, created_at, sequence}], next_after}: when next_after is not null, call again with after = next_after for the next page. ' +
      `limit defaults to ${LIMIT_DEFAULT}, at most ${LIMIT_MAX}.`,
    inputSchema: Type.Object(
      {
        thread: ThreadField,
        after: Type.Optional(Type.Integer({ minimum: 0, description: 'Read records after this sequence (the next_after of the previous page).' })),
        limit: Type.Optional(Type.Integer({ minimum: 1, maximum: LIMIT_MAX, description: `Records per page, default ${LIMIT_DEFAULT}.` })),
      },
      { additionalProperties: false },
    ),
    direct: true,
    scope: 'records:read',
    readOnly: true,
    destructive: false,
    async run(input, { caller }) {
      const page = await reader.listByThread(caller, checkThread(input.thread), { after: input.after ?? 0, limit: clampLimit(input.limit, LIMIT_DEFAULT, LIMIT_MAX) });
      return { records: page.items.map(toolRecord), next_after: page.nextAfter };
    },
  });
}
