/**
 * `loom search`, `loom find`, `loom embed`, `loom embedding-provider`:
 * semantic search (POST /v1/records/search, records:read), blended find
 * (GET /v1/find, records:read; --stats and --rebuild are admin), the
 * embedding backfill (POST /v1/records/embed, admin; --loop calls it until
 * nothing is left, with progress on stderr) and the `embedding_provider`
 * configuration topic (admin to write). --json prints the server's answers.
 */
import { defineCommand, subcommand, type OptionValues } from '../../../command/define-command.js';
import { CliError } from '../../../command/cli-error.js';
import { call, clientContext, CLIENT_OPTIONS, print } from '../../kit/context.js';
import { integerOption } from '../../kit/options.js';
import type { EmbedReport, FindHit, SearchStats } from '../../../sdk/index.js';

export const SEARCH_USAGE = `loom search "<query>" [-k N] [--thread <th_…>] [--actor <did>] [--kind <body.kind>] [--after-clock N] [--url …] [--token …] [--json]
  The records most similar in meaning to the query (needs an embedding provider: loom embedding-provider set).
  -k: how many (default 10, 1 to 100).
loom find "<words>" [--limit N] [--types material,thread] [--prefix] [--explain] [--url …] [--token …] [--json]
loom find --stats | --rebuild [materials|threads|all]
  Full-text find over file names, text file contents and conversations, one BM25 ranking (no provider needed).
  --prefix: the last word also matches as a prefix. --limit: default 20, at most 100.
  --stats: the indexes' coverage and failures (admin). --rebuild: drop and re-index (admin; default all).
loom embed [--limit N] [--loop] [--url …] [--token …] [--json]
  Embeds records that have no vector under the active model (admin); --loop until none is left.
loom embedding-provider set [--endpoint http://localhost:11434] [--model nomic-embed-text] | show | clear
  The local embedding server semantic search uses (an Ollama server; admin to set or clear).`;

const shortId = (id: string) => id.slice(0, 12);
const oneLine = (text: string, max = 100) => (text.length > max ? text.slice(0, max - 1) + '…' : text);

/** The snippet with its matched words in brackets (or bold on a terminal). */
function marked(snippet: FindHit['snippet']): string {
  const bold = process.stdout.isTTY ? ['\u001b[1m', '\u001b[22m'] : ['[', ']'];
  let out = '';
  let at = 0;
  for (const [start, end] of snippet.offsets) {
    out += snippet.text.slice(at, start) + bold[0] + snippet.text.slice(start, end) + bold[1];
    at = end;
  }
  return out + snippet.text.slice(at);
}

function statsText(stats: SearchStats): string {
  const find = stats.find as Record<string, any>;
  const semantic = stats.semantic as Record<string, any>;
  const lines = [
    `find: ${find.documents.thread} conversation records, ${find.documents.material} files; read the log to ${find.indexed_through} of ${find.log_position} (${Math.floor(find.coverage * 100)}%)` +
      `${find.pending_namespaces > 0 ? `; ${find.pending_namespaces} namespace(s) to reconcile` : ''}${find.rebuilding ? `; rebuilding ${find.rebuilding.scope} since ${find.rebuilding.startedAt}` : ''}`,
    `  last failure: ${find.last_failure ? `${find.last_failure.at} ${find.last_failure.message}` : 'none'}`,
    `semantic: ${semantic.enabled ? `${semantic.embedder} at ${semantic.endpoint}, ${semantic.provider_state}` : 'off (no embedding provider)'}`,
  ];
  for (const model of semantic.models ?? []) {
    lines.push(`  ${model.active ? '*' : ' '} ${model.embedder}: ${model.vectors} vectors × ${model.dimensions}, ${model.pending_records} records to examine, ${model.failed_records} refused; index ${model.index.kind} (${model.index.indexed} in the graph, ${model.index.pending} to add)`);
  }
  if (semantic.last_failure) lines.push(`  last failure: ${semantic.last_failure.at} ${semantic.last_failure.message}`);
  return lines.join('\n') + '\n';
}

