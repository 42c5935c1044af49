/** `fold_thread`: a per-thread fold (thread_state by default) over the records of the thread the member may see. */
import { Type } from 'typebox';
import type { RecordReader } from '../../../core/engine/record-reader.js';
import { LoomError } from '../../../core/errors/loom-error.js';
import type { JsonValue } from '../../../core/records/json.js';
import type { ToolDescriptor } from '../../members/index.js';
import { defineTool } from './define-tool.js';
import { checkThread, ThreadField } from './thread-input.js';

const DEFAULT_FOLD = 'thread_state';

export function foldThreadTool(reader: RecordReader): ToolDescriptor {
  return defineTool({
    name: 'fold_thread',
    description:
      'Summarises a thread without reading every record: the value of a per-thread fold computed over the records you may see. ' +
      `The default fold, ${DEFAULT_FOLD}, answers the thread's status (open, closed...), who opened it and its first goal, its participants and record count, and each actor's highest clock. ` +
      'Answers {fold, thread, watermark, value}; an unknown fold name is refused with the list of per-thread folds.',
    inputSchema: Type.Object(
      {
        thread: ThreadField,
        fold: Type.Optional(Type.String({ pattern: '^[a-z][a-z0-9_]{0,63}$', description: `A per-thread fold name, default ${DEFAULT_FOLD}.` })),
      },
      { additionalProperties: false },
    ),
    direct: true,
    scope: 'records:read',
    readOnly: true,
    destructive: false,
    async run(input, { caller }) {
      const name = input.fold ?? DEFAULT_FOLD;
      const threadFolds = reader.listFolds().filter((fold) => fold.scope === 'thread').map((fold) => fold.name);
      if (!threadFolds.includes(name)) throw new LoomError('NOT_FOUND', `no per-thread fold named ${JSON.stringify(name)} (per-thread folds: ${threadFolds.join(', ')})`);
      const answer = await reader.threadFold<JsonValue>(caller, name, checkThread(input.thread));
      return { fold: name, thread: input.thread, watermark: answer.watermark, value: answer.value };
    },
  });
}
