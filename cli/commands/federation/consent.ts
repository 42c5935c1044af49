/**
 * `loom consent grant|list|revoke`: consent for records to cross a namespace
 * boundary through federation (spec §2.8). A grant and a revocation are
 * records on th_consent written through the ordinary records API, as any
 * client would write them (the server's consent gate checks their shape and
 * that the writer holds federation:manage); `list` shows the grants in force
 * as the changes feed applies them (GET /v1/sync/consent).
 */
import { defineCommand, subcommand, type OptionValues } from '../../../command/define-command.js';
import type { ConsentGrant } from '../../../sdk/index.js';
import { TH_CONSENT } from '../../../core/records/reserved-threads.js';
import { CliError } from '../../../command/cli-error.js';
import { emitAtNextClock } from '../ledger/emit-record.js';
import { clientContext, CLIENT_OPTIONS, defaultActor, parseListOption, print, type ClientContext } from '../../kit/context.js';
import { federationCall } from './federation-call.js';
import { didArgument, integerOption, shortId } from '../../kit/options.js';
import { textTable } from '../../kit/text-table.js';

export const CONSENT_USAGE = `loom consent grant --source <namespace> --target <namespace> [--levels L1[,L2…]] [--threads <th_…>,…]
                   [--purpose <text>] [--expires-at <ISO time> | --expires-in <seconds>] [--actor <did>]
loom consent list
loom consent revoke <grant-id> [--actor <did>]
  Consent for records of a namespace (and those under it) to cross into another through federation;
  federation:manage. Without a grant nothing crosses. --levels are the hash levels allowed: L0 exact
  content, L1 structural (the default), L2 flow, L3 intent; a record is served at the strongest one,
  and L0 only when the target has granted L0 back (two-sided). --threads limits the grant (default
  every thread). list shows the grants in force and the level each is served at. Each takes
  [--url …] [--token …] [--json].`;

const LEVELS = ['L0', 'L1', 'L2', 'L3'] as const;


const ACTOR = { actor: { type: 'string', value: 'did', help: 'the writer (default $LOOM_ACTOR, else did:sync:user:<your login name>)' } } as const;

const GRANT_OPTIONS = {
  ...CLIENT_OPTIONS,
  source: { type: 'string', value: 'namespace', help: 'the namespace whose records may cross' },
  target: { type: 'string', value: 'namespace', help: 'the namespace they may cross into' },
  levels: { type: 'string', value: 'L1[,L2…]', help: 'the hash levels allowed (default L1)' },
  threads: { type: 'string', value: 'th_…,…', help: 'the threads the grant covers (default every thread)' },
  purpose: { type: 'string', value: 'text', help: 'why' },
  'expires-at': { type: 'string', value: 'ISO time', help: 'when the grant ends' },
  'expires-in': { type: 'string', value: 'seconds', help: 'when the grant ends (instead of --expires-at)' },
  ...ACTOR,
} as const;

type Values = OptionValues<typeof GRANT_OPTIONS>;

function levelsOption(text: string | undefined): string[] | undefined {
  const levels = parseListOption(text);
  if (levels === undefined) return undefined;
  const wrong = levels.find((level) => !(LEVELS as readonly string[]).includes(level));
  if (wrong !== undefined || levels.length === 0) throw new CliError(`--levels must list ${LEVELS.join(', ')} (got "${text}")`);
  return [...new Set(levels)];
}

function expiresAt(values: Values): string | undefined {
  if (values['expires-at'] !== undefined && values['expires-in'] !== undefined) throw new CliError('--expires-at and --expires-in exclude each other');
  if (values['expires-at'] !== undefined) {
    const at = Date.parse(values['expires-at']);
    if (Number.isNaN(at)) throw new CliError(`--expires-at must be an ISO 8601 time (got "${values['expires-at']}")`);
    return new Date(at).toISOString();
  }
  const seconds = integerOption('expires-in', values['expires-in'], 1);
  return seconds === undefined ? undefined : new Date(Date.now() + seconds * 1000).toISOString();
}

