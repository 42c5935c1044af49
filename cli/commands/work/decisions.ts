/**
 * `loom decisions [list]` and `loom decisions answer <id>`: the decisions
 * runs wait on (GET /v1/decisions) and an answer to one (POST
 * /v1/decisions/{id}/decide). Without --choose or --other, answer shows the
 * question and its options and reads the choice from the terminal (a
 * number or an option id, several with commas where the ask takes several,
 * `o` for your own words), then an optional reason; the server applies the
 * rules (BAD_OPTION and the others refuse by name, writing nothing).
 */
import { createInterface } from 'node:readline';
import { defineCommand, subcommand } from '../../../command/define-command.js';
import { CliError } from '../../../command/cli-error.js';
import type { Decision, DecisionOutcome, DecisionPage } from '../../../sdk/index.js';
import { call, clientContext, CLIENT_OPTIONS, print, type ClientContext } from '../../kit/context.js';
import { integerOption } from '../../kit/options.js';
import { textTable } from '../../kit/text-table.js';

export const DECISIONS_USAGE = `loom decisions [list] [--run T] [--actor DID] [--thread T] [--limit N] [--after C] [--url …] [--token …] [--json]
loom decisions answer <id> [--choose id[,id]] [--other "text"] [--reason "text"] [--url …] [--token …] [--json]
  list: decisions runs wait on (state waiting_on_you), oldest first, that you may read.
  answer: shows the question and its options and asks for your choice; --choose (option ids) or --other (your own
    words, where the ask allows them) answer without asking. The run resumes on the chosen options' labels and
    descriptions, or your words. Allowed: whoever started the run, the member's owner, an operator.`;

const OTHER = 'other';

function listText(page: DecisionPage): string {
  if (page.data.length === 0) return 'no pending decisions\n';
  const rows = page.data.map((d) => [d.id.slice(0, 12), d.about, d.actor_name ?? d.actor, d.run, d.question.length > 60 ? `${d.question.slice(0, 59)}…` : d.question]);
  return textTable(['ID', 'ABOUT', 'MEMBER', 'RUN', 'QUESTION'], rows) + (page.has_more ? `more: --after ${page.next_cursor}\n` : '');
}

function askText(d: Decision): string {
  const lines = [`${d.question}`, `  asked by ${d.actor_name ?? d.actor} in run ${d.run} (${d.about}${d.proposal_kind ? `, a ${d.proposal_kind} proposal, plan ${d.plan_hash}` : ''})`];
  if (d.reason) lines.push(`  why: ${d.reason}`);
  if (d.about === 'tool_call' && d.input !== null) lines.push(`  call: ${d.tool} ${JSON.stringify(d.input)}`);
  d.options.forEach((o, index) => lines.push(`  ${index + 1}) ${o.label}${o.recommended ? ' (recommended)' : ''}${o.description ? ` — ${o.description}` : ''}  [${o.id}]`));
  if (d.allow_other) lines.push(`  o) your own words`);
  return lines.join('\n') + '\n';
}

function outcomeText(outcome: DecisionOutcome): string {
  const installed = outcome.kind === 'blueprint_proposal' ? (outcome.installed ? `installed (plan ${outcome.plan?.plan_hash})\n` : 'not installed\n') : '';
  return `answered ${outcome.decision} (${outcome.answer}); run ${outcome.run} resumes on:\n${outcome.words}\n${installed}`;
}

/** Lines from stdin, one per question (buffered, so piped answers are never lost between prompts). */
function lineReader(): { ask(prompt: string): Promise<string>; close(): void } {
  const rl = createInterface({ input: process.stdin, terminal: false });
  const lines = rl[Symbol.asyncIterator]();
  return {
    async ask(prompt) {
      process.stdout.write(prompt);
      const next = await lines.next();
      if (next.done) throw new CliError('no answer given (stdin closed); nothing written');
      return next.value.trim();
    },
    close: () => rl.close(),
  };
}

async function findDecision(ctx: ClientContext, id: string): Promise<Decision> {
  let after: string | undefined;
  for (;;) {
    const { data } = await call(ctx, ctx.client.listDecisions({ query: { limit: 500, ...(after ? { after } : {}) } }));
    const found = data.data.find((d) => d.id === id || d.id.startsWith(id));
    if (found) return found;
    if (!data.has_more || !data.next_cursor) throw new CliError(`no pending decision ${id} that you may read (loom decisions lists them)`, 1, 'NOT_FOUND');
    after = data.next_cursor;
  }
}

