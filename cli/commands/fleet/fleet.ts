/**
 * `loom fleet status|freeze|thaw|emergency`: fleet control (spec §6) through
 * GET /v1/fleet and POST /v1/fleet/freeze|thaw|emergency. The control
 * commands write a LEARN on th_fleet_control as the caller (admin scope);
 * the server answers changed: false, writing nothing, when the fleet is
 * already in that state.
 */
import { defineCommand, subcommand } from '../../../command/define-command.js';
import { CliError } from '../../../command/cli-error.js';
import { call, clientContext, CLIENT_OPTIONS, print, type ClientContext } from '../../kit/context.js';
import { integerOption, shortId } from '../../kit/options.js';
import { textTable } from '../../kit/text-table.js';
import { formatAge } from '../../kit/format-age.js';
import type { FleetStatus } from '../../../sdk/index.js';

export const FLEET_USAGE = `loom fleet status [--url …] [--token …] [--json]
loom fleet freeze <namespace> [--hard] [--grace <secs>] [--reason <text>] [--url …] [--token …] [--json]
loom fleet thaw <namespace> [--reason <text>] [--url …] [--token …] [--json]
loom fleet emergency [--clear] [--reason <text>] [--url …] [--token …] [--json]
  Fleet control (status: config:read; freeze, thaw, emergency: admin). freeze refuses new INTEND, DO
  and CALL in <namespace> and its descendants ("default": records with no namespace); --hard also
  refuses every write there once --grace seconds (default 60) have passed. thaw lifts a freeze.
  emergency stops every dispatch and all new INTEND, DO and CALL everywhere; --clear lifts it.
  status shows the emergency stop, the freezes in force and every instance's latest heartbeat.`;


const MAX_GRACE_SECS = 86_400;

const status = (ctx: ClientContext) => call(ctx, ctx.client.getFleetStatus());

function statusText(data: FleetStatus, now: number): string {
  const lines: string[] = [];
  lines.push(
    data.emergency
      ? `emergency stop: ACTIVE since ${data.emergency.since}${data.emergency.reason ? ` (${data.emergency.reason})` : ''}; clear with: loom fleet emergency --clear`
      : 'emergency stop: off',
  );
  let text = lines.join('\n') + '\n\n';
  if (data.freezes.length === 0) {
    text += 'freezes: none\n';
  } else {
    const rows = data.freezes.map((f) => [
      f.namespace,
      f.level,
      f.level === 'soft' ? 'work refused' : f.hard ? 'all writes refused' : `grace until ${f.hard_after}`,
      f.since,
      f.reason ?? '-',
    ]);
    text += 'freezes:\n' + textTable(['namespace', 'level', 'state', 'since', 'reason'], rows);
  }
  text += '\n';
  if (data.instances.length === 0) {
    text += 'instances: none (no heartbeat yet)\n';
  } else {
    const rows = data.instances.map((i) => [
      i.instance_did,
      i.live ? 'yes' : 'no',
      Number.isNaN(Date.parse(i.at)) ? '-' : formatAge((now - Date.parse(i.at)) / 1000),
      i.version,
      i.health,
      formatAge(i.uptime_secs),
      String(i.active_dispatches),
      i.endpoint ?? '-',
    ]);
    text += 'instances:\n' + textTable(['instance', 'live', 'age', 'version', 'health', 'uptime', 'dispatches', 'endpoint'], rows);
  }
  return text;
}

const recordNote = (record: { id: string } | null) => (record ? ` (record ${shortId(record.id)})` : '');