/** Writes one LEARN record on th_consent as the actor, at its next clock. */
async function writeConsent(ctx: ClientContext, actor: string, body: Record<string, unknown>) {
  return emitAtNextClock(ctx, { thread: TH_CONSENT, actor, act: 'LEARN', body, data_type: 'SCALAR', parents: [], judged_by: null });
}

function grantRows(grants: readonly ConsentGrant[]): string {
  if (grants.length === 0) return 'no consent grants in force: nothing crosses a namespace boundary\n';
  const rows = grants.map((g) => [
    shortId(g.id, 20),
    g.source_namespace,
    g.target_namespace,
    g.hash_levels.join(','),
    g.served_level + (g.hash_levels.includes('L0') && !g.two_sided ? ' (L0 needs a grant back)' : ''),
    g.threads.join(','),
    g.expires_at ?? '-',
    g.purpose ?? '-',
  ]);
  return textTable(['grant', 'from', 'into', 'levels', 'served at', 'threads', 'expires', 'purpose'], rows);
}

const actorOf = (values: { actor?: string | undefined }) => (values.actor !== undefined ? didArgument('--actor', values.actor) : defaultActor());

export const consent = defineCommand({
  name: 'consent',
  summary: 'federation consent',
  usage: CONSENT_USAGE,
  json: true,
  bareIsHelp: true,
  unknownSubcommand: (sub) => `unknown subcommand "loom consent ${sub}"\n${CONSENT_USAGE}`,
  subcommands: {
    grant: subcommand({
      summary: 'lets records of --source (and the namespaces under it) cross into --target (federation:manage)',
      options: GRANT_OPTIONS,
      run: async ({ values, positionals }) => {
        if (positionals.length !== 0) throw new CliError(`loom consent grant takes no arguments\n${CONSENT_USAGE}`);
        const actor = actorOf(values);
    if (!values.source) throw new CliError(`--source is required\n${CONSENT_USAGE}`);
    if (!values.target) throw new CliError(`--target is required\n${CONSENT_USAGE}`);
    if (values.source === values.target) throw new CliError('--source and --target are the same namespace: records of a namespace need no consent to stay in it');
    const levels = levelsOption(values.levels);
    const threads = parseListOption(values.threads);
    if (threads !== undefined && threads.length === 0) throw new CliError('--threads lists thread ids (or *)');
    const expires = expiresAt(values);
    const body = {
      kind: 'core.consent.grant.v1',
      source_namespace: values.source,
      target_namespace: values.target,
      ...(levels ? { hash_levels: levels } : {}),
      ...(threads ? { threads } : {}),
      ...(values.purpose !== undefined ? { purpose: values.purpose } : {}),
      ...(expires ? { expires_at: expires } : {}),
    };
    const ctx = clientContext(values);
    const { record, created } = await writeConsent(ctx, actor, body);
    print(ctx, record, () => `${created ? 'granted' : 'already granted'}: ${values.source} → ${values.target} at ${(levels ?? ['L1']).join(',')}; grant ${record.id}\n  revoke with: loom consent revoke ${record.id}\n`);
      },
    }),
    list: subcommand({
      summary: 'the grants in force and the level each is served at (federation:manage)',
      options: CLIENT_OPTIONS,
      run: async ({ values, positionals }) => {
        if (positionals.length !== 0) throw new CliError(`loom consent list takes no arguments\n${CONSENT_USAGE}`);
        const ctx = clientContext(values);
        const { data } = await federationCall(ctx, ctx.client.listConsentGrants());
        print(ctx, data, () => grantRows(data.data));
      },
    }),
    revoke: subcommand({
      summary: 'revokes a grant; records already served stay where they are (federation:manage)',
      args: ['<grant-id>'],
      options: { ...CLIENT_OPTIONS, ...ACTOR },
      run: async ({ values, positionals }) => {
        if (positionals.length !== 1) throw new CliError(`loom consent revoke takes the grant id\n${CONSENT_USAGE}`);
        const actor = actorOf(values);
        const grant = positionals[0]!;
        const ctx = clientContext(values);
        const { record } = await writeConsent(ctx, actor, { kind: 'core.consent.revoke.v1', grant });
        print(ctx, record, () => `revoked ${grant} (record ${record.id}); records already served stay where they are\n`);
      },
    }),
  },
});
