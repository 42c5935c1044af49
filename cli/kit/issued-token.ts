/**
 * Saving a bearer the server has just issued (an invite redeemed, a
 * re-credential) in the config file, with the rule `loom bootstrap` follows:
 * a live token of another account already saved for the URL is kept and the
 * new bearer printed instead, since overwriting it could lose the only copy
 * of that credential. A saved token of the same account (the one being
 * replaced) or one the server refuses is replaced.
 */
import { createLoomClient } from '../../sdk/index.js';
import { cliConfigPath, saveServerToken, savedServer, type SavedServer } from './config.js';
import { CliError } from '../../command/cli-error.js';
import { serverUrl, type ClientContext } from './context.js';

/**
 * A context that sends no bearer, for the doors where something else is the
 * credential (an invite token, a recovery code): a refusal then never blames
 * a token that was not sent.
 */
export function anonymousContext(values: { url?: string; json?: boolean }): ClientContext {
  const url = serverUrl(values.url);
  return { url, client: createLoomClient({ baseUrl: url }), json: values.json === true, configPath: cliConfigPath(), tokenSource: null, token: null };
}

/** Whether a saved token may be overwritten: only when the server refuses it. Unreachable or unsure keeps it. */
export async function isDead(url: string, token: string): Promise<boolean> {
  try {
    const { response } = await createLoomClient({ baseUrl: url, token }).getIdentity();
    return response?.status === 401;
  } catch {
    return false;
  }
}

/**
 * The entry saved for the URL now, read before the request: a malformed
 * config file then fails before the server spends an invite or a code.
 */
export function savedBefore(ctx: ClientContext): SavedServer | undefined {
  return savedServer(ctx.configPath, ctx.url);
}

export interface SaveOutcome {
  readonly saved: boolean;
  /** The live token of another account that was kept instead, when not saved. */
  readonly kept: SavedServer | undefined;
}

/**
 * Saves `token` (of `serviceAccountId`) for ctx.url unless a live token of
 * another account is saved there. `what` names the bearer in the error raised
 * when the file cannot be written, which carries the token: it is shown only now.
 */
export async function saveIssuedToken(ctx: ClientContext, previous: SavedServer | undefined, token: string, serviceAccountId: string | null, what: string): Promise<SaveOutcome> {
  const replaceable =
    previous === undefined || previous.token === token || (serviceAccountId !== null && previous.service_account_id === serviceAccountId) || (await isDead(ctx.url, previous.token));
  if (!replaceable) return { saved: false, kept: previous };
  try {
    await saveServerToken(ctx.configPath, ctx.url, token, serviceAccountId);
  } catch (error) {
    throw new CliError(`${(error as Error).message}; ${what} (shown only now) is ${token}`, 1);
  }
  return { saved: true, kept: undefined };
}

/** The human line saying where the token went. */
export function savedLine(ctx: ClientContext, outcome: SaveOutcome, token: string): string {
  if (outcome.saved) return `token saved to ${ctx.configPath} for ${ctx.url}\n`;
  return (
    `token NOT saved: ${ctx.configPath} already holds a live token for ${ctx.url} (${outcome.kept?.service_account_id ?? 'unknown account'}), kept; the new one is shown only now\n` +
    `export LOOM_TOKEN='${token}'\n`
  );
}
