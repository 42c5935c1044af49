/**
 * What every client command shares: the server URL and token, the SDK client,
 * and turning an SDK result into data or a one-line CliError with the
 * server's code and message (never a stack trace).
 *
 * The token is chosen here and nowhere else: --token, else LOOM_TOKEN, else
 * the one saved for the server URL in the config file (cli-config.ts).
 */
import { userInfo } from 'node:os';
import { createLoomClient, type LoomClient } from '../../sdk/index.js';
import { cliConfigPath, savedServer, urlsSavedWithToken } from './config.js';
import { CliError, unreachableMessage } from '../../command/cli-error.js';

/** The options of every command that talks to a server, declared once (defineCommand adds --json and --help). */
export const CLIENT_OPTIONS = {
  url: { type: 'string', help: 'the server (LOOM_URL, default http://127.0.0.1:9100)' },
  token: { type: 'string', help: 'the bearer (else LOOM_TOKEN, else the one saved for --url)' },
} as const;

export interface ClientContext {
  readonly url: string;
  readonly client: LoomClient;
  readonly json: boolean;
  /** The config file the token may come from and `bootstrap` / `sa rotate --save` write. */
  readonly configPath: string;
  /** Where the token came from (`--token`, `LOOM_TOKEN` or the config file's path); null when none is sent. */
  readonly tokenSource: string | null;
  /** The bearer sent, for the one transfer that bypasses the SDK (cli/kit/stream-download.ts); null when none. */
  readonly token: string | null;
}

/**
 * The server URL, normalised so that one server has one key in the config
 * file whatever its spelling (`HTTP://LocalHost:9100/` is `http://localhost:9100`).
 */
export function serverUrl(flag: string | undefined): string {
  const raw = flag ?? process.env['LOOM_URL'] ?? 'http://127.0.0.1:9100';
  // `127.0.0.1:9100` and `localhost:9100` are the usual slips: without a scheme, fetch fails with nothing to go on.
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(raw)) throw new CliError(`${flag !== undefined ? '--url' : 'LOOM_URL'} "${raw}" has no scheme: did you mean http://${raw.replace(/^\/+/, '')}?`);
  try {
    const parsed = new URL(raw);
    if (parsed.protocol === 'http:' || parsed.protocol === 'https:') return `${parsed.origin}${parsed.pathname}`.replace(/\/+$/, '');
  } catch {
    // not a URL: used as given, and the request says it cannot reach it
  }
  return raw.replace(/\/+$/, '');
}

/**
 * --token > LOOM_TOKEN > the config file entry of the URL. An empty LOOM_TOKEN counts as unset, as shells use it.
 * One exception: a LOOM_TOKEN that the config file holds as another server's token, while this server has a
 * token of its own there, is that other server's (an `export` from one walkthrough, a `--url` to another
 * server): sending it could only fail, so this server's own token goes instead, and the source says why.
 */
export function chooseToken(url: string, flag: string | undefined, configPath: string): { token: string; source: string } | null {
  if (flag !== undefined) {
    // An empty --token is almost always an unset shell variable; falling back to another token would hide that.
    if (flag === '') throw new CliError('--token is empty');
    return { token: flag, source: '--token' };
  }
  const env = process.env['LOOM_TOKEN'];
  const saved = savedServer(configPath, url);
  if (env) {
    if (saved && saved.token !== env) {
      const elsewhere = urlsSavedWithToken(configPath, env);
      if (elsewhere.length > 0) return { token: saved.token, source: `${configPath} (LOOM_TOKEN is the token saved for ${elsewhere[0]}, not ${url})` };
    }
    return { token: env, source: saved && saved.token !== env ? `LOOM_TOKEN (not the token saved for ${url} in ${configPath}: unset LOOM_TOKEN to use that one)` : 'LOOM_TOKEN' };
  }
  return saved ? { token: saved.token, source: configPath } : null;
}

export function clientContext(values: { url?: string; token?: string; json?: boolean }): ClientContext {
  const url = serverUrl(values.url);
  const configPath = cliConfigPath();
  const chosen = chooseToken(url, values.token, configPath);
  return {
    url,
    client: createLoomClient({ baseUrl: url, ...(chosen ? { token: chosen.token } : {}) }),
    json: values.json === true,
    configPath,
    tokenSource: chosen?.source ?? null,
    token: chosen?.token ?? null,
  };
}

interface SdkResult<T> {
  data?: T;
  error?: unknown;
  response?: Response;
}

/** Awaits an SDK call; returns its data or throws a CliError carrying the server's code and message. */
export async function call<T>(ctx: ClientContext, pending: Promise<SdkResult<T>>): Promise<{ data: T; status: number; headers: Headers }> {
  let result: SdkResult<T>;
  try {
    result = await pending;
  } catch (error) {
    throw new CliError(unreachableMessage(ctx.url, error), 1, 'UNREACHABLE');
  }
  if (result.error instanceof Error) {
    // The fetch client reports network failures as an error result rather than throwing.
    throw new CliError(unreachableMessage(ctx.url, result.error), 1, 'UNREACHABLE');
  }
  if (result.error !== undefined || result.data === undefined) {
    const envelope = result.error as { code?: string; message?: string } | undefined;
    const status = result.response?.status ?? 0;
    // On a refused token, say which one was sent: the usual cause is a stale one winning the precedence.
    const source = status === 401 && ctx.tokenSource ? ` [token from ${ctx.tokenSource}]` : '';
    throw new CliError(envelope?.code ? `${envelope.code} (${status}): ${envelope.message}${source}` : `HTTP ${status} from ${ctx.url}${source}`, 1, envelope?.code ?? 'FAILED', status);
  }
  return { data: result.data, status: result.response?.status ?? 0, headers: result.response?.headers ?? new Headers() };
}

export function parseJsonOption(name: string, text: string | undefined): unknown {
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new CliError(`--${name} must be JSON: ${(error as Error).message}`);
  }
}

/** The default actor for commands run by a person: did:sync:user:<login name>. */
export function defaultActor(): string {
  const name = userInfo().username.replace(/[^A-Za-z0-9._-]/g, '-') || 'cli';
  return process.env['LOOM_ACTOR'] ?? `did:sync:user:${name}`;
}

/** A comma-separated option as a list (trimmed, empty items dropped); undefined when the option is absent. */
export function parseListOption(text: string | undefined): string[] | undefined {
  return text === undefined ? undefined : text.split(',').map((item) => item.trim()).filter(Boolean);
}

export function print(ctx: ClientContext, data: unknown, human: () => string): void {
  process.stdout.write(ctx.json ? JSON.stringify(data, null, 2) + '\n' : human());
}