export const search = defineCommand({
  name: 'search',
  summary: 'semantic search',
  usage: SEARCH_USAGE,
  json: true,
  args: ['<query>'],
  options: { ...CLIENT_OPTIONS, k: { type: 'string', short: 'k' }, thread: { type: 'string' }, actor: { type: 'string' }, kind: { type: 'string' }, 'after-clock': { type: 'string' } },
  run: async ({ values, positionals }) => {
    const query = positionals.join(' ');
    if (query.trim() === '') throw new CliError(`give the text to search for\n${SEARCH_USAGE}`);
    const ctx = clientContext(values);
    const k = integerOption('k', values.k, 1);
    const afterClock = integerOption('after-clock', values['after-clock']);
    const body = { query, ...(k !== undefined ? { k } : {}), ...(values.thread ? { thread: values.thread } : {}), ...(values.actor ? { actor: values.actor } : {}), ...(values.kind ? { kind: values.kind } : {}), ...(afterClock !== undefined ? { after_clock: afterClock } : {}) };
    const { data } = await call(ctx, ctx.client.searchRecords({ body }));
    print(ctx, data, () => {
      if (data.data.length === 0) return `no records found (${data.embedder})\n`;
      const lines = data.data.map((r) => `${r.score.toFixed(3)}  ${shortId(r.id)}  ${r.thread.slice(0, 16)}  ${r.actor}  ${oneLine(JSON.stringify(r.body), 90)}`);
      return lines.join('\n') + `\n${data.data.length} of k=${data.k} by ${data.embedder}\n`;
    });
  },
});

export const find = defineCommand({
  name: 'find',
  summary: 'full-text find',
  usage: SEARCH_USAGE,
  json: true,
  args: ['<words>'],
  options: { ...CLIENT_OPTIONS, limit: { type: 'string' }, types: { type: 'string' }, prefix: { type: 'boolean', default: false }, explain: { type: 'boolean', default: false }, stats: { type: 'boolean', default: false }, rebuild: { type: 'boolean', default: false } },
  run: async ({ values, positionals }) => {
    const ctx = clientContext(values);
    if (values.stats) {
      const { data } = await call(ctx, ctx.client.getSearchStats());
      return print(ctx, data, () => statsText(data));
    }
    if (values.rebuild) {
      const scope = positionals[0] ?? 'all';
      if (scope !== 'materials' && scope !== 'threads' && scope !== 'all') throw new CliError(`--rebuild takes materials, threads or all, not ${JSON.stringify(scope)}`);
      const { data } = await call(ctx, ctx.client.rebuildSearch({ body: { scope } }));
      return print(ctx, data, () => `rebuilding ${data.scope}: ${data.dropped} documents dropped, re-indexing in the background (loom find --stats shows progress)\n`);
    }
    const q = positionals.join(' ');
    if (q.trim() === '') throw new CliError(`give the words to find\n${SEARCH_USAGE}`);
    const limit = integerOption('limit', values.limit, 1);
    const { data } = await call(ctx, ctx.client.find({ query: { q, ...(limit !== undefined ? { limit } : {}), ...(values.types ? { types: values.types } : {}), ...(values.prefix ? { prefix: true } : {}), ...(values.explain ? { explain: true } : {}) } }));
    print(ctx, data, () => {
      if (data.data.length === 0) return `nothing found for "${q}"\n`;
      const lines: string[] = [];
      for (const hit of data.data) {
        const where = hit.type === 'thread' ? hit.thread! : `${hit.namespace === 'default' ? '' : `${hit.namespace}:`}${hit.path}`;
        lines.push(`${hit.score.toFixed(2).padStart(6)}  ${hit.type === 'thread' ? 'thread  ' : 'file    '}${oneLine(hit.title, 60)}  (${where})`);
        lines.push(`        ${marked(hit.snippet)}`);
        if (hit.explain) lines.push(`        ${hit.explain.plane}, rank ${hit.explain.rank}: ${Object.entries(hit.explain.terms).map(([term, share]) => `${term} ${share.toFixed(2)}`).join(', ')}`);
      }
      if (data.planes_degraded.length > 0) lines.push(`still indexing: ${data.planes_degraded.join(', ')} (answers may be incomplete)`);
      return lines.join('\n') + '\n';
    });
  },
});

