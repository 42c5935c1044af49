/** `loom emit`: writes one record (POST /v1/records), at the actor's next clock unless --clock is given. */
import { CliError } from '../../../command/cli-error.js';
import { defineCommand } from '../../../command/define-command.js';
import { clientContext, CLIENT_OPTIONS, defaultActor, parseJsonOption, print } from '../../kit/context.js';
import { emitAtNextClock, emitRecord } from './emit-record.js';

export const EMIT_USAGE = `loom emit --thread <th_…> [--actor <did>] [--act KNOW] [--body '{…}'] [--clock N] [--data-type SCALAR]
          [--parents id,id] [--judged-by <id>] [--url …] [--token …] [--json]
  Defaults: --actor $LOOM_ACTOR, else did:sync:user:<your login name>; --act KNOW; --body {};
  --data-type SCALAR; --clock the actor's next clock from the thread state; --parents none.`;

export const emit = defineCommand({
  name: 'emit',
  summary: 'writes a record',
  usage: EMIT_USAGE,
  json: true,
  options: {
    ...CLIENT_OPTIONS,
    thread: { type: 'string' },
    actor: { type: 'string' },
    act: { type: 'string', default: 'KNOW' },
    body: { type: 'string' },
    clock: { type: 'string' },
    'data-type': { type: 'string', default: 'SCALAR' },
    parents: { type: 'string' },
    'judged-by': { type: 'string' },
  },
  run: async ({ values }) => {
    if (!values.thread) throw new CliError(`--thread is required\n${EMIT_USAGE}`);
    const ctx = clientContext(values);
    const actor = values.actor ?? defaultActor();
    const body = parseJsonOption('body', values.body) ?? {};
    const clock = values.clock === undefined ? undefined : Number(values.clock);
    if (clock !== undefined && (!Number.isSafeInteger(clock) || clock < 0)) throw new CliError('--clock must be a non-negative integer');
    const draft = {
      thread: values.thread,
      actor,
      act: values.act,
      body,
      data_type: values['data-type'],
      parents: values.parents ? values.parents.split(',').map((p) => p.trim()).filter(Boolean).sort() : [],
      judged_by: values['judged-by'] ?? null,
    };
    const { record: stored, created } = clock === undefined ? await emitAtNextClock(ctx, draft) : await emitRecord(ctx, { ...draft, clock });
    print(ctx, stored, () => `${created ? 'stored' : 'already stored'} ${stored.id} (${draft.act} by ${actor}, clock ${stored.clock}) on ${draft.thread}\n`);
  },
});
