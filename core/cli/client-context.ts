/**
 * What every client command shares: the server URL and token, the SDK client,
 * and turning an SDK result into data or a one-line CliError with the
 * server's code and message (never a stack trace).
 */
import { userInfo } from 'node:os';
import { createLoomClient, type LoomClient } from '../../sdk/index.js';
import { CliError } from './cli-error.js';

export const COMMON_OPTIONS = {
  url: { type: 'string' },
  token: { type: 'string' },
  json: { type: 'boolean', default: false },
  help: { type: 'boolean', short: 'h', default: false },
} as const;

export interface ClientContext {
  readonly url: string;
  readonly client: LoomClient;
  readonly json: boolean;
}

export function clientContext(values: { url?: string; token?: string; json?: boolean }): ClientContext {
  const url = (values.url ?? process.env['LOOM_URL'] ?? 'http://127.0.0.1:9100').replace(/\/+$/, '');
  const token = values.token ?? process.env['LOOM_TOKEN'];
  return { url, client: createLoomClient({ baseUrl: url, ...(token ? { token } : {}) }), json: values.json === true };
}

interface SdkResult<T> {
  data?: T;
  error?: unknown;
  response?: Response;
}

/** Awaits an SDK call; returns its data or throws a CliError carrying the server's code and message. */
export async function call<T>(ctx: ClientContext, pending: Promise<SdkResult<T>>): Promise<{ data: T; status: number }> {
  let result: SdkResult<T>;
  try {
    result = await pending;
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause?.code ?? (error as Error).message;
    throw new CliError(`cannot reach ${ctx.url}: ${cause}`, 1);
  }
  if (result.error instanceof Error) {
    // The fetch client reports network failures as an error result rather than throwing.
    const cause = (result.error as { cause?: { code?: string } }).cause?.code ?? result.error.message;
    throw new CliError(`cannot reach ${ctx.url}: ${cause}`, 1);
  }
  if (result.error !== undefined || result.data === undefined) {
    const envelope = result.error as { code?: string; message?: string } | undefined;
    const status = result.response?.status ?? 0;
    throw new CliError(envelope?.code ? `${envelope.code} (${status}): ${envelope.message}` : `HTTP ${status} from ${ctx.url}`, 1);
  }
  return { data: result.data, status: result.response?.status ?? 0 };
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

export function print(ctx: ClientContext, data: unknown, human: () => string): void {
  process.stdout.write(ctx.json ? JSON.stringify(data, null, 2) + '\n' : human());
}
