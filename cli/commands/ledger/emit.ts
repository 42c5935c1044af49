/** `loom emit`: writes one record (POST /v1/records), at the actor's next clock unless --clock is given. */
import { readFile } from 'node:fs/promises';
import { CliError } from '../../../command/cli-error.js';
import { defineCommand } from '../../../command/define-command.js';
import { clientContext, CLIENT_OPTIONS, defaultActor, parseJsonOption, print } from '../../kit/context.js';
import { emitAtNextClock, emitRecord } from './emit-record.js';

export const EMIT_USAGE = `loom emit --thread <th_…> [--actor <did>] [--act KNOW] [--body '{…}' | @file | -] [--clock N] [--data-type SCALAR]
          [--parents id,id] [--judged-by <id>] [--url …] [--token …] [--json]
  Defaults: --actor $LOOM_ACTOR, else did:sync:user:<your login name>; --act KNOW; --body {};
  --data-type SCALAR; --clock the actor's next clock from the thread state; --parents none.
  --body @file reads the JSON body from a file, --body - from stdin (as curl's -d does).`;

/** The --body text: given inline, `@file` from a file, `-` (or `@-`) from stdin. */
async function bodyText(option: string | undefined): Promise<string | undefined> {
  if (option === undefined) return undefined;
  if (option === '-' || option === '@-') {
    const chunks: Buffer[] = [];
    for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks).toString('utf8');
  }
  if (!option.startsWith('@')) return option;
  return readFile(option.slice(1), 'utf8').catch((error: NodeJS.ErrnoException) => {
    throw new CliError(`--body ${option}: cannot read ${option.slice(1)} (${error.code ?? error.message})`);
  });
}

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
    body: { type: 'string', value: "'{…}'|@file|-", help: 'the JSON body, inline, from a file (@file) or stdin (-)' },
    clock: { type: 'string' },
    'data-type': { type: 'string', default: 'SCALAR' },
    parents: { type: 'string' },
    'judged-by': { type: 'string' },
  },
  run: async ({ values }) => {
    if (!values.thread) throw new CliError(`--thread is required\n${EMIT_USAGE}`);
    const ctx = clientContext(values);
    const actor = values.actor ?? defaultActor();
    const body = parseJsonOption('body', await bodyText(values.body)) ?? {};
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
