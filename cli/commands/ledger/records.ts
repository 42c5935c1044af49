/**
 * Client commands over the generated SDK: `emit`, `thread list|show`,
 * `query`, `namespace create|archive`. Each takes --url (LOOM_URL), --token
 * (else LOOM_TOKEN, else the token saved for the URL) and --json.
 */
import { parseArgs } from 'node:util';
import { TH_NAMESPACE_REGISTRY } from '../../../core/records/reserved-threads.js';
import { CliError } from '../../../command/cli-error.js';
import { call, clientContext, COMMON_OPTIONS, defaultActor, isHelp, parseJsonOption, print, type ClientContext, type Command } from '../../kit/context.js';

export const EMIT_USAGE = `loom emit --thread <th_…> [--actor <did>] [--act KNOW] [--body '{…}'] [--clock N] [--data-type SCALAR]
          [--parents id,id] [--judged-by <id>] [--url …] [--token …] [--json]
  Defaults: --actor $LOOM_ACTOR, else did:sync:user:<your login name>; --act KNOW; --body {};
  --data-type SCALAR; --clock the actor's next clock from the thread state; --parents none.`;

/** The actor's next clock on a thread, from the thread state (0 for a first record). */
export async function nextClock(ctx: ClientContext, thread: string, actor: string): Promise<number> {
  const { data } = await call(ctx, ctx.client.getThreadState({ path: { id: thread } }));
  const highest = data.value.actor_clocks[actor];
  return highest === undefined ? 0 : highest + 1;
}

export async function emitRecord(ctx: ClientContext, record: Record<string, unknown>): Promise<{ record: Record<string, unknown> & { id: string }; created: boolean }> {
  const { data, status } = await call(ctx, ctx.client.ingestRecord({ body: record as never }));
  return { record: data as unknown as Record<string, unknown> & { id: string }, created: status === 201 };
}

export const emit: Command = async (argv) => {
  const { values } = parseArgs({
    args: argv,
    options: {
      ...COMMON_OPTIONS,
      thread: { type: 'string' },
      actor: { type: 'string' },
      act: { type: 'string', default: 'KNOW' },
      body: { type: 'string' },
      clock: { type: 'string' },
      'data-type': { type: 'string', default: 'SCALAR' },
      parents: { type: 'string' },
      'judged-by': { type: 'string' },
    },
  });
  if (values.help) return void process.stdout.write(EMIT_USAGE + '\n');
  if (!values.thread) throw new CliError(`--thread is required\n${EMIT_USAGE}`);
  const ctx = clientContext(values);
  const actor = values.actor ?? defaultActor();
  const body = parseJsonOption('body', values.body) ?? {};
  let clock: number;
  if (values.clock !== undefined) {
    clock = Number(values.clock);
    if (!Number.isSafeInteger(clock) || clock < 0) throw new CliError('--clock must be a non-negative integer');
  } else {
    clock = await nextClock(ctx, values.thread, actor);
  }
  const record = {
    thread: values.thread,
    actor,
    act: values.act,
    body,
    clock,
    data_type: values['data-type'],
    parents: values.parents ? values.parents.split(',').map((p) => p.trim()).filter(Boolean).sort() : [],
    judged_by: values['judged-by'] ?? null,
  };
  const { record: stored, created } = await emitRecord(ctx, record);
  print(ctx, stored, () => `${created ? 'stored' : 'already stored'} ${stored.id} (${record.act} by ${actor}, clock ${clock}) on ${record.thread}\n`);
};

export const THREAD_USAGE = `loom thread list [--limit N] [--after <cursor>] [--url …] [--json]
loom thread show <thread> [--format tui|messages] [--url …] [--json]`;

export const thread: Command = async (argv) => {
  const [sub, ...rest] = argv;
  if (isHelp(sub)) return void process.stdout.write(THREAD_USAGE + '\n');
  if (sub === 'list') {
    const { values } = parseArgs({ args: rest, options: { ...COMMON_OPTIONS, limit: { type: 'string' }, after: { type: 'string' } } });
    if (values.help) return void process.stdout.write(THREAD_USAGE + '\n');
    const ctx = clientContext(values);
    const { data } = await call(ctx, ctx.client.listThreads({ query: { ...(values.limit ? { limit: Number(values.limit) } : {}), ...(values.after ? { after: values.after } : {}) } }));
    print(ctx, data, () => {
      if (data.data.length === 0) return 'no threads\n';
      const lines = data.data.map((t) =>
        [t.thread, t.status.padEnd(6), String(t.record_count).padStart(7), String(t.last_clock ?? '-').padStart(6), String(t.participants.length).padStart(4), t.first_goal ?? ''].join('  '),
      );
      const header = ['thread'.padEnd(67), 'status', 'records', ' clock', 'who ', 'goal'].join('  ');
      return [header, ...lines, ...(data.has_more ? [`… more: --after ${data.next_cursor}`] : [])].join('\n') + '\n';
    });
    return;
  }
  if (sub === 'show') {
    const { values, positionals } = parseArgs({ args: rest, allowPositionals: true, options: { ...COMMON_OPTIONS, format: { type: 'string', default: 'tui' } } });
    if (values.help) return void process.stdout.write(THREAD_USAGE + '\n');
    const id = positionals[0];
    if (!id) throw new CliError(`a thread id is required\n${THREAD_USAGE}`);
    if (values.format !== 'tui' && values.format !== 'messages') throw new CliError('--format must be tui or messages');
    const ctx = clientContext(values);
    const { data } = await call(ctx, ctx.client.projectThread({ path: { id }, query: { format: values.format } }));
    print(ctx, data, () =>
      data.format === 'tui'
        ? (data.text ?? '')
        : (data.messages ?? []).map((m) => `[${m.clock}] ${m.role} ${m.actor}: ${m.content}`).join('\n') + '\n',
    );
    return;
  }
  throw new CliError(`usage:\n${THREAD_USAGE}`);
};

