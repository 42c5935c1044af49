/**
 * `call` for the federation routes: a server started without `--federation`
 * has no /v1/sync/* routes and answers 404 "no route", which says nothing
 * about the cause. When its /health says federation is off, the refusal says
 * how to turn it on instead.
 */
import { CliError } from '../../../command/cli-error.js';
import { call, type ClientContext } from '../../kit/context.js';

export async function federationCall<T>(ctx: ClientContext, pending: Promise<{ data?: T; error?: unknown; response?: Response }>): Promise<{ data: T; status: number; headers: Headers }> {
  try {
    return await call(ctx, pending);
  } catch (error) {
    if (!(error instanceof CliError) || error.status !== 404 || !/no route/.test(error.message)) throw error;
    const health = (await fetch(`${ctx.url}/health`).then((r) => r.json(), () => null).catch(() => null)) as { federation?: { enabled?: boolean } } | null;
    if (health?.federation?.enabled !== false) throw error;
    throw new CliError(`federation is off on ${ctx.url}: restart that server with "loom serve --federation" (or LOOM_FEDERATION=1), keeping its --data-dir`, 1, 'NOT_FOUND', 404);
  }
}
