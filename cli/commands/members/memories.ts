/**
 * `loom memories list|add|rm <did> …`: a member's memories (GET, POST and
 * DELETE /v1/actors/{did}/memories), for its owner, the member itself or an
 * operator. --json prints the server's answer as is.
 */
import { defineCommand, subcommand } from '../../../command/define-command.js';
import { CliError } from '../../../command/cli-error.js';
import { call, clientContext, CLIENT_OPTIONS, parseListOption, print } from '../../kit/context.js';
import { didArgument, integerOption } from '../../kit/options.js';
import { textTable } from '../../kit/text-table.js';
import type { Memory, MemoryList } from '../../../sdk/index.js';

const TYPES = ['user', 'feedback', 'project', 'reference', 'skill', 'insight'] as const;
type MemoryType = (typeof TYPES)[number];

export const MEMORIES_USAGE = `loom memories list <did> [--search words] [--domain D] [--type T] [--limit N] [--url …] [--token …] [--json]
loom memories add <did> <name> --type T --description text [--confidence 0.8] [--tags a,b]
            [--source-thread th_…] [--domain D] [--url …] [--token …] [--json]
loom memories rm <did> <name> [--url …] [--token …] [--json]
  A member's memories (its owner, the member itself or an operator). Types: ${TYPES.join(', ')}.
  list: newest first, --limit per page (default 20, at most 100); --search ranks by words (and tags).
  add: a memory of a name the member holds replaces it. rm: cancels it (history keeps it).`;

function typeOption(text: string | undefined): MemoryType | undefined {
  if (text === undefined) return undefined;
  if (!(TYPES as readonly string[]).includes(text)) throw new CliError(`--type must be one of ${TYPES.join(', ')}`);
  return text as MemoryType;
}

function confidenceOption(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const value = Number(text);
  if (text.trim() === '' || !(value >= 0 && value <= 1)) throw new CliError('--confidence must be a number in [0, 1]');
  return value;
}

const clip = (text: string, width: number) => (text.length > width ? text.slice(0, width - 1) + '…' : text);

function listText(list: MemoryList): string {
  if (list.data.length === 0) return 'no memories\n';
  const rows = list.data.map((m: Memory) => [m.name, m.memory_type, String(m.confidence), m.domain ?? '-', m.tags.join(',') || '-', clip(m.description.replace(/\s+/g, ' '), 60)]);
  return textTable(['name', 'type', 'confidence', 'domain', 'tags', 'description'], rows) + (list.has_more ? '… more: raise --limit\n' : '');
}

function args(positionals: readonly string[], count: number, sub: string): string[] {
  if (positionals.length !== count) throw new CliError(`loom memories ${sub} takes ${count === 1 ? 'a member DID' : 'a member DID and a memory name'}\n${MEMORIES_USAGE}`);
  return [didArgument('the member', positionals[0]!), ...positionals.slice(1)];
}

export const memories = defineCommand({
  name: 'memories',
  summary: "a member's memories",
  usage: MEMORIES_USAGE,
  json: true,
  bareIsHelp: true,
  subcommands: {
    list: subcommand({
      summary: "a member's live memories, newest first or best match first (records:read)",
      args: ['<did>'],
      options: {
        ...CLIENT_OPTIONS,
        search: { type: 'string', value: 'words', help: 'rank by these words (name, description, tags)' },
        domain: { type: 'string', value: 'D', help: 'only this domain' },
        type: { type: 'string', value: 'T', help: `only this type (${TYPES.join(', ')})` },
        limit: { type: 'string', value: 'N', help: 'memories per page (default 20, at most 100)' },
      },
      run: async ({ values, positionals }) => {
        const [did] = args(positionals, 1, 'list');
        const type = typeOption(values.type);
        const limit = integerOption('limit', values.limit, 1) ?? 20;
        const ctx = clientContext(values);
        const query = { limit, ...(values.search !== undefined ? { search: values.search } : {}), ...(values.domain !== undefined ? { domain: values.domain } : {}), ...(type ? { type } : {}) };
        const { data } = await call(ctx, ctx.client.listActorMemories({ path: { did: did! }, query }));
        print(ctx, data, () => listText(data));
      },
    }),
    add: subcommand({
      summary: 'give a member a memory, or replace the one of that name (records:write)',
      args: ['<did>', '<name>'],
      options: {
        ...CLIENT_OPTIONS,
        type: { type: 'string', value: 'T', help: `its type (${TYPES.join(', ')}); required` },
        description: { type: 'string', value: 'text', help: 'what the member should remember; required' },
        confidence: { type: 'string', value: '0..1', help: 'how sure (default 0.8)' },
        tags: { type: 'string', value: 'a,b', help: 'comma-separated tags' },
        'source-thread': { type: 'string', value: 'th_…', help: 'the thread it was learnt on' },
        domain: { type: 'string', value: 'D', help: 'its domain' },
      },
      run: async ({ values, positionals }) => {
        const [did, name] = args(positionals, 2, 'add');
        const memoryType = typeOption(values.type);
        if (memoryType === undefined) throw new CliError(`loom memories add needs --type (${TYPES.join(', ')})`);
        if (values.description === undefined) throw new CliError('loom memories add needs --description');
        const confidence = confidenceOption(values.confidence);
        const tags = parseListOption(values.tags);
        const ctx = clientContext(values);
        const body = {
          name: name!,
          memory_type: memoryType,
          description: values.description,
          ...(confidence !== undefined ? { confidence } : {}),
          ...(tags !== undefined ? { tags } : {}),
          ...(values['source-thread'] !== undefined ? { source_thread: values['source-thread'] } : {}),
          ...(values.domain !== undefined ? { domain: values.domain } : {}),
        };
        const { data } = await call(ctx, ctx.client.addActorMemory({ path: { did: did! }, body }));
        print(ctx, data, () => `${data.superseded ? 'replaced' : 'added'} memory ${JSON.stringify(data.name)} (record ${data.record})\n`);
      },
    }),
    rm: subcommand({
      summary: 'cancel one of a member’s memories (records:write)',
      args: ['<did>', '<name>'],
      options: CLIENT_OPTIONS,
      run: async ({ values, positionals }) => {
        const [did, name] = args(positionals, 2, 'rm');
        const ctx = clientContext(values);
        const { data } = await call(ctx, ctx.client.deleteActorMemory({ path: { did: did!, name: name! } }));
        print(ctx, data, () => `cancelled memory ${JSON.stringify(data.name)} (record ${data.record})\n`);
      },
    }),
  },
});