async function freeze(ctx: ClientContext, namespace: string, values: { hard?: boolean; grace?: string; reason?: string }): Promise<void> {
  const grace = integerOption('grace', values.grace, 0);
  if (grace !== undefined && !values.hard) throw new CliError('--grace applies to hard freezes only: add --hard');
  if (grace !== undefined && grace > MAX_GRACE_SECS) throw new CliError(`--grace must be at most ${MAX_GRACE_SECS} seconds`);
  const level = values.hard ? 'hard' : 'soft';
  const { data } = await call(ctx, ctx.client.freezeNamespace({ body: {
    namespace,
    level,
    ...(grace !== undefined ? { grace_secs: grace } : {}),
    ...(values.reason !== undefined ? { reason: values.reason } : {}),
  } }));
  print(ctx, data, () => {
    if (!data.changed) return `${namespace} is already frozen (${level}): nothing written\n`;
    const body = data.record?.body ?? {};
    const at = typeof body['at'] === 'string' ? Date.parse(body['at']) : NaN;
    const graceSecs = typeof body['grace_secs'] === 'number' ? body['grace_secs'] : (grace ?? 60);
    const what =
      level === 'soft'
        ? 'no new INTEND, DO or CALL there'
        : `no new INTEND, DO or CALL there, and no write at all from ${Number.isNaN(at) ? `${graceSecs}s from now` : new Date(at + graceSecs * 1000).toISOString()}`;
    return `froze ${namespace} (${level}${data.record ? `, record ${shortId(data.record.id)}` : ''}): ${what}\nthaw with: loom fleet thaw ${namespace}\n`;
  });
}

async function thaw(ctx: ClientContext, namespace: string, reason: string | undefined): Promise<void> {
  const { data } = await call(ctx, ctx.client.thawNamespace({ body: { namespace, ...(reason !== undefined ? { reason } : {}) } }));
  print(ctx, data, () => (data.changed ? `thawed ${namespace}${recordNote(data.record)}\n` : `${namespace} is not frozen: nothing written\n`));
}

async function emergency(ctx: ClientContext, clear: boolean, reason: string | undefined): Promise<void> {
  const { data } = await call(ctx, ctx.client.setEmergencyStop({ body: { active: !clear, ...(reason !== undefined ? { reason } : {}) } }));
  print(ctx, data, () => {
    if (clear) return data.changed ? `emergency stop cleared${recordNote(data.record)}: dispatch and new work resume\n` : 'the emergency stop is not engaged: nothing written\n';
    return data.changed
      ? `emergency stop ENGAGED${recordNote(data.record)}: no dispatch and no new INTEND, DO or CALL anywhere\nclear with: loom fleet emergency --clear\n`
      : 'the emergency stop is already engaged: nothing written\n';
  });
}

const arity = (sub: string, positionals: readonly string[], expected: number) => {
  if (positionals.length !== expected) throw new CliError(`loom fleet ${sub} takes ${expected === 0 ? 'no arguments' : 'a namespace'}\n${FLEET_USAGE}`);
};

const REASON = { reason: { type: 'string', value: 'text', help: 'why, kept in the record' } } as const;

export const fleet = defineCommand({
  name: 'fleet',
  summary: 'the instances of a fleet',
  usage: FLEET_USAGE,
  json: true,
  subcommands: {
    status: subcommand({
      summary: "the emergency stop, the freezes in force and every instance's latest heartbeat (config:read)",
      options: CLIENT_OPTIONS,
      run: async ({ values, positionals }) => {
        arity('status', positionals, 0);
        const ctx = clientContext(values);
        const { data } = await status(ctx);
        print(ctx, data, () => statusText(data, Date.now()));
      },
    }),
    freeze: subcommand({
      summary: 'refuses new INTEND, DO and CALL in <namespace> and its descendants (admin)',
      args: ['<namespace>'],
      options: {
        ...CLIENT_OPTIONS,
        hard: { type: 'boolean', default: false, help: 'also refuse every write once --grace has passed' },
        grace: { type: 'string', value: 'secs', help: 'seconds before a hard freeze refuses writes (default 60)' },
        ...REASON,
      },
      run: async ({ values, positionals }) => {
        arity('freeze', positionals, 1);
        return freeze(clientContext(values), positionals[0]!, values);
      },
    }),
    thaw: subcommand({
      summary: 'lifts a freeze (admin)',
      args: ['<namespace>'],
      options: { ...CLIENT_OPTIONS, ...REASON },
      run: async ({ values, positionals }) => {
        arity('thaw', positionals, 1);
        return thaw(clientContext(values), positionals[0]!, values.reason);
      },
    }),
    emergency: subcommand({
      summary: 'stops every dispatch and all new INTEND, DO and CALL everywhere (admin)',
      options: { ...CLIENT_OPTIONS, clear: { type: 'boolean', default: false, help: 'lift the emergency stop' }, ...REASON },
      run: async ({ values, positionals }) => {
        arity('emergency', positionals, 0);
        return emergency(clientContext(values), values.clear === true, values.reason);
      },
    }),
  },
});