export const embed = defineCommand({
  name: 'embed',
  summary: 'embedding runs',
  usage: SEARCH_USAGE,
  json: true,
  options: { ...CLIENT_OPTIONS, limit: { type: 'string' }, loop: { type: 'boolean', default: false } },
  run: async ({ values }) => {
    const ctx = clientContext(values);
    const limit = integerOption('limit', values.limit, 1);
    const totals = { embedded: 0, skipped_empty: 0, failed: 0 };
    let last: EmbedReport;
    const progress = !ctx.json && process.stderr.isTTY;
    for (;;) {
      const { data } = await call(ctx, ctx.client.embedRecords({ body: limit !== undefined ? { limit } : {} }));
      last = data;
      totals.embedded += data.embedded;
      totals.skipped_empty += data.skipped_empty;
      totals.failed += data.failed;
      if (progress) process.stderr.write(`\r${data.embedder}: ${totals.embedded} embedded, ${totals.skipped_empty} without text, ${totals.failed} refused; ${data.remaining} records left   `);
      if (!values.loop || !data.has_more) break;
    }
    if (progress) process.stderr.write('\n');
    const summary = { ...last, ...totals };
    print(ctx, summary, () => `${summary.embedder}: ${summary.embedded} embedded, ${summary.skipped_empty} without text, ${summary.failed} refused by the server; ${summary.remaining} records left${summary.has_more ? ' (run again, or --loop)' : ''}\n`);
  },
});

// All three take --endpoint and --model, so show and clear refuse them with the words they always used.
const PROVIDER_OPTIONS = {
  ...CLIENT_OPTIONS,
  endpoint: { type: 'string', value: 'url', help: 'the Ollama server (set; default http://localhost:11434)' },
  model: { type: 'string', value: 'name', help: 'the embedding model (set; default nomic-embed-text)' },
} as const;

async function provider(sub: 'set' | 'show' | 'clear', values: OptionValues<typeof PROVIDER_OPTIONS>, positionals: readonly string[]): Promise<void> {
  // As parseArgs words it: no subcommand takes an argument.
  if (positionals.length > 0) throw new CliError(`Unexpected argument '${positionals[0]}'. This command does not take positional arguments`);
  const ctx = clientContext(values);
  if (sub !== 'set' && (values.endpoint || values.model)) throw new CliError(`--endpoint and --model belong to "set"`);
  if (sub === 'show') {
    const { data } = await call(ctx, ctx.client.getConfigTopic({ path: { topic: 'embedding_provider' } }));
    const value = (data as { value: { provider?: { kind: string; endpoint: string; model: string } | null } | null }).value;
    return print(ctx, data, () => (value?.provider ? `${value.provider.kind}:${value.provider.model} at ${value.provider.endpoint}\n` : 'no embedding provider: semantic search is off\n'));
  }
  const provider = sub === 'clear' ? null : { kind: 'ollama', ...(values.endpoint ? { endpoint: values.endpoint } : {}), ...(values.model ? { model: values.model } : {}) };
  const { data } = await call(ctx, ctx.client.writeConfigTopic({ path: { topic: 'embedding_provider' }, body: { provider } }));
  print(ctx, data, () => (provider ? `embedding provider set: ollama:${values.model ?? 'nomic-embed-text'} at ${values.endpoint ?? 'http://localhost:11434'}; new records are embedded in the background, "loom embed --loop" backfills\n` : 'embedding provider cleared: semantic search is off (vectors are kept)\n'));
}

export const embeddingProvider = defineCommand({
  name: 'embedding-provider',
  summary: 'the embedding provider',
  usage: SEARCH_USAGE,
  json: true,
  subcommands: {
    set: subcommand({ summary: 'the local embedding server semantic search uses (admin)', options: PROVIDER_OPTIONS, run: ({ values, positionals }) => provider('set', values, positionals) }),
    show: subcommand({ summary: 'the embedding provider in use', options: PROVIDER_OPTIONS, run: ({ values, positionals }) => provider('show', values, positionals) }),
    clear: subcommand({ summary: 'turns semantic search off; vectors are kept (admin)', options: PROVIDER_OPTIONS, run: ({ values, positionals }) => provider('clear', values, positionals) }),
  },
});
