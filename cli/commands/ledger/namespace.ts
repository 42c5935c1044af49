/**
 * `loom namespace create|archive`: a LEARN on the namespace registry thread.
 * Idempotent: a namespace already in the wanted state is left alone (no
 * record written), and the answer says so.
 */
import { TH_NAMESPACE_REGISTRY } from '../../../core/records/reserved-threads.js';
import { CliError } from '../../../command/cli-error.js';
import { defineCommand, subcommand, type OptionValues } from '../../../command/define-command.js';
import { call, clientContext, CLIENT_OPTIONS, defaultActor, print } from '../../kit/context.js';
import { emitAtNextClock } from './emit-record.js';

export const NAMESPACE_USAGE = `loom namespace create <namespace> [--description …] [--actor <did>] [--url …] [--json]
loom namespace archive <namespace> [--actor <did>] [--url …] [--json]
  Idempotent: a namespace already active (create) or archived (archive) is left as it is.
  --actor defaults to $LOOM_ACTOR, else did:sync:user:<your login name>.`;

// Both subcommands accept both options, as before the declaration (archive ignores --description).
const OPTIONS = {
  ...CLIENT_OPTIONS,
  actor: { type: 'string', value: 'did', help: 'the writer (default $LOOM_ACTOR, else did:sync:user:<your login name>)' },
  description: { type: 'string', help: "the namespace's description (create)" },
} as const;

async function change(sub: 'create' | 'archive', values: OptionValues<typeof OPTIONS>, positionals: readonly string[]): Promise<void> {
  const id = positionals[0];
  if (!id) throw new CliError(`a namespace id is required\n${NAMESPACE_USAGE}`);
  const ctx = clientContext(values);
  const actor = values.actor ?? defaultActor();
  const wanted = sub === 'create' ? 'active' : 'archived';
  const { data: registry } = await call(ctx, ctx.client.getGlobalFold({ path: { name: 'namespace_registry' } }));
  const current = ((registry.value as { namespaces?: Record<string, { state?: string }> } | null)?.namespaces ?? {})[id]?.state ?? null;
  if (current === wanted || (sub === 'archive' && current === null)) {
    const unchanged = { namespace: id, state: current ?? 'absent', changed: false };
    print(ctx, unchanged, () => (current === null ? `namespace ${id} does not exist; nothing to archive\n` : `namespace ${id} is already ${current}; nothing written\n`));
    return;
  }
  const body: Record<string, unknown> = { namespace_id: id, state: wanted };
  if (values.description) body['description'] = values.description;
  const { record } = await emitAtNextClock(ctx, { thread: TH_NAMESPACE_REGISTRY, actor, act: 'LEARN', body, data_type: 'SCALAR', parents: [], judged_by: null });
  print(ctx, { namespace: id, state: wanted, changed: true, record }, () => `namespace ${id} ${sub === 'create' ? (current === 'archived' ? 're-activated' : 'created') : 'archived'} (record ${record.id})\n`);
}

export const namespace = defineCommand({
  name: 'namespace',
  summary: 'creates and archives namespaces',
  usage: NAMESPACE_USAGE,
  json: true,
  subcommands: {
    create: subcommand({ summary: 'creates (or re-activates) a namespace', args: ['<namespace>'], options: OPTIONS, run: ({ values, positionals }) => change('create', values, positionals) }),
    archive: subcommand({ summary: 'archives a namespace', args: ['<namespace>'], options: OPTIONS, run: ({ values, positionals }) => change('archive', values, positionals) }),
  },
});
