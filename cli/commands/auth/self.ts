/**
 * `loom self [show]`, `loom self bind-code` and `loom recover`: your own
 * principal (GET /v1/self), binding a recovery code (POST /v1/self/bindings),
 * and getting a new bearer with that code instead of a bearer
 * (POST /v1/recredential). A recovery code is printed once (the log keeps
 * only its hash) and is single-use: after `loom recover` it is spent, and a
 * new one must be bound with the new token.
 */
import { readFileSync } from 'node:fs';
import { defineCommand, subcommand } from '../../../command/define-command.js';
import { CliError } from '../../../command/cli-error.js';
import { call, clientContext, CLIENT_OPTIONS, print, type ClientContext } from '../../kit/context.js';
import { anonymousContext, saveIssuedToken, savedBefore, savedLine } from '../../kit/issued-token.js';

export const SELF_USAGE = `loom self [show] [--url …] [--token …] [--json]
loom self bind-code [--rotation-proof <current code>] [--url …] [--token …] [--json]
  show: the token's principal, member label, standing, grant and bound proofs. bind-code binds a new
  recovery code and prints it once (keep it offline; it replaces any earlier code, which then must
  be given as --rotation-proof, "-" to read it from stdin). Use it with loom recover.`;

export const RECOVER_USAGE = `loom recover <principal> --code <recovery code> [--no-save] [--url …] [--json]
  A new token for a member label or DID with its recovery code instead of a token ("-" reads the
  code from stdin). The code is spent: bind a new one with "loom self bind-code". The token is
  saved for --url in the config file (unless --no-save, or a live token of another account is
  saved there: then it is printed).`;

/** A secret option; "-" reads it from stdin (so it stays out of the process list and shell history). */
function secretOption(name: string, value: string | undefined): string | undefined {
  if (value !== '-') return value;
  let text: string;
  try {
    text = readFileSync(0, 'utf8');
  } catch (error) {
    throw new CliError(`cannot read --${name} from stdin: ${(error as Error).message}`);
  }
  const secret = text.trim();
  if (secret === '') throw new CliError(`--${name} -: stdin was empty`);
  return secret;
}

async function show(ctx: ClientContext): Promise<void> {
  const { data } = await call(ctx, ctx.client.getSelf());
  print(ctx, data, () => {
    const bound = Object.entries(data.bindings).filter(([, on]) => on).map(([kind]) => kind);
    return [
      `${data.principal}${data.label ? ` (member ${data.label})` : ''}: ${data.standing}`,
      `account: ${data.service_account_id ?? '-'}`,
      `grant: ${data.grant ? `${data.grant.grant_id} (scopes ${data.grant.scopes.join(',') || '-'}; until ${data.grant.expires_at})` : '-'}`,
      `bound proofs: ${bound.join(', ') || 'none'}${data.bindings.recovery_code ? '' : ' (bind a recovery code with: loom self bind-code)'}`,
      `proofs accepted here: ${data.proof_kinds_accepted.join(', ')}`,
    ].join('\n') + '\n';
  });
}

async function bindCode(ctx: ClientContext, rotationProof: string | undefined): Promise<void> {
  const { data } = await call(ctx, ctx.client.createSelfBinding({ body: { kind: 'recovery_code', ...(rotationProof !== undefined ? { rotation_proof: rotationProof } : {}) } }));
  print(ctx, data, () =>
    `bound a recovery code for ${data.principal} (binding ${data.id})\n` +
    `recovery code (shown only now; keep it offline, it replaces any earlier one): ${data.secret ?? '-'}\n` +
    `use it with: loom recover <your label or DID> --code <code> --url ${ctx.url}\n`,
  );
  if (data.secret && !ctx.json) process.stderr.write('loom: warning: the recovery code above is shown only once; the server keeps only its hash\n');
}

export const self = defineCommand({
  name: 'self',
  summary: 'your own credentials',
  usage: SELF_USAGE,
  json: true,
  // `loom self --json` is show: a leading option is not a subcommand.
  defaultSubcommand: 'show',
  subcommands: {
    show: subcommand({
      summary: "the token's principal, member label, standing, grant and bound proofs",
      options: CLIENT_OPTIONS,
      run: async ({ values, positionals }) => {
        if (positionals.length > 0) throw new CliError(`loom self show takes no arguments\n${SELF_USAGE}`);
        return show(clientContext(values));
      },
    }),
    'bind-code': subcommand({
      summary: 'binds a new recovery code and prints it once (it replaces any earlier code)',
      options: { ...CLIENT_OPTIONS, 'rotation-proof': { type: 'string', value: 'current code', help: 'the code it replaces ("-" reads it from stdin)' } },
      run: async ({ values, positionals }) => {
        if (positionals.length > 0) throw new CliError(`loom self bind-code takes no arguments\n${SELF_USAGE}`);
        return bindCode(clientContext(values), secretOption('rotation-proof', values['rotation-proof']));
      },
    }),
  },
});

export const recover = defineCommand({
  name: 'recover',
  summary: 'a new token from a recovery code',
  usage: RECOVER_USAGE,
  json: true,
  args: ['<principal>'],
  options: { url: CLIENT_OPTIONS.url, code: { type: 'string' }, 'no-save': { type: 'boolean', default: false } },
  run: async ({ values, positionals }) => {
    if (positionals.length !== 1) throw new CliError(`loom recover takes a principal (your member label or DID)\n${RECOVER_USAGE}`);
    if (values.code === undefined) throw new CliError(`--code is required\n${RECOVER_USAGE}`);
    const code = secretOption('code', values.code)!;
    const save = values['no-save'] !== true;
    // No bearer is sent: the recovery code is the credential.
    const ctx = anonymousContext(values);
    // Read before the request, so a malformed config file fails here, not after the code is spent.
    const previous = save ? savedBefore(ctx) : undefined;
    const { data } = await call(ctx, ctx.client.recredential({ body: { principal: positionals[0]!, proof: { kind: 'recovery_code', evidence: code } } }));
    const outcome = save ? await saveIssuedToken(ctx, previous, data.token, data.sa_id, `the new token of ${data.principal}`) : undefined;
    print(ctx, outcome ? { ...data, config_path: ctx.configPath, saved: outcome.saved } : data, () =>
      `new token for ${data.principal}${data.label ? ` (member ${data.label})` : ''}, scopes ${data.scopes.join(',') || '-'}, until ${data.expires_at}\n` +
      (outcome ? savedLine(ctx, outcome, data.token) : `token (shown only now): ${data.token}\n`) +
      (data.rebind_required ? `the recovery code is now spent: bind a new one with: loom self bind-code --url ${ctx.url}${outcome?.saved ? '' : ' --token …'}\n` : ''),
    );
    if (data.rebind_required && !ctx.json) process.stderr.write('loom: warning: your recovery code is spent; until you bind a new one (loom self bind-code) you cannot recover again\n');
  },
});