/** The answer the person types: numbers or ids (several where multi), or o and their words. */
async function interactive(decision: Decision): Promise<{ decision: string; decisions?: string[]; provided_value?: string; reason?: string }> {
  const reader = lineReader();
  try {
    process.stdout.write(askText(decision));
    const choice = await reader.ask(decision.multi ? 'choose (numbers or ids, comma-separated): ' : 'choose (a number or an id): ');
    const picks = choice.split(',').map((p) => p.trim()).filter((p) => p !== '');
    if (picks.length === 0) throw new CliError('no choice given; nothing written');
    const ids = picks.map((pick) => {
      if (pick === 'o' || pick === OTHER) return OTHER;
      const n = Number(pick);
      return Number.isInteger(n) && n >= 1 && n <= decision.options.length ? decision.options[n - 1]!.id : pick;
    });
    const provided = ids.includes(OTHER) ? await reader.ask('your words: ') : undefined;
    const reason = await reader.ask('reason (optional): ');
    return { decision: ids[0]!, ...(ids.length > 1 ? { decisions: ids.slice(1) } : {}), ...(provided !== undefined ? { provided_value: provided } : {}), ...(reason ? { reason } : {}) };
  } finally {
    reader.close();
  }
}

export const decisions = defineCommand({
  name: 'decisions',
  summary: 'decisions runs wait on, and answering them',
  usage: DECISIONS_USAGE,
  json: true,
  defaultSubcommand: 'list',
  subcommands: {
    list: subcommand({
      summary: 'pending decisions, oldest first (records:read)',
      options: {
        ...CLIENT_OPTIONS,
        run: { type: 'string', value: 'thread', help: 'the decision of this run only' },
        actor: { type: 'string', value: 'did', help: 'decisions this member asks only' },
        thread: { type: 'string', value: 'thread', help: 'decisions on this thread only' },
        limit: { type: 'string', value: 'N', help: 'decisions at most (default 50, at most 500)' },
        after: { type: 'string', value: 'cursor', help: 'the next page (next_cursor)' },
      },
      run: async ({ values, positionals }) => {
        if (positionals.length !== 0) throw new CliError(`loom decisions list takes no arguments (got "${positionals[0]}")\n${DECISIONS_USAGE}`);
        const limit = integerOption('limit', values.limit, 1);
        const ctx = clientContext(values);
        const query = {
          ...(values.run !== undefined ? { run: values.run } : {}),
          ...(values.actor !== undefined ? { actor: values.actor } : {}),
          ...(values.thread !== undefined ? { thread: values.thread } : {}),
          ...(values.after !== undefined ? { after: values.after } : {}),
          ...(limit !== undefined ? { limit } : {}),
        };
        const { data } = await call(ctx, ctx.client.listDecisions({ query }));
        print(ctx, data, () => listText(data));
      },
    }),
    answer: subcommand({
      summary: 'answer a decision, interactively or with --choose / --other (records:write)',
      args: ['<id>'],
      options: {
        ...CLIENT_OPTIONS,
        choose: { type: 'string', value: 'id[,id]', help: 'option ids (several where the ask takes several)' },
        other: { type: 'string', value: 'text', help: 'your own words, where the ask allows them' },
        reason: { type: 'string', value: 'text', help: 'why: the run reads it verbatim' },
      },
      run: async ({ values, positionals }) => {
        if (positionals.length !== 1) throw new CliError(`loom decisions answer takes one decision id\n${DECISIONS_USAGE}`);
        const ctx = clientContext(values);
        let body: { decision: string; decisions?: string[]; provided_value?: string; reason?: string };
        let id = positionals[0]!;
        if (values.choose !== undefined || values.other !== undefined) {
          const ids = (values.choose ?? '').split(',').map((p) => p.trim()).filter((p) => p !== '');
          if (values.other !== undefined) ids.push(OTHER);
          body = { decision: ids[0]!, ...(ids.length > 1 ? { decisions: ids.slice(1) } : {}), ...(values.other !== undefined ? { provided_value: values.other } : {}), ...(values.reason !== undefined ? { reason: values.reason } : {}) };
        } else {
          if (ctx.json) throw new CliError('--json answers need --choose or --other (there is no prompt to read)');
          const decision = await findDecision(ctx, id);
          id = decision.id;
          body = await interactive(decision);
          if (values.reason !== undefined && body.reason === undefined) body.reason = values.reason;
        }
        const { data } = await call(ctx, ctx.client.decideDecision({ path: { id }, body }));
        print(ctx, data, () => outcomeText(data));
      },
    }),
  },
});
