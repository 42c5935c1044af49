/**
 * `loom blueprint plan|apply|sign|keygen`: blueprints of member actors
 * (POST /v1/blueprints/materialize, records:write). plan is the dry run:
 * every record apply would write and the plan_hash; apply sends that hash
 * back, so what is written is what was reviewed. sign and keygen work
 * offline, for operators who sign blueprints (the server trusts a key once
 * its did:key is in the blueprint_signers configuration topic).
 */
import { readFile, writeFile } from 'node:fs/promises';
import { defineCommand, subcommand } from '../../../command/define-command.js';
import { CliError } from '../../../command/cli-error.js';
import { call, clientContext, CLIENT_OPTIONS, parseListOption, print, type ClientContext } from '../../kit/context.js';
import { shortId } from '../../kit/options.js';
import { textTable } from '../../kit/text-table.js';
import type { Blueprint, BlueprintPlan } from '../../../sdk/index.js';
import { readKeyFile, signBlueprintObject, writeNewKeyFile } from './blueprint-key.js';

export const BLUEPRINT_USAGE = `loom blueprint plan <file> [--extends <name|id>,…] [--url …] [--token …] [--json]
  The plan of a blueprint file, nothing written: every record applying it would write (prompts,
  definition versions, the blueprint record), the members it defines or updates, and its plan_hash.
loom blueprint apply <file> --accept <plan_hash> [--extends <name|id>,…] [--url …] [--token …] [--json]
  Applies the plan whose hash you reviewed; refused (PLAN_HASH_MISMATCH) when the plan changed since.
loom blueprint sign <file> --key <keyfile> [-o <file>] [--json]
  Signs the blueprint (Ed25519 over its canonical JSON without the signature); prints it, or writes -o.
loom blueprint keygen <keyfile> [--json]
  Creates a signing key (an Ed25519 seed, mode 0600) and prints its did:key.
loom blueprint trust <did:key> [--note <text>] [--remove] [--url …] [--token …] [--json]
  Trusts (or, with --remove, stops trusting) a key to sign blueprints here: the blueprint_signers
  configuration topic (whoever may write configuration, usually admin).
A blueprint: {"blueprint_version": 1, "name", "description"?, "prompts"?: {name: text},
  "actors": [{"label", …the fields of loom actors define…, "prompt"?: name}], "signature"?}.`;

async function readJsonObject(path: string, what: string): Promise<Record<string, unknown>> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new CliError(`cannot read ${path}: ${(error as Error).message}`, 1);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new CliError(`${path} is not JSON: ${(error as Error).message}`, 1);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new CliError(`${path} must hold a JSON object (${what})`, 1);
  return value as Record<string, unknown>;
}

function oneFile(positionals: readonly string[], sub: string): string {
  if (positionals.length !== 1) throw new CliError(`loom blueprint ${sub} takes one file\n${BLUEPRINT_USAGE}`);
  return positionals[0]!;
}

async function materialize(ctx: ClientContext, file: string, extendsOption: string | undefined, extra: { dry_run: true } | { accept_plan: string }) {
  const blueprint = (await readJsonObject(file, 'a blueprint')) as unknown as Blueprint;
  const extended = parseListOption(extendsOption);
  const body = { blueprint, ...(extended ? { extends: extended } : {}), ...extra };
  return call(ctx, ctx.client.materializeBlueprint({ body }));
}

function planText(plan: BlueprintPlan, file: string): string {
  const admitted =
    plan.admitted_as === 'trusted_signer' ? `signed by trusted key ${plan.signer}` : `an operator's unsigned blueprint${plan.signer ? ` (its signer ${plan.signer} is not trusted here)` : ''}`;
  const extended = plan.extends.length > 0 ? `; extends ${plan.extends.map((id) => shortId(id)).join(', ')}` : '';
  const lines = [`blueprint ${plan.name}, ${plan.applied ? 'applied' : 'plan (nothing written)'}: ${admitted}${extended}`, ''];
  lines.push(textTable(['member', 'change', 'actor', 'definition'], plan.members.map((m) => [m.label, m.change, m.actor_did, shortId(m.definition)])).trimEnd());
  lines.push('');
  if (plan.records.length === 0) lines.push('records: none (already materialized as it is)');
  else {
    lines.push(`records ${plan.applied ? 'written' : 'to write'} (${plan.records.length}):`);
    const label = new Map(plan.members.map((m) => [m.actor_did, m.label]));
    lines.push(textTable(['#', 'role', 'id', 'for'], plan.records.map((r, i) => [String(i + 1), r.role, shortId(r.record.id), r.member === null ? plan.name : (label.get(r.member) ?? r.member)])).trimEnd());
  }
  lines.push('', `plan_hash: ${plan.plan_hash}`);
  if (!plan.applied) lines.push(`apply with: loom blueprint apply ${file} --accept ${plan.plan_hash}`);
  return lines.join('\n') + '\n';
}

