/**
 * `loom graph path|shared|neighborhood|central|facets`: queries over the
 * graph of actors, threads and records (GET /v1/graph/query with op=path,
 * shared_context, neighborhood or centrality, and GET /v1/graph/facets;
 * records:read). The server bounds every query and validates node ids and
 * ranges, naming the value it refuses; this command only passes them on.
 * --json prints the server's answer as is.
 */
import { defineCommand, subcommand, type OptionDecls } from '../../../command/define-command.js';
import { CliError } from '../../../command/cli-error.js';
import { call, clientContext, CLIENT_OPTIONS, print, type ClientContext } from '../../kit/context.js';
import { integerOption } from '../../kit/options.js';
import { textTable as paddedTable } from '../../kit/text-table.js';
import type { GetGraphQueryData, GraphEdge, GraphFacets, GraphNode, GraphQueryAnswer } from '../../../sdk/index.js';

export const GRAPH_USAGE = `loom graph path <from> <to> [--url …] [--token …] [--json]
loom graph shared <actor> <actor> [--limit N] [--url …] [--token …] [--json]
loom graph neighborhood <node> [--k N] [--limit N] [--url …] [--token …] [--json]
loom graph central [--kind actor|thread] [--limit N] [--url …] [--token …] [--json]
loom graph facets [--limit N] [--url …] [--token …] [--json]
  The graph of actors, threads and records (records:read), over the records you may read. A node is
  actor:<did>, thread:<th_…>, record:<id>, or a bare DID, thread id or record id.
  path: a shortest path (at most the server's max_depth hops, 6 by default).
  shared: the threads both actors wrote on, most records first.
  neighborhood: the nodes within --k hops (1 to 3, default 1), breadth first.
  central: the actors (or threads) with the most distinct threads written on (writers), ties by records.
  facets: the body kinds, actors and threads, most records first.
  --limit caps the nodes or rows returned (default 100, at most 1000); answers cut short by a bound say so.`;

const SUBCOMMANDS = { path: 2, shared: 2, neighborhood: 1, central: 0, facets: 0 } as const;
type Sub = keyof typeof SUBCOMMANDS;
type GraphValues = { limit?: string | undefined; k?: string | undefined; kind?: string | undefined; url?: string | undefined; token?: string | undefined; json?: boolean };
const ARGUMENTS: Record<Sub, string> = { path: 'a start and an end node', shared: 'two actors', neighborhood: 'one node', central: 'no arguments', facets: 'no arguments' };

/** textTable, without the spaces a row leaves after its last filled cell when its label is empty. */
const textTable = (header: readonly string[], rows: readonly (readonly string[])[]) => paddedTable(header, rows).replace(/ +$/gm, '');

const LIMIT = { limit: { type: 'string', value: 'N', help: 'caps the nodes or rows returned (default 100, at most 1000)' } } as const;

/** A node's label when it says more than its id (an actor's label is its DID; a thread without a goal is labelled by its id). */
const labelOf = (node: GraphNode) => (node.label === node.id.slice(node.id.indexOf(':') + 1) ? '' : node.label);

/** A node for people: its id, then its label when that says more. */
const nodeText = (node: GraphNode) => (labelOf(node) === '' ? node.id : `${node.id}  ${node.label}`);

/** The bounds that cut an answer short, and the caller's restriction, as trailing lines. */
function notes(answer: { truncated: boolean; truncated_by?: readonly string[]; restricted: boolean }): string {
  let text = '';
  if (answer.truncated) text += `cut short by a bound${answer.truncated_by && answer.truncated_by.length > 0 ? ` (${answer.truncated_by.join(', ')})` : ''}: more may exist\n`;
  if (answer.restricted) text += 'over only the records this credential may read\n';
  return text;
}

/** One step along a path: `-[kind]->` when the edge points along the walk, `<-[kind]-` when against it. */
function step(edges: readonly GraphEdge[], from: string, to: string): string {
  const forward = edges.find((e) => e.from === from && e.to === to);
  if (forward) return `-[${forward.kind}]->`;
  const backward = edges.find((e) => e.from === to && e.to === from);
  return backward ? `<-[${backward.kind}]-` : '--';
}

function pathText(a: GraphQueryAnswer, from: string, to: string): string {
  if (!a.path || a.path.length === 0) return `no path from ${from} to ${to} within ${a.bounds.max_depth} hops\n` + notes(a);
  const byId = new Map(a.nodes.map((n) => [n.id, n]));
  const text = (id: string) => (byId.has(id) ? nodeText(byId.get(id)!) : id);
  const lines = [`path of ${a.path.length - 1} hop${a.path.length === 2 ? '' : 's'}:`, `  ${text(a.path[0]!)}`];
  for (let i = 1; i < a.path.length; i++) lines.push(`  ${step(a.edges, a.path[i - 1]!, a.path[i]!)} ${text(a.path[i]!)}`);
  return lines.join('\n') + '\n' + notes(a);
}

function sharedText(a: GraphQueryAnswer, first: string, second: string): string {
  const [x, y, ...threads] = a.nodes;
  if (!x || !y || threads.length === 0) return `no thread shared by ${first} and ${second}\n` + notes(a);
  const count = (actor: GraphNode, thread: GraphNode) => String(a.edges.find((e) => e.from === actor.id && e.to === thread.id && e.kind === 'wrote_in')?.count ?? 0);
  const rows = threads.map((t) => [t.id, labelOf(t), count(x, t), count(y, t)]);
  return textTable(['thread', 'label', `records by ${x.label}`, `records by ${y.label}`], rows) + notes(a);
}

