/**
 * The member doors of `loom actors` (spec §4.15): define, patch, history,
 * revert, retire, roster and workspace, each one SDK call. Kept apart from
 * the actor directory's list/show (cli/commands/actors/actors.ts), which
 * registers them as subcommands.
 */
import { readFile } from 'node:fs/promises';
import { subcommand } from '../../../command/define-command.js';
import { CliError } from '../../../command/cli-error.js';
import { call, clientContext, CLIENT_OPTIONS, parseListOption, print } from '../../kit/context.js';
import { didArgument, integerOption, numberOption, shortId } from '../../kit/options.js';
import { textTable } from '../../kit/text-table.js';
import type { ActorHistory, ActorRoster, DefineActorData, MemberRow, PatchActorDefinitionData, Workspace } from '../../../sdk/index.js';

export const MEMBER_USAGE = `loom actors define <label> [--model M] [--prompt-ref record:<id>] [--tools a,b] [--reads th_…,…]
            [--budget USD] [--max-turns N] [--daily-cost-cap USD] [--daily-loop-cap N] [--display-name T]
            [--brief T] [--declares k1,k2] [--write-admit clause,…] [--approval-required a,b]
            [--default-on-new-threads] [--file def.json]
loom actors patch <did> [--model M] [--prompt T | --prompt-file F] [--add-tool a,b] [--remove-tool a,b]
            [--budget USD] [--max-turns N] [--display-name T]
loom actors history <did> [--limit N]        loom actors revert <did> <definition_record_id>
loom actors retire <did>                     loom actors roster [--limit N] [--after <did>] [--active]
loom actors workspace
  Member actors (records:write to change, records:read to read). define creates the member your
  DID and the label name, or its next version; --file takes the define body as JSON (flags override it).
  patch, history and revert are for the member's owner; retire for its owner or an operator.`;

const list = (_name: string, text: string | undefined) => parseListOption(text);
const orDash = (value: unknown) => (value === null || value === undefined || value === '' ? '-' : String(value));

export function memberText(row: MemberRow): string {
  const facts: Array<[string, string]> = [
    ['label', row.label],
    ['owner', row.owner],
    ['model', orDash(row.model)],
    ['tools', row.tools.length === 0 ? '-' : row.tools.join(', ')],
    ...(row.approval_required.length > 0 ? [['approval', row.approval_required.join(', ')] as [string, string]] : []),
    ['prompt', orDash(row.prompt_record_id)],
    ['ceilings', `budget ${orDash(row.budget_usd)} USD, ${orDash(row.max_turns)} turns; daily ${orDash(row.daily_cost_cap_usd)} USD, ${orDash(row.daily_loop_cap)} runs`],
    ['state', row.retired ? 'retired' : row.enabled ? 'enabled' : 'disabled'],
    ['version', `${row.version} (${row.definition_record_id}, ${row.updated_at})`],
  ];
  return `${row.did} ${row.display_name !== row.label ? `"${row.display_name}"` : ''}\n`.replace(' \n', '\n') + facts.map(([k, v]) => `  ${k.padEnd(9)} ${v}\n`).join('');
}

function historyText(history: ActorHistory): string {
  const rows = history.data.map((v) => [String(v.version), v.at, v.by, v.change, v.changed.join(', '), orDash(v.model), String(v.tools.length), shortId(v.definition_record_id)]);
  const more = history.truncated ? `… ${history.total - history.data.length} older: --limit ${history.total}\n` : '';
  return textTable(['version', 'at', 'by', 'change', 'changed', 'model', 'tools', 'record'], rows) + more;
}

function rosterText(roster: ActorRoster): string {
  if (roster.data.length === 0) return 'no members\n';
  const rows = roster.data.map((e) => [e.did, e.label, e.proposer, orDash(e.model), String(e.tools.length), e.retired ? 'retired' : e.enabled ? 'enabled' : 'disabled', String(e.version)]);
  const more = roster.has_more && roster.next_after ? `… more: --after ${roster.next_after}\n` : '';
  return `${roster.count} member${roster.count === 1 ? '' : 's'}\n` + textTable(['member', 'label', 'proposer', 'model', 'tools', 'state', 'version'], rows) + more;
}

function workspaceText(workspace: Workspace): string {
  const models = textTable(['model', 'provider', 'in $/Mtok', 'out $/Mtok', 'context'], workspace.models.map((m) => [m.id, m.provider, String(m.input_usd_per_mtok), String(m.output_usd_per_mtok), String(m.context_window)]));
  const mine = workspace.assistants.length === 0 ? 'no members defined by you\n' : textTable(['member', 'label', 'model', 'state', 'version'], workspace.assistants.map((a) => [a.did, a.label, orDash(a.model), a.retired ? 'retired' : 'enabled', String(a.version)]));
  return `${workspace.actor}\n\nmodels:\n${models}\nyour members:\n${mine}`;
}

