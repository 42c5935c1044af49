/**
 * `write_record`: one record written as the member, through the ingest door
 * and gates an HTTP client's POST /v1/records meets (RecordWriter.appendAs
 * with the member's credential, at the member's next clock on the thread).
 * A refusal is the kernel's own LoomError, passed through unchanged.
 */
import { Type } from 'typebox';
import { ACTS } from '../../../core/records/acts.js';
import type { RecordWriter } from '../../../core/engine/record-writer.js';
import type { JsonObject } from '../../../core/records/json.js';
import type { ToolDescriptor } from '../../members/index.js';
import { defineTool } from './define-tool.js';
import { checkThread, ThreadField } from './thread-input.js';

export function writeRecordTool(writer: RecordWriter): ToolDescriptor {
  return defineTool({
    name: 'write_record',
    description:
      'Appends one record to a thread, written as you (your DID is its actor), under the same checks as any client of your grant: a thread, act or body you may not write is refused with a coded error and nothing is written. ' +
      `act is one of ${ACTS.join(', ')} (INTEND a plan, DO a request for work, KNOW a fact or result, LEARN a lesson); body is a JSON object, conventionally with a "kind" and a "text". ` +
      'parents lists the ids of records this one answers or builds on (none when omitted). Answers {id, thread, actor, act, created}; created is false when an identical record was already stored.',
    inputSchema: Type.Object(
      {
        thread: ThreadField,
        act: Type.String({ minLength: 1, maxLength: 16, description: `One of ${ACTS.join(', ')}.` }),
        body: Type.Record(Type.String(), Type.Unknown(), { description: 'The record body (a JSON object).' }),
        parents: Type.Optional(Type.Array(Type.String({ maxLength: 80 }), { maxItems: 64, description: 'Ids of the records this one builds on.' })),
      },
      { additionalProperties: false },
    ),
    direct: true,
    scope: 'records:write',
    readOnly: false,
    destructive: false,
    async run(input, { caller }) {
      const { stored, created } = await writer.appendAs(caller, { thread: checkThread(input.thread), act: input.act, body: input.body as JsonObject, parents: input.parents ?? [] });
      const { record } = stored;
      return { id: record.id, thread: record.thread, actor: record.actor, act: record.act, created };
    },
  });
}
