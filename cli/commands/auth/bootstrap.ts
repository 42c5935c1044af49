/**
 * `loom bootstrap`: creates the first service account of a namespace and
 * saves its bearer in the config file for the server URL. The secret is made
 * here and only its token id (SHA-256) is sent, so the plaintext never
 * travels and the server never holds it.
 *
 * A live token already saved for the URL (another namespace's admin, say) is
 * kept and the new bearer printed instead: overwriting it could lose the only
 * copy of an admin credential. A saved token the server refuses (a wiped data
 * directory) is replaced.
 */
import { defineCommand } from '../../../command/define-command.js';
import { formatBearer, mintSecret, newServiceAccountId, tokenIdOf } from '../../../sdk/index.js';
import { saveServerToken, savedServer } from '../../kit/config.js';
import { CliError } from '../../../command/cli-error.js';
import { call, clientContext, parseListOption, print } from '../../kit/context.js';
import { isDead } from '../../kit/issued-token.js';

export const BOOTSTRAP_USAGE = `loom bootstrap [--name admin] [--id sa_…] [--namespace default] [--scopes admin] [--env prod]
               [--print-token] [--url …] [--json]
  Creates the namespace's first service account (open only while it has none) and saves its
  token for --url in the config file. --id defaults to sa_ + 20 random base32 characters;
  --scopes (comma-separated) to admin. --print-token also prints export LOOM_TOKEN=….`;

export const bootstrap = defineCommand({
  name: 'bootstrap',
  summary: "creates a namespace's first service account and saves its token",
  usage: BOOTSTRAP_USAGE,
  options: {
    url: { type: 'string', help: 'the server (LOOM_URL, default http://127.0.0.1:9100)' },
    name: { type: 'string', default: 'admin', help: 'the display name' },
    id: { type: 'string', help: 'the service account id (default sa_ + 20 random base32 characters)' },
    namespace: { type: 'string', help: 'the namespace (default: the server default)' },
    scopes: { type: 'string', help: 'comma-separated scopes (default admin)' },
    env: { type: 'string', default: 'prod', help: "the bearer's environment tag" },
    'print-token': { type: 'boolean', default: false, help: 'also print export LOOM_TOKEN=…' },
  },
  json: true,
  run: async ({ values }) => {
  const ctx = clientContext({ url: values.url, json: values.json });
  // Read before the request, so a malformed config file fails here, not after the server has closed bootstrap.
  const previous = savedServer(ctx.configPath, ctx.url);
  const secret = mintSecret();
  const scopes = parseListOption(values.scopes);
  const { data } = await call(
    ctx,
    ctx.client.bootstrapServiceAccount({
      body: {
        service_account_id: values.id ?? newServiceAccountId(),
        display_name: values.name,
        ...(scopes ? { scopes } : {}),
        ...(values.namespace !== undefined ? { namespace: values.namespace } : {}),
        with_token: { token_id: tokenIdOf(secret), env_tag: values.env },
      },
    }),
  );
  const token = formatBearer(values.env, data.service_account_id, secret);

  const save = previous === undefined || (await isDead(ctx.url, previous.token));
  if (save) {
    try {
      await saveServerToken(ctx.configPath, ctx.url, token, data.service_account_id);
    } catch (error) {
      // The account exists and bootstrap is now closed: this is the last chance to hand over its token.
      throw new CliError(`${(error as Error).message}; service account ${data.service_account_id} was created, its token (shown only now) is ${token}`, 1);
    }
  }
  const showToken = values['print-token'] || !save;
  const result = {
    service_account_id: data.service_account_id,
    namespace: data.namespace,
    token_id: data.token_id,
    ...(showToken ? { token } : {}),
    config_path: ctx.configPath,
    saved: save,
  };
  print(ctx, result, () => {
    const where = save
      ? `token saved to ${ctx.configPath} for ${ctx.url}`
      : `token NOT saved: ${ctx.configPath} already holds a live token for ${ctx.url} (${previous?.service_account_id ?? 'unknown account'}), kept; the new one is shown only now`;
    return `service account ${data.service_account_id} created in namespace ${data.namespace}; ${where}\n` + (showToken ? `export LOOM_TOKEN='${token}'\n` : '');
  });
},
});
