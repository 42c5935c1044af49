/** `loom query`: a structured query over the records (POST /v1/query), with its plan on --explain. */
import { defineCommand } from '../../../command/define-command.js';
import { call, clientContext, CLIENT_OPTIONS, parseJsonOption, print } from '../../kit/context.js';

export const QUERY_USAGE = `loom query [--thread <th_…>] [--filter '{…}'] [--sort '{"clock":-1}'] [--limit N] [--offset N] [--explain] [--url …] [--json]`;

export const query = defineCommand({
  name: 'query',
  summary: 'queries records',
  usage: QUERY_USAGE,
  json: true,
  options: {
    ...CLIENT_OPTIONS,
    thread: { type: 'string' },
    filter: { type: 'string' },
    sort: { type: 'string' },
    limit: { type: 'string' },
    offset: { type: 'string' },
    explain: { type: 'boolean', default: false },
  },
  run: async ({ values }) => {
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
  },
});