function neighborhoodText(a: GraphQueryAnswer): string {
  const rows = a.nodes.map((n) => [String(n.depth ?? ''), n.kind, n.id, labelOf(n)]);
  return textTable(['depth', 'kind', 'node', 'label'], rows) + `${a.nodes.length} node${a.nodes.length === 1 ? '' : 's'}, ${a.edges.length} edge${a.edges.length === 1 ? '' : 's'} between them (--json lists them)\n` + notes(a);
}

function centralText(a: GraphQueryAnswer): string {
  if (a.nodes.length === 0) return 'no nodes\n' + notes(a);
  const byId = new Map(a.nodes.map((n) => [n.id, n]));
  const rows = (a.ranking ?? []).map((r, i) => {
    const node = byId.get(r.id);
    return [String(i + 1), r.id, node ? labelOf(node) : '', String(r.degree), String(r.records)];
  });
  return textTable(['rank', 'node', 'label', 'degree', 'records'], rows) + notes(a);
}

function facetsText(f: GraphFacets): string {
  const t = f.totals;
  let text = `${t.records} records, ${t.kinds} body kinds, ${t.actors} actors, ${t.threads} threads (watermark ${f.watermark})\n`;
  if (f.kinds.length > 0) text += '\nkinds:\n' + textTable(['kind', 'records'], f.kinds.map((k) => [k.kind, String(k.records)]));
  if (f.actors.length > 0) text += '\nactors:\n' + textTable(['actor', 'records', 'threads', 'assigned'], f.actors.map((a) => [a.did, String(a.records), String(a.threads), String(a.assigned)]));
  if (f.threads.length > 0) text += '\nthreads:\n' + textTable(['thread', 'label', 'records', 'writers'], f.threads.map((th) => [th.thread, th.label === th.thread ? '' : th.label, String(th.records), String(th.actors)]));
  if (f.truncated) text += `\nlists cut to --limit ${f.limit}: the totals count every row\n`;
  if (f.restricted) text += (f.truncated ? '' : '\n') + 'over only the records this credential may read\n';
  return text;
}

const graphQuery = (ctx: ClientContext, query: NonNullable<GetGraphQueryData['query']>) => call(ctx, ctx.client.getGraphQuery({ query }));

/** A graph subcommand: its arity checked, then --limit and --k, as one path for all five. */
function graphSub<O extends OptionDecls>(command: Sub, summary: string, args: readonly string[], options: O, act: (ctx: ClientContext, positionals: readonly string[], values: GraphValues, bounded: { limit?: number }, k: number | undefined) => Promise<void>) {
  return subcommand({
    summary,
    args,
    options,
    run: async ({ values, positionals }) => {
      const given = values as GraphValues;
      if (positionals.length !== SUBCOMMANDS[command]) throw new CliError(`loom graph ${command} takes ${ARGUMENTS[command]}\n${GRAPH_USAGE}`);
      const limit = integerOption('limit', given.limit, 1);
      const k = integerOption('k', given.k, 1);
      await act(clientContext(given), positionals, given, { ...(limit !== undefined ? { limit } : {}) }, k);
    },
  });
}

export const graph = defineCommand({
  name: 'graph',
  summary: 'the record graph',
  usage: GRAPH_USAGE,
  json: true,
  unknownSubcommand: (sub) => `${sub === undefined ? 'a subcommand is required' : `unknown subcommand "${sub}" of loom graph`}\n${GRAPH_USAGE}`,
  subcommands: {
    path: graphSub('path', "a shortest path (at most the server's max_depth hops, 6 by default)", ['<from>', '<to>'], CLIENT_OPTIONS, async (ctx, positionals) => {
      const [from, to] = positionals as [string, string];
      const { data } = await graphQuery(ctx, { op: 'path', from, to });
      print(ctx, data, () => pathText(data, from, to));
    }),
    shared: graphSub('shared', 'the threads both actors wrote on, most records first', ['<actor>', '<actor>'], { ...CLIENT_OPTIONS, ...LIMIT }, async (ctx, positionals, _values, bounded) => {
      const [a, b] = positionals as [string, string];
      const { data } = await graphQuery(ctx, { op: 'shared_context', a, b, ...bounded });
      print(ctx, data, () => sharedText(data, a, b));
    }),
    neighborhood: graphSub(
      'neighborhood',
      'the nodes within --k hops, breadth first',
      ['<node>'],
      { ...CLIENT_OPTIONS, k: { type: 'string', value: 'N', help: 'hops (1 to 3, default 1)' }, ...LIMIT },
      async (ctx, positionals, _values, bounded, k) => {
        const { data } = await graphQuery(ctx, { op: 'neighborhood', node: positionals[0]!, ...(k !== undefined ? { k } : {}), ...bounded });
        print(ctx, data, () => neighborhoodText(data));
      },
    ),
    central: graphSub(
      'central',
      'the actors (or threads) with the most distinct threads written on, ties by records',
      [],
      { ...CLIENT_OPTIONS, kind: { type: 'string', value: 'actor|thread', help: 'which nodes to rank' }, ...LIMIT },
      async (ctx, _positionals, values, bounded) => {
        const { data } = await graphQuery(ctx, { op: 'centrality', ...(values.kind !== undefined ? { kind: values.kind } : {}), ...bounded });
        print(ctx, data, () => centralText(data));
      },
    ),
    facets: graphSub('facets', 'the body kinds, actors and threads, most records first', [], { ...CLIENT_OPTIONS, ...LIMIT }, async (ctx, _positionals, _values, bounded) => {
      const { data } = await call(ctx, ctx.client.getGraphFacets({ query: bounded }));
      print(ctx, data, () => facetsText(data));
    }),
  },
});
