/**
 * `loom doctor`: checks what a first run or an outage usually comes down
 * to, and says what to do about each problem: the Node.js version, the data
 * directory (there, writable, which log it holds, free space), the CLI
 * configuration (its file's permissions, a token for the server), and the
 * server (reachable, healthy, the token accepted). Exit 1 when a check fails.
 */
import { readdir, stat, statfs, unlink, writeFile } from 'node:fs/promises';
import { join, resolve as resolvePath } from 'node:path';
import { defineCommand } from '../../command/define-command.js';
import { cliConfigPath } from '../kit/config.js';
import { unreachableMessage } from '../../command/cli-error.js';
import { clientContext, CLIENT_OPTIONS, serverUrl } from '../kit/context.js';
import { formatBytes } from '../kit/progress.js';
// ---- mDNS discovery (issue 35) ----
import { localMulticastCheck, serverMulticastCheck } from './discovery/multicast-check.js';
// ---- end mDNS discovery ----

export const DOCTOR_USAGE = `loom doctor [--data-dir ./data] [--url http://127.0.0.1:9100] [--token …] [--json]
  Checks Node.js, the data directory, the CLI configuration and the server, and says what to do.
  --data-dir defaults to $LOOM_DATA_DIR, else ./data; --url to $LOOM_URL, else http://127.0.0.1:9100.`;

type Outcome = 'ok' | 'warn' | 'fail';

interface Check {
  readonly check: string;
  readonly outcome: Outcome;
  readonly detail: string;
  /** What to do, when it is not ok. */
  readonly fix?: string;
}

const LOW_DISK_BYTES = 1024 ** 3;

async function dataDirectoryChecks(dir: string): Promise<Check[]> {
  const checks: Check[] = [];
  const exists = await stat(dir).then((s) => s.isDirectory(), () => false);
  if (!exists) {
    return [{ check: 'data directory', outcome: 'warn', detail: `${dir} does not exist yet`, fix: `loom serve --data-dir ${dir} creates it (or pass the directory your server uses with --data-dir)` }];
  }
  const probe = join(dir, `.loom-doctor-${process.pid}`);
  const writable = await writeFile(probe, 'ok').then(
    async () => {
      await unlink(probe);
      return true;
    },
    () => false,
  );
  checks.push(writable ? { check: 'data directory', outcome: 'ok', detail: `${dir} exists and is writable` } : { check: 'data directory', outcome: 'fail', detail: `${dir} is not writable by this user`, fix: `give the user that runs loom serve write access: chown -R $(id -un) ${dir}` });
  const names = await readdir(dir).catch(() => [] as string[]);
  const log = names.includes('loom.sqlite') ? 'sqlite (loom.sqlite)' : names.includes('level') ? 'level (level/)' : null;
  const journal = names.includes('loom.sqlite.journal') || names.includes('level.journal');
  checks.push(
    log
      ? { check: 'log', outcome: 'ok', detail: `${log}${journal ? ', with an ingest journal' : ''}${names.includes('instance.json') ? '; instance identity present' : ''}` }
      : { check: 'log', outcome: 'warn', detail: 'no log here yet (a new server, or PostgreSQL storage)', fix: 'nothing to do for a new server; otherwise check --data-dir points at the right directory' },
  );
  const fs = await statfs(dir).catch(() => null);
  if (fs) {
    const free = fs.bavail * fs.bsize;
    checks.push(free < LOW_DISK_BYTES ? { check: 'disk space', outcome: 'warn', detail: `${formatBytes(free)} free`, fix: 'free space or move the data directory: ingest fails when the disk is full' } : { check: 'disk space', outcome: 'ok', detail: `${formatBytes(free)} free` });
  }
  return checks;
}

async function configChecks(url: string, tokenFlag: string | undefined): Promise<Check[]> {
  const path = cliConfigPath();
  const info = await stat(path).catch(() => null);
  const checks: Check[] = [];
  if (!info) checks.push({ check: 'CLI configuration', outcome: 'ok', detail: `no file at ${path} (tokens come from --token or LOOM_TOKEN)` });
  else if ((info.mode & 0o077) !== 0) checks.push({ check: 'CLI configuration', outcome: 'warn', detail: `${path} is readable by other users (mode ${(info.mode & 0o777).toString(8)})`, fix: `chmod 600 ${path}` });
  else checks.push({ check: 'CLI configuration', outcome: 'ok', detail: `${path} (mode 600)` });
  // The same choice every client command makes (cli/kit/context.ts), with its reason.
  const source = clientContext({ url, ...(tokenFlag !== undefined ? { token: tokenFlag } : {}) }).tokenSource;
  checks.push(source ? { check: 'token', outcome: 'ok', detail: `sent from ${source}` } : { check: 'token', outcome: 'warn', detail: `no token for ${url}`, fix: 'on a new server: loom bootstrap (saves one); else set LOOM_TOKEN or pass --token' });
  return checks;
}