export const QUERY_USAGE = `loom query [--thread <th_…>] [--filter '{…}'] [--sort '{"clock":-1}'] [--limit N] [--offset N] [--explain] [--url …] [--json]`;

export const query: Command = async (argv) => {
  const { values } = parseArgs({
    args: argv,
    options: {
      ...COMMON_OPTIONS,
      thread: { type: 'string' },
      filter: { type: 'string' },
      sort: { type: 'string' },
      limit: { type: 'string' },
      offset: { type: 'string' },
      explain: { type: 'boolean', default: false },
    },
  });
  if (values.help) return void process.stdout.write(QUERY_USAGE + '\n');
  const ctx = clientContext(values);
  const body: Record<string, unknown> = {};
  if (values.thread) body['thread'] = values.thread;
  if (values.filter) body['filter'] = parseJsonOption('filter', values.filter);
  if (values.sort) body['sort'] = parseJsonOption('sort', values.sort);
  if (values.limit) body['limit'] = Number(values.limit);
  if (values.offset) body['offset'] = Number(values.offset);
  if (values.explain) body['explain'] = true;
  const { data } = await call(ctx, ctx.client.queryRecords({ body: body as never }));
  print(ctx, data, () => {
    const lines = data.data.map((r) => `${r.id.slice(0, 12)}  ${r.thread.slice(0, 16)}  ${r.actor}  [${r.clock}] ${r.act}  ${JSON.stringify(r.body).slice(0, 80)}`);
    lines.push(`${data.data.length} of ${data.matched_total} matching${data.capped ? ' (more beyond this page)' : ''}`);
    if (data.plan) lines.push(`plan: ${data.plan.sql}`, `indexed: ${data.plan.indexed_fields.join(', ') || '-'}; unindexed: ${data.plan.unindexed_fields.join(', ') || '-'}`);
    return lines.join('\n') + '\n';
  });
};

export const NAMESPACE_USAGE = `loom namespace create <namespace> [--description …] [--actor <did>] [--url …] [--json]
loom namespace archive <namespace> [--actor <did>] [--url …] [--json]
  Idempotent: a namespace already active (create) or archived (archive) is left as it is.
  --actor defaults to $LOOM_ACTOR, else did:sync:user:<your login name>.`;

export const namespace: Command = async (argv) => {
  const [sub, ...rest] = argv;
  if (isHelp(sub)) return void process.stdout.write(NAMESPACE_USAGE + '\n');
  if (sub !== 'create' && sub !== 'archive') throw new CliError(`usage:\n${NAMESPACE_USAGE}`);
  const { values, positionals } = parseArgs({ args: rest, allowPositionals: true, options: { ...COMMON_OPTIONS, actor: { type: 'string' }, description: { type: 'string' } } });
  if (values.help) return void process.stdout.write(NAMESPACE_USAGE + '\n');
  const id = positionals[0];
  if (!id) throw new CliError(`a namespace id is required\n${NAMESPACE_USAGE}`);
  const ctx = clientContext(values);
  const actor = values.actor ?? defaultActor();
  const wanted = sub === 'create' ? 'active' : 'archived';
  // Idempotent: a namespace already in the wanted state is left alone (no record written), and the answer says so.
  const { data: registry } = await call(ctx, ctx.client.getGlobalFold({ path: { name: 'namespace_registry' } }));
  const current = ((registry.value as { namespaces?: Record<string, { state?: string }> } | null)?.namespaces ?? {})[id]?.state ?? null;
  if (current === wanted || (sub === 'archive' && current === null)) {
    const unchanged = { namespace: id, state: current ?? 'absent', changed: false };
    print(ctx, unchanged, () => (current === null ? `namespace ${id} does not exist; nothing to archive\n` : `namespace ${id} is already ${current}; nothing written\n`));
    return;
  }
  const body: Record<string, unknown> = { namespace_id: id, state: wanted };
  if (values.description) body['description'] = values.description;
  const clock = await nextClock(ctx, TH_NAMESPACE_REGISTRY, actor);
  const { record } = await emitRecord(ctx, { thread: TH_NAMESPACE_REGISTRY, actor, act: 'LEARN', body, clock, data_type: 'SCALAR', parents: [], judged_by: null });
  print(ctx, { namespace: id, state: wanted, changed: true, record }, () => `namespace ${id} ${sub === 'create' ? (current === 'archived' ? 're-activated' : 'created') : 'archived'} (record ${record.id})\n`);
};

export const CLIENT_COMMANDS: Record<string, Command> = { emit, thread, query, namespace };

export const CLIENT_USAGE = [EMIT_USAGE, THREAD_USAGE, QUERY_USAGE, NAMESPACE_USAGE].join('\n');