const EXTENDS = { type: 'string', value: 'name|id,…', help: 'blueprints already materialized this one extends (your own by name, any by record id)' } as const;

export const blueprint = defineCommand({
  name: 'blueprint',
  summary: 'plan, apply and sign blueprints of member actors',
  usage: BLUEPRINT_USAGE,
  json: true,
  bareIsHelp: true,
  subcommands: {
    plan: subcommand({
      summary: 'the plan of a blueprint: every record it would write, and its plan_hash (nothing written)',
      args: ['<file>'],
      options: { ...CLIENT_OPTIONS, extends: EXTENDS },
      run: async ({ values, positionals }) => {
        const file = oneFile(positionals, 'plan');
        const ctx = clientContext(values);
        const { data } = await materialize(ctx, file, values.extends, { dry_run: true });
        print(ctx, data, () => planText(data, file));
      },
    }),
    apply: subcommand({
      summary: 'apply the plan whose hash you reviewed (loom blueprint plan prints it)',
      args: ['<file>'],
      options: { ...CLIENT_OPTIONS, extends: EXTENDS, accept: { type: 'string', value: 'plan_hash', help: 'the plan_hash of the plan reviewed' } },
      run: async ({ values, positionals }) => {
        const file = oneFile(positionals, 'apply');
        if (values.accept === undefined) throw new CliError(`loom blueprint apply needs --accept <plan_hash>: review the plan first (loom blueprint plan ${file})`);
        const ctx = clientContext(values);
        const { data } = await materialize(ctx, file, values.extends, { accept_plan: values.accept });
        print(ctx, data, () => planText(data, file));
      },
    }),
    sign: subcommand({
      summary: 'sign a blueprint file with an Ed25519 key file',
      args: ['<file>'],
      options: { key: { type: 'string', value: 'keyfile', help: 'the signing key (64 hex seed)' }, output: { type: 'string', short: 'o', value: 'file', help: 'write the signed blueprint here instead of stdout' } },
      run: async ({ values, positionals }) => {
        const file = oneFile(positionals, 'sign');
        if (values.key === undefined) throw new CliError('loom blueprint sign needs --key <keyfile> (loom blueprint keygen creates one)');
        const key = await readKeyFile(values.key);
        const signed = signBlueprintObject(key, await readJsonObject(file, 'a blueprint'));
        const text = JSON.stringify(signed, null, 2) + '\n';
        if (values.output === undefined) return void process.stdout.write(text);
        await writeFile(values.output, text);
        const answer = { object: 'blueprint_signature', file: values.output, signer: key.did };
        process.stdout.write(values.json ? JSON.stringify(answer, null, 2) + '\n' : `signed ${file} as ${key.did}: ${values.output}\n`);
      },
    }),
    keygen: subcommand({
      summary: 'create a blueprint signing key and print its did:key',
      args: ['<keyfile>'],
      options: {},
      run: async ({ values, positionals }) => {
        if (positionals.length !== 1) throw new CliError(`loom blueprint keygen takes the new key file's path\n${BLUEPRINT_USAGE}`);
        const key = await writeNewKeyFile(positionals[0]!);
        const answer = { object: 'blueprint_key', file: positionals[0], signer: key.did };
        process.stdout.write(
          values.json ? JSON.stringify(answer, null, 2) + '\n' : `${key.did}\nkey written to ${positionals[0]} (keep it private); to trust it on a server: loom blueprint trust ${key.did}\n`,
        );
      },
    }),
    trust: subcommand({
      summary: 'trust a key to sign blueprints on this server, or stop trusting it (blueprint_signers)',
      args: ['<did:key>'],
      options: { ...CLIENT_OPTIONS, note: { type: 'string', value: 'text', help: 'who holds the key, for people' }, remove: { type: 'boolean', default: false, help: 'stop trusting the key' } },
      run: async ({ values, positionals }) => {
        if (positionals.length !== 1) throw new CliError(`loom blueprint trust takes one did:key\n${BLUEPRINT_USAGE}`);
        const signer = positionals[0]!;
        const ctx = clientContext(values);
        const body = { signer, ...(values.note !== undefined ? { note: values.note } : {}), ...(values.remove ? { trusted: false } : {}) };
        const { data } = await call(ctx, ctx.client.writeConfigTopic({ path: { topic: 'blueprint_signers' }, body }));
        print(ctx, data, () => `${values.remove ? 'no longer trusts' : 'trusts'} ${signer} to sign blueprints (record ${shortId(data.id)})\n`);
      },
    }),
  },
});