async function serverChecks(values: { url?: string; token?: string }): Promise<Check[]> {
  const url = serverUrl(values.url);
  type Health = { status?: string; version?: string; storage?: { backend?: string } };
  const answer = await fetch(`${url}/health`, { signal: AbortSignal.timeout(5000) }).then(
    async (response) => ({ status: response.status, body: (await response.json().catch(() => ({}))) as Health }),
    (error: unknown) => ({ error }),
  );
  if ('error' in answer) return [{ check: 'server', outcome: 'fail', detail: unreachableMessage(url, answer.error), fix: 'start it with: loom serve (or pass the right --url / LOOM_URL)' }];
  const health = answer.body;
  if (answer.status !== 200) {
    return [{ check: 'server', outcome: 'fail', detail: `${url}/health answered ${answer.status} (${health.status ?? 'no status'})`, fix: 'read the server log (JSON lines on its stdout): the storage probe says what failed' }];
  }
  const checks: Check[] = [{ check: 'server', outcome: 'ok', detail: `${url}: ${health?.status ?? 'ok'}, loom ${health?.version ?? '?'}, storage ${health?.storage?.backend ?? '?'}` }];
  const ctx = clientContext(values);
  const identity = await ctx.client.getIdentity().catch(() => null);
  if (identity?.data) {
    const data = identity.data;
    checks.push(data.is_authenticated ? { check: 'identity', outcome: 'ok', detail: `${data.service_account_id ?? data.did} with scopes ${data.scopes.join(', ') || '-'}` } : { check: 'identity', outcome: 'ok', detail: 'the server does not require auth (every request runs with every scope)' });
  } else {
    const envelope = identity?.error as { code?: string; message?: string } | undefined;
    checks.push({ check: 'identity', outcome: 'fail', detail: `the token was refused: ${envelope?.code ?? 'no answer'} ${envelope?.message ?? ''}`.trim(), fix: 'a stale token wins over newer ones: check LOOM_TOKEN and the config file, or mint a new one (loom sa rotate --save)' });
  }
  return checks;
}

export const doctor = defineCommand({
  name: 'doctor',
  summary: 'checks Node.js, the data directory, the configuration and the server',
  usage: DOCTOR_USAGE,
  json: true,
  options: { ...CLIENT_OPTIONS, 'data-dir': { type: 'string' } },
  run: async ({ values }) => {
    const dir = resolvePath(values['data-dir'] ?? process.env['LOOM_DATA_DIR'] ?? './data');
    const major = Number(process.versions.node.split('.')[0]);
    const checks: Check[] = [
      major >= 20 ? { check: 'node', outcome: 'ok', detail: `Node.js ${process.versions.node}` } : { check: 'node', outcome: 'fail', detail: `Node.js ${process.versions.node}`, fix: 'install Node.js 20 or later' },
      ...(await dataDirectoryChecks(dir)),
      ...(await configChecks(serverUrl(values.url), values.token)),
      ...(await serverChecks(values)),
      // ---- mDNS discovery (issue 35): says when multicast is unavailable ----
      localMulticastCheck(),
      ...[await serverMulticastCheck(values)].filter((check) => check !== null),
      // ---- end mDNS discovery ----
    ];
    const failed = checks.some((c) => c.outcome === 'fail');
    if (values.json) process.stdout.write(JSON.stringify({ ok: !failed, checks }, null, 2) + '\n');
    else {
      const mark: Record<Outcome, string> = { ok: 'ok  ', warn: 'warn', fail: 'FAIL' };
      let text = '';
      for (const c of checks) text += `${mark[c.outcome]}  ${c.check}: ${c.detail}\n${c.fix ? `      → ${c.fix}\n` : ''}`;
      text += failed ? 'some checks failed: see → above\n' : 'all good\n';
      process.stdout.write(text);
    }
    if (failed) process.exitCode = 1;
  },
});
