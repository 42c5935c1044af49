/**
 * `loom whoami`: who the chosen token is (GET /v1/identity), and where the
 * token came from, since --token, LOOM_TOKEN and the config file compete.
 */
import { defineCommand } from '../../../command/define-command.js';
import { call, clientContext, CLIENT_OPTIONS, print } from '../../kit/context.js';

export const WHOAMI_USAGE = `loom whoami [--url …] [--token …] [--json]
  The service account, scopes and allowed actors of the token in use, and where it came from.`;

export const whoami = defineCommand({
  name: 'whoami',
  summary: 'who the token in use is, and where it came from',
  usage: WHOAMI_USAGE,
  options: CLIENT_OPTIONS,
  json: true,
  run: async ({ values }) => {
  const ctx = clientContext(values);
  const { data } = await call(ctx, ctx.client.getIdentity());
  print(ctx, data, () => {
    if (!data.is_authenticated) return `not authenticated: ${ctx.url} does not enforce auth (scopes ${data.scopes.join(',') || '-'})\n`;
    return [
      `${data.service_account_id ?? '-'} "${data.display_name ?? ''}" (${data.did ?? '-'})${data.actor && data.actor !== data.did ? ` acting as ${data.actor}` : ''}`,
      `scopes: ${data.scopes.join(', ') || '-'}`,
      `may act as: ${data.allowed_actors.join(', ') || 'itself only'}`,
      `expires: ${data.expires_at ?? 'never'}`,
      `token from: ${ctx.tokenSource ?? '-'} (key ${data.key_fingerprint ?? '-'}…)`,
    ].join('\n') + '\n';
  });
},
});