async function defineBody(label: string, values: Record<string, string | boolean | undefined>): Promise<DefineActorData['body']> {
  let base: Record<string, unknown> = {};
  if (typeof values['file'] === 'string') {
    try {
      base = JSON.parse(await readFile(values['file'], 'utf8')) as Record<string, unknown>;
    } catch (error) {
      throw new CliError(`--file ${values['file']}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  const loop: Record<string, unknown> = { ...((base['work_loop'] as Record<string, unknown> | undefined) ?? {}) };
  const set = (target: Record<string, unknown>, key: string, value: unknown) => {
    if (value !== undefined) target[key] = value;
  };
  set(loop, 'model', values['model']);
  set(loop, 'system_prompt_ref', values['prompt-ref']);
  set(loop, 'tools', list('tools', values['tools'] as string | undefined));
  set(loop, 'reads', list('reads', values['reads'] as string | undefined));
  set(loop, 'approval_required', list('approval-required', values['approval-required'] as string | undefined));
  set(loop, 'budget_usd', numberOption('budget', values['budget'] as string | undefined));
  set(loop, 'max_turns', integerOption('max-turns', values['max-turns'] as string | undefined));
  set(loop, 'daily_cost_cap_usd', numberOption('daily-cost-cap', values['daily-cost-cap'] as string | undefined));
  set(loop, 'daily_loop_cap', integerOption('daily-loop-cap', values['daily-loop-cap'] as string | undefined));
  const body: Record<string, unknown> = { ...base, label };
  set(body, 'display_name', values['display-name']);
  set(body, 'brief', values['brief']);
  set(body, 'declares_kinds', list('declares', values['declares'] as string | undefined));
  set(body, 'write_admit', list('write-admit', values['write-admit'] as string | undefined));
  if (values['default-on-new-threads'] === true) body['default_on_new_threads'] = true;
  if (Object.keys(loop).length > 0) body['work_loop'] = loop;
  return body as DefineActorData['body'];
}

export const memberSubcommands = {
  define: subcommand({
    summary: 'define a member actor, or write its next version (records:write)',
    args: ['<label>'],
    options: {
      ...CLIENT_OPTIONS,
      model: { type: 'string', value: 'M', help: 'a model of the priced catalog (loom actors workspace lists them)' },
      'prompt-ref': { type: 'string', value: 'record:<id>', help: 'a core.actor.prompt.v1 record you can read' },
      tools: { type: 'string', value: 'a,b', help: 'tools the member may call' },
      reads: { type: 'string', value: 'th_…,…', help: 'threads read in every run' },
      'approval-required': { type: 'string', value: 'a,b', help: 'tools whose every call waits on a person\'s decision' },
      budget: { type: 'string', value: 'USD', help: 'per-run cost ceiling' },
      'max-turns': { type: 'string', value: 'N', help: 'per-run turn ceiling' },
      'daily-cost-cap': { type: 'string', value: 'USD', help: 'per-day cost ceiling (only narrows the tier)' },
      'daily-loop-cap': { type: 'string', value: 'N', help: 'runs per day (only narrows the tier)' },
      'display-name': { type: 'string', value: 'T', help: 'shown instead of the label' },
      brief: { type: 'string', value: 'T', help: 'what the member is for' },
      declares: { type: 'string', value: 'k1,k2', help: 'record kinds it declares it writes' },
      'write-admit': { type: 'string', value: 'clause,…', help: 'write scopes or grains (records:write, namespace:<ns>:write, …)' },
      'default-on-new-threads': { type: 'boolean', help: 'the responder on new threads' },
      file: { type: 'string', value: 'def.json', help: 'the define body as JSON' },
    },
    run: async ({ values, positionals }) => {
      if (positionals.length !== 1) throw new CliError(`loom actors define takes one label\n${MEMBER_USAGE}`);
      const ctx = clientContext(values);
      const body = await defineBody(positionals[0]!, values as Record<string, string | boolean | undefined>);
      const { data } = await call(ctx, ctx.client.defineActor({ body }));
      print(ctx, data, () => `${data.created ? 'defined' : 'updated'} ${data.actor_did} (definition ${data.definition})\n`);
    },
  }),
  patch: subcommand({
    summary: "change a member's definition: one new version (owner only)",
    args: ['<did>'],
    options: {
      ...CLIENT_OPTIONS,
      model: { type: 'string', value: 'M', help: 'a model of the priced catalog' },
      prompt: { type: 'string', value: 'T', help: 'new words (written as a prompt record)' },
      'prompt-file': { type: 'string', value: 'F', help: 'new words from a file' },
      'add-tool': { type: 'string', value: 'a,b', help: 'tools to add' },
      'remove-tool': { type: 'string', value: 'a,b', help: 'tools to remove' },
      budget: { type: 'string', value: 'USD', help: 'per-run cost ceiling' },
      'max-turns': { type: 'string', value: 'N', help: 'per-run turn ceiling' },
      'display-name': { type: 'string', value: 'T', help: 'shown instead of the label' },
    },
    run: async ({ values, positionals }) => {
      if (positionals.length !== 1) throw new CliError(`loom actors patch takes one member DID\n${MEMBER_USAGE}`);
      if (values.prompt !== undefined && values['prompt-file'] !== undefined) throw new CliError('--prompt and --prompt-file: give one');
      const did = didArgument('the member', positionals[0]!);
      const body: PatchActorDefinitionData['body'] = {};
      if (values.model !== undefined) body.model = values.model;
      if (values['display-name'] !== undefined) body.display_name = values['display-name'];
      if (values.prompt !== undefined) body.prompt = values.prompt;
      if (values['prompt-file'] !== undefined) body.prompt = await readFile(values['prompt-file'], 'utf8');
      const add = list('add-tool', values['add-tool']);
      const remove = list('remove-tool', values['remove-tool']);
      if (add || remove) body.tools = { ...(add ? { add } : {}), ...(remove ? { remove } : {}) };
      const budget = numberOption('budget', values.budget);
      if (budget !== undefined) body.budget_usd = budget;
      const turns = integerOption('max-turns', values['max-turns']);
      if (turns !== undefined) body.max_turns = turns;
      const ctx = clientContext(values);
      const { data } = await call(ctx, ctx.client.patchActorDefinition({ path: { did }, body }));
      print(ctx, data, () => memberText(data));
    },
  }),
  history: subcommand({
    summary: "a member's versions, newest first (owner only)",
    args: ['<did>'],
    options: { ...CLIENT_OPTIONS, limit: { type: 'string', value: 'N', help: 'versions shown (default 20)' } },
    run: async ({ values, positionals }) => {
      if (positionals.length !== 1) throw new CliError(`loom actors history takes one member DID\n${MEMBER_USAGE}`);
      const did = didArgument('the member', positionals[0]!);
      const limit = integerOption('limit', values.limit, 1);
      const ctx = clientContext(values);
      const { data } = await call(ctx, ctx.client.listActorHistory({ path: { did }, query: limit !== undefined ? { limit } : {} }));
      print(ctx, data, () => historyText(data));
    },
  }),
  revert: subcommand({
    summary: 'put an earlier version back in force, as a new version (owner only)',
    args: ['<did>', '<definition_record_id>'],
    options: CLIENT_OPTIONS,
    run: async ({ values, positionals }) => {
      if (positionals.length !== 2) throw new CliError(`loom actors revert takes a member DID and a definition record id\n${MEMBER_USAGE}`);
      const did = didArgument('the member', positionals[0]!);
      const ctx = clientContext(values);
      const { data } = await call(ctx, ctx.client.revertActorDefinition({ path: { did }, body: { version: positionals[1]! } }));
      print(ctx, data, () => `reverted to ${data.reverted_to}\n${memberText(data)}`);
    },
  }),
  retire: subcommand({
    summary: 'retire a member: its writes refused, no longer a thread default, disabled (owner or operator)',
    args: ['<did>'],
    options: CLIENT_OPTIONS,
    run: async ({ values, positionals }) => {
      if (positionals.length !== 1) throw new CliError(`loom actors retire takes one member DID\n${MEMBER_USAGE}`);
      const did = didArgument('the member', positionals[0]!);
      const ctx = clientContext(values);
      const { data } = await call(ctx, ctx.client.retireActor({ path: { did } }));
      print(ctx, data, () => `retired ${data.did}\n`);
    },
  }),
  roster: subcommand({
    summary: 'the member actors defined here (records:read)',
    options: {
      ...CLIENT_OPTIONS,
      limit: { type: 'string', value: 'N', help: 'members per page (default 100, at most 1000)' },
      after: { type: 'string', value: 'did', help: 'the page after this member' },
      active: { type: 'boolean', help: 'leave retired members out' },
    },
    run: async ({ values, positionals }) => {
      if (positionals.length !== 0) throw new CliError(`loom actors roster takes no arguments\n${MEMBER_USAGE}`);
      const limit = integerOption('limit', values.limit, 1);
      const ctx = clientContext(values);
      const query = { ...(limit !== undefined ? { limit } : {}), ...(values.after !== undefined ? { after: values.after } : {}), ...(values.active ? { include_retired: false } : {}) };
      const { data } = await call(ctx, ctx.client.getActorRoster({ query }));
      print(ctx, data, () => rosterText(data));
    },
  }),
  workspace: subcommand({
    summary: 'the models you may choose and the members you defined (records:read)',
    options: CLIENT_OPTIONS,
    run: async ({ values, positionals }) => {
      if (positionals.length !== 0) throw new CliError(`loom actors workspace takes no arguments\n${MEMBER_USAGE}`);
      const ctx = clientContext(values);
      const { data } = await call(ctx, ctx.client.getSelfWorkspace());
      print(ctx, data, () => workspaceText(data));
    },
  }),
};
