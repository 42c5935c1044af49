/** `loom thread list|show`: the threads (GET /v1/threads) and one thread's projection (tui or messages). */
import { textTable } from '../../kit/text-table.js';
import { CliError } from '../../../command/cli-error.js';
import { defineCommand, subcommand } from '../../../command/define-command.js';
import { call, clientContext, CLIENT_OPTIONS, print } from '../../kit/context.js';

export const THREAD_USAGE = `loom thread list [--limit N] [--after <cursor>] [--url …] [--json]
loom thread show <thread> [--format tui|messages] [--url …] [--json]`;

export const thread = defineCommand({
  name: 'thread',
  summary: 'lists and shows threads',
  usage: THREAD_USAGE,
  json: true,
  subcommands: {
    list: subcommand({
      summary: 'the threads, a page at a time',
      options: { ...CLIENT_OPTIONS, limit: { type: 'string', value: 'N', help: 'threads per page' }, after: { type: 'string', value: 'cursor', help: 'the page after this cursor' } },
      run: async ({ values, positionals }) => {
        // As parseArgs words it: list takes no argument.
        if (positionals.length > 0) throw new CliError(`Unexpected argument '${positionals[0]}'. This command does not take positional arguments`);
        const ctx = clientContext(values);
        const { data } = await call(ctx, ctx.client.listThreads({ query: { ...(values.limit ? { limit: Number(values.limit) } : {}), ...(values.after ? { after: values.after } : {}) } }));
        print(ctx, data, () => {
          if (data.data.length === 0) return 'no threads\n';
          // Columns sized to their widest cell: reserved thread ids and long statuses are not 67 and 6 wide.
          const rows = data.data.map((t) => [t.thread, t.status, String(t.record_count), String(t.last_clock ?? '-'), String(t.participants.length), t.first_goal ?? '-']);
          return textTable(['thread', 'status', 'records', 'clock', 'who', 'goal'], rows) + (data.has_more ? `… more: --after ${data.next_cursor}\n` : '');
        });
      },
    }),
    show: subcommand({
      summary: "one thread's projection",
      args: ['<thread>'],
      options: { ...CLIENT_OPTIONS, format: { type: 'string', default: 'tui', value: 'tui|messages', help: 'the projection' } },
      run: async ({ values, positionals }) => {
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
      },
    }),
  },
});
