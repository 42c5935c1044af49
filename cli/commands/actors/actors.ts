/**
 * `loom actors [list]` and `loom actors show <did>`: the actor directory
 * (GET /v1/actors and /v1/actors/lookup, records:read). Both answer over
 * only the records the caller may see. --json prints the server's answer as is.
 */
import { defineCommand, subcommand } from '../../../command/define-command.js';
import { CliError } from '../../../command/cli-error.js';
import { call, clientContext, CLIENT_OPTIONS, print } from '../../kit/context.js';
import { didArgument, integerOption } from '../../kit/options.js';
import { textTable } from '../../kit/text-table.js';
import type { ActorDetail, ActorList, MemberDefinition } from '../../../sdk/index.js';
import { MEMBER_USAGE, memberSubcommands, memberText } from '../members/actor-doors.js';
// Member bundles (export / import): their own block, actor-bundle.ts.
import { ACTOR_BUNDLE_USAGE, actorBundleSubcommands } from './actor-bundle.js';

export const ACTORS_USAGE = `loom actors [list] [--kind user|agent|system|key|web] [--limit N] [--after <cursor>]
            [--url …] [--token …] [--json]
loom actors show <did> [--url …] [--token …] [--json]
  The actors of the records you may read (records:read). list: in DID order, --limit per page
  (default 100, at most 1000), the next page with --after. show: first and last seen, records by act,
  assigned tasks, task domains, trust by domain and the threads written on, most recent first,
  and, for a member actor, its definition in force.
${MEMBER_USAGE}`;



const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** `KNOW 3, DO 1`: the largest count first, then by name. */
export function countsText(counts: Record<string, number>): string {
  const entries = Object.entries(counts).sort(([a, x], [b, y]) => y - x || a.localeCompare(b));
  return entries.length === 0 ? '-' : entries.map(([name, n]) => `${name} ${n}`).join(', ');
}

function listText(data: ActorList): string {
  if (data.data.length === 0) return 'no actors\n';
  const rows = data.data.map((a) => [a.did, a.kind, String(a.record_count), String(a.thread_count), a.first_seen.at, a.last_seen.at]);
  const more = data.has_more && data.next_cursor !== null ? `… more: --after ${data.next_cursor}\n` : '';
  return textTable(['actor', 'kind', 'records', 'threads', 'first seen', 'last seen'], rows) + more;
}

export function actorText(a: ActorDetail): string {
  const trust = Object.entries(a.trust)
    .sort(([x, s], [y, t]) => t.score - s.score || x.localeCompare(y))
    .map(([domain, t]) => `${domain} ${t.score} (${plural(t.total, 'verdict')})`);
  const facts: Array<[string, string]> = [
    ['first seen', `${a.first_seen.at} (sequence ${a.first_seen.sequence})`],
    ['last seen', `${a.last_seen.at} (sequence ${a.last_seen.sequence})`],
    ['records', `${a.record_count} on ${plural(a.thread_count, 'thread')}${a.record_count > 0 ? `: ${countsText(a.by_act)}` : ''}`],
    ['assigned', plural(a.assigned_tasks, 'task')],
    ['domains', countsText(a.domains)],
    ['trust', trust.length === 0 ? '-' : trust.join(', ')],
  ];
  let text = `${a.did} (${a.kind})\n` + facts.map(([label, value]) => `  ${label.padEnd(10)}  ${value}\n`).join('');
  if (a.threads.length > 0) {
    const shown = a.threads.length < a.thread_count ? ` (the latest ${a.threads.length} of ${a.thread_count})` : '';
    text += `\nthreads, most recent first${shown}:\n` + textTable(['thread', 'records', 'last sequence'], a.threads.map((t) => [t.thread, String(t.record_count), String(t.last_sequence)]));
  }
  return text;
}

export const actors = defineCommand({
  name: 'actors',
  summary: 'the actor registry',
  usage: `${ACTORS_USAGE}\n${ACTOR_BUNDLE_USAGE}`,
  json: true,
  // `loom actors` alone, or with options only, lists.
  defaultSubcommand: 'list',
  unknownSubcommand: (first) => {
    const hint = first!.startsWith('did:') ? `; to look this actor up: loom actors show ${first}` : '';
    return `unknown subcommand "${first}" of loom actors${hint}\n${ACTORS_USAGE}`;
  },
  subcommands: {
    ...memberSubcommands,
    list: subcommand({
      summary: 'the actors of the records you may read, in DID order (records:read)',
      options: {
        ...CLIENT_OPTIONS,
        kind: { type: 'string', value: 'user|agent|system|key|web', help: 'one kind only' },
        limit: { type: 'string', value: 'N', help: 'actors per page (default 100, at most 1000)' },
        after: { type: 'string', value: 'cursor', help: 'the page after this cursor' },
      },
      run: async ({ values, positionals }) => {
        if (positionals.length !== 0) throw new CliError(`loom actors list takes no arguments (got "${positionals[0]}")\n${ACTORS_USAGE}`);
        const limit = integerOption('limit', values.limit, 1);
        const ctx = clientContext(values);
        const query = { ...(values.kind !== undefined ? { kind: values.kind } : {}), ...(limit !== undefined ? { limit } : {}), ...(values.after !== undefined ? { after: values.after } : {}) };
        const { data } = await call(ctx, ctx.client.listActors({ query }));
        print(ctx, data, () => listText(data));
      },
    }),
    show: subcommand({
      summary: 'one actor: first and last seen, records by act, tasks, domains, trust and threads (records:read)',
      args: ['<did>'],
      options: CLIENT_OPTIONS,
      run: async ({ values, positionals }) => {
        if (positionals.length !== 1) throw new CliError(`loom actors show takes one DID\n${ACTORS_USAGE}`);
        const did = didArgument('the actor', positionals[0]!);
        const ctx = clientContext(values);
        // A member defined but not yet seen writing has no directory entry: its definition alone is shown.
        const [directory, member] = await Promise.all([
          ctx.client.lookupActor({ query: { did } }),
          ctx.client.getActorDefinition({ path: { did } }),
        ]);
        const definition = member.response?.status === 200 ? (member.data as MemberDefinition) : null;
        if (definition && directory.response?.status === 404) {
          print(ctx, { member: definition }, () => memberText(definition));
          return;
        }
        const { data } = await call(ctx, Promise.resolve(directory));
        print(ctx, definition ? { ...data, member: definition } : data, () => actorText(data) + (definition ? `\nmember definition:\n${memberText(definition)}` : ''));
      },
    }),
    ...actorBundleSubcommands,
  },
});
