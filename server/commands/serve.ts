/**
 * `loom serve`: the reference server. Embedded SQLite under ./data on port
 * 9100 by default; one startup line; JSON-lines logs (pino-pretty's lines on a terminal); clean shutdown on
 * SIGINT/SIGTERM (in-flight requests finish, storage flushes).
 */
import { resolve as resolvePath } from 'node:path';
import { defineCommand, type OptionValues } from '../../command/define-command.js';
import { createReferenceLoom, STORE_BACKENDS, type StoreBackend } from '../reference-loom.js';
import { createLogger, defaultLogFormat, LOG_FORMATS, type LogFormat, type LogLevel } from '../../core/plugin/logger.js';
import { LOOM_VERSION } from '../../core/server/version.js';
import { CliError } from '../../command/cli-error.js';
// ---- console (plugins/console) ----
import { CONSOLE_PATH, consoleBuilt } from '../../plugins/console/index.js';
// ---- end console ----

export const SERVE_USAGE = `loom serve [--port 9100] [--host 127.0.0.1] [--storage sqlite|level|postgres] [--data-dir ./data]
           [--database-url postgres://… [--database-schema loom]]
           [--insecure-localhost] [--log-level debug|info|warn|error] [--log-format pretty|json]
           [--durability full|normal]
           [--federation [--federation-domain example.com] [--no-strict] [--no-mdns] [--mdns-announce]]
           [--rate-limit <requests/s per client>] [--max-watchers N]
           [--headers-timeout-ms 15000] [--request-timeout-ms 30000] [--keep-alive-timeout-ms 5000]
           [--max-connections-per-client 256] [--max-runs 16]
           [--blob-grace-seconds 86400]

  --log-format F       pretty (pino-pretty's readable lines) or json (one JSON object per line, for
                       collectors); default pretty when stdout and stderr are terminals, else json
  --storage postgres   keep the log in PostgreSQL (--database-url); several servers, each with its own
                       --data-dir (plugin state, fold checkpoints, identity), may serve one database

  --federation         serve /v1/sync/* and a signed federation manifest; the instance DID becomes
                       the did:key of an Ed25519 key kept in <data-dir>/plugins/federation/instance-key
  --federation-domain  also answer as did:web:<domain> (serves /.well-known/did.json)
  --no-strict          accept peer manifests whose signature expired (every other check stays)
  --no-mdns            do not listen for peers announcing _loom._tcp.local on the local network (the
                       listener is on with --federation; GET /v1/discovery/mdns lists what it heard)
  --mdns-announce      announce this instance as _loom._tcp.local (off by default), with the URL
                       LOOM_PUBLIC_URL, else the bound address; a goodbye is sent on shutdown
  --rate-limit N       at most N requests per second per credential (else per address), bursts of 2N;
                       over it 429 RATE_LIMITED. Off by default: set it before binding a public address
  --max-watchers N     thread-watch feeds (SSE) open at once, default 1000; past it 503
  --headers-timeout-ms N     time to receive a request's line and headers, default 15000; past it 408
  --request-timeout-ms N     time a request body may take once its headers are in, default 30000, plus
                             1 s per 16 KiB received (uploads at a fair rate are never cut); past it 408.
                             Thread watches, the continuous changes feed and long polls are not cut
  --keep-alive-timeout-ms N  idle time a kept-alive connection waits for its next request, default 5000
  --max-connections-per-client N  open connections per remote address, default 256 (0: no cap); past it
                             429 TOO_MANY_CONNECTIONS. Behind a reverse proxy every client has its address
  --max-runs N         member runs without an outcome at once (every server of a shared log), default 16;
                       one more start is 503 ADMISSION_CEILING
  --blob-grace-seconds N  file content no file holds any more (removed or overwritten) is deleted from
                       the blob store (<data-dir>/plugins/data-plane/blobs; on PostgreSQL the database)
                       once unreferenced this long, default 86400
                       (24 h; checked hourly); 0: at the next hourly check. loom data gc collects at once

  Model providers (work loops) come from the variables their own tools read: ANTHROPIC_API_KEY and
  ANTHROPIC_BASE_URL; OPENAI_API_KEY and OPENAI_BASE_URL (also an OpenAI-compatible server: vLLM,
  llama.cpp); OLLAMA_HOST. The work_providers configuration topic overrides them per instance.

  Environment: LOOM_PORT, LOOM_HOST, LOOM_STORAGE, LOOM_DATA_DIR, LOOM_DATABASE_URL, LOOM_DATABASE_SCHEMA,
  LOOM_LOG_LEVEL, LOOM_LOG_FORMAT, LOOM_FEDERATION=1, LOOM_FEDERATION_DOMAIN, LOOM_PUBLIC_URL,
  LOOM_MDNS=0, LOOM_MDNS_ANNOUNCE=1, LOOM_RATE_LIMIT, LOOM_MAX_WATCHERS,
  LOOM_HEADERS_TIMEOUT_MS, LOOM_REQUEST_TIMEOUT_MS, LOOM_KEEP_ALIVE_TIMEOUT_MS, LOOM_MAX_CONNECTIONS_PER_CLIENT,
  LOOM_MAX_RUNS, LOOM_BLOB_GRACE_SECONDS (flags win).`;

/** How long a clean stop (SIGINT, SIGTERM) may take before the process exits anyway. */
const SHUTDOWN_DEADLINE_MS = 30_000;

const SERVE_OPTIONS = {
  port: { type: 'string', help: 'LOOM_PORT, default 9100' },
  host: { type: 'string', help: 'LOOM_HOST, default 127.0.0.1' },
  storage: { type: 'string', help: 'sqlite, level or postgres (LOOM_STORAGE, default sqlite)' },
  'data-dir': { type: 'string', help: 'LOOM_DATA_DIR, default ./data' },
  'database-url': { type: 'string', help: 'the PostgreSQL database of --storage postgres' },
  'database-schema': { type: 'string', help: 'its schema, default loom' },
  'insecure-localhost': { type: 'boolean', default: false, help: '127.0.0.1 without auth enforcement' },
  'log-level': { type: 'string', help: 'debug, info, warn or error' },
  'log-format': { type: 'string', help: 'pretty or json (LOOM_LOG_FORMAT; default pretty on a terminal, else json)' },
  durability: { type: 'string', help: 'full or normal' },
  federation: { type: 'boolean', default: false, help: 'serve /v1/sync/* and a signed manifest' },
  'federation-domain': { type: 'string', help: 'also answer as did:web:<domain>' },
  'no-strict': { type: 'boolean', default: false, help: 'accept expired peer manifest signatures' },
  // ---- mDNS discovery (plugins/discovery, issue 35) ----
  'no-mdns': { type: 'boolean', default: false, help: 'do not listen for _loom._tcp.local peers' },
  'mdns-announce': { type: 'boolean', default: false, help: 'announce this instance as _loom._tcp.local' },
  // ---- end mDNS discovery ----
  'rate-limit': { type: 'string', help: 'requests per second per client' },
  'max-watchers': { type: 'string', help: 'thread watches open at once' },
  'headers-timeout-ms': { type: 'string', help: 'default 15000' },
  'request-timeout-ms': { type: 'string', help: 'default 30000' },
  'keep-alive-timeout-ms': { type: 'string', help: 'default 5000' },
  'max-connections-per-client': { type: 'string', help: 'default 256' },
  'max-runs': { type: 'string', help: 'member runs at once, default 16' },
  'blob-grace-seconds': { type: 'string', help: 'unreferenced file content kept this long, default 86400' },
} as const;

export const serve = defineCommand({
  name: 'serve',
  summary: 'runs the reference server',
  usage: SERVE_USAGE,
  options: SERVE_OPTIONS,
  run: ({ values }) => runServer(values),
});

async function runServer(values: OptionValues<typeof SERVE_OPTIONS>): Promise<void> {
  const port = Number(values.port ?? process.env['LOOM_PORT'] ?? 9100);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new CliError(`--port must be an integer from 0 to 65535`);
  const storage = (values.storage ?? process.env['LOOM_STORAGE'] ?? 'sqlite') as StoreBackend;
  if (!STORE_BACKENDS.includes(storage)) throw new CliError(`--storage must be one of ${STORE_BACKENDS.join(', ')}`);
  const level = (values['log-level'] ?? process.env['LOOM_LOG_LEVEL'] ?? 'info') as LogLevel;
  if (!['debug', 'info', 'warn', 'error'].includes(level)) throw new CliError('--log-level must be debug, info, warn or error');
  const format = (values['log-format'] ?? (process.env['LOOM_LOG_FORMAT'] || undefined) ?? defaultLogFormat()) as LogFormat;
  if (!LOG_FORMATS.includes(format)) throw new CliError(`--log-format must be pretty or json, not ${JSON.stringify(format)}`);
  const durability = values.durability ?? 'full';
  if (durability !== 'full' && durability !== 'normal') throw new CliError('--durability must be full or normal');
  const dataDir = values['data-dir'] ?? process.env['LOOM_DATA_DIR'] ?? './data';
  const databaseUrl = values['database-url'] ?? process.env['LOOM_DATABASE_URL'];
  const databaseSchema = values['database-schema'] ?? process.env['LOOM_DATABASE_SCHEMA'];
  if (storage === 'postgres' && !databaseUrl) throw new CliError('--storage postgres needs --database-url (or LOOM_DATABASE_URL), e.g. postgres://loom@127.0.0.1:5432/loom');
  if (storage !== 'postgres' && (values['database-url'] !== undefined || values['database-schema'] !== undefined)) throw new CliError('--database-url and --database-schema need --storage postgres');
  const insecure = values['insecure-localhost'] === true;
  const host = insecure ? '127.0.0.1' : (values.host ?? process.env['LOOM_HOST'] ?? '127.0.0.1');
  const log = createLogger(format, { level });
  const federation = values.federation === true || process.env['LOOM_FEDERATION'] === '1';
  const domain = values['federation-domain'] ?? process.env['LOOM_FEDERATION_DOMAIN'] ?? null;
  if (!federation && (domain !== null || values['no-strict'])) throw new CliError('--federation-domain and --no-strict need --federation');
  // ---- mDNS discovery (plugins/discovery, issue 35) ----
  const mdnsListen = values['no-mdns'] !== true && process.env['LOOM_MDNS'] !== '0';
  const mdnsAnnounce = values['mdns-announce'] === true || process.env['LOOM_MDNS_ANNOUNCE'] === '1';
  if (!federation && (values['no-mdns'] || values['mdns-announce'])) throw new CliError('--no-mdns and --mdns-announce need --federation');
  // ---- end mDNS discovery ----

  const positive = (name: string, text: string | undefined): number | undefined => {
    if (text === undefined) return undefined;
    const value = Number(text);
    if (!Number.isInteger(value) || value < 1) throw new CliError(`--${name} must be a whole number of at least 1, not ${JSON.stringify(text)}`);
    return value;
  };
  const rate = positive('rate-limit', values['rate-limit'] ?? process.env['LOOM_RATE_LIMIT']);
  const maxWatchers = positive('max-watchers', values['max-watchers'] ?? process.env['LOOM_MAX_WATCHERS']);
  const whole = (name: string, text: string | undefined, minimum: number): number | undefined => {
    if (text === undefined) return undefined;
    const value = Number(text);
    if (!Number.isInteger(value) || value < minimum) throw new CliError(`--${name} must be a whole number of at least ${minimum}, not ${JSON.stringify(text)}`);
    return value;
  };
  const headersTimeoutMs = whole('headers-timeout-ms', values['headers-timeout-ms'] ?? process.env['LOOM_HEADERS_TIMEOUT_MS'], 1);
  const requestTimeoutMs = whole('request-timeout-ms', values['request-timeout-ms'] ?? process.env['LOOM_REQUEST_TIMEOUT_MS'], 0);
  const keepAliveTimeoutMs = whole('keep-alive-timeout-ms', values['keep-alive-timeout-ms'] ?? process.env['LOOM_KEEP_ALIVE_TIMEOUT_MS'], 1);
  const maxConnectionsPerClient = whole('max-connections-per-client', values['max-connections-per-client'] ?? process.env['LOOM_MAX_CONNECTIONS_PER_CLIENT'], 0);
  const maxRuns = positive('max-runs', values['max-runs'] ?? process.env['LOOM_MAX_RUNS']);
  const blobGraceSeconds = whole('blob-grace-seconds', values['blob-grace-seconds'] ?? process.env['LOOM_BLOB_GRACE_SECONDS'], 0);
  const bootstrapSecret = process.env['LOOM_BOOTSTRAP_TOKEN'];
  const loom = await createReferenceLoom({
    storage,
    dataDir,
    ...(storage === 'postgres' ? { databaseUrl, ...(databaseSchema ? { databaseSchema } : {}) } : {}),
    port,
    host,
    insecureLocalhost: insecure,
    logger: log,
    durability,
    ...(rate !== undefined ? { rateLimit: { perSecond: rate, burst: rate * 2 } } : {}),
    ...(maxWatchers !== undefined ? { ledger: { maxWatchers } } : {}),
    ...(headersTimeoutMs !== undefined ? { headersTimeoutMs } : {}),
    ...(requestTimeoutMs !== undefined ? { requestTimeoutMs } : {}),
    ...(keepAliveTimeoutMs !== undefined ? { keepAliveTimeoutMs } : {}),
    ...(maxConnectionsPerClient !== undefined ? { maxConnectionsPerClient } : {}),
    ...(maxRuns !== undefined ? { work: { maxConcurrentRuns: maxRuns } } : {}),
    ...(blobGraceSeconds !== undefined ? { data: { blobGraceSeconds } } : {}),
    auth: bootstrapSecret ? { bootstrapSecret } : {},
    // Heartbeats report where peers reach this instance: LOOM_PUBLIC_URL behind a proxy, else the bound address.
    fleet: { endpoint: process.env['LOOM_PUBLIC_URL'] ?? (port === 0 ? null : `http://${host}:${port}`) },
    federation: federation ? { domain, baseUrl: process.env['LOOM_PUBLIC_URL'] ?? null, strictManifests: values['no-strict'] !== true } : false,
    // ---- mDNS discovery (plugins/discovery, issue 35) ----
    discovery: { listen: mdnsListen, announce: mdnsAnnounce, endpoint: process.env['LOOM_PUBLIC_URL'] ?? (port === 0 ? null : `http://${host.includes(':') ? `[${host}]` : host}:${port}`) },
    // ---- end mDNS discovery ----
  });
  if (insecure) log.log('warn', 'insecure-localhost: bound to 127.0.0.1 with auth enforcement disabled; for emergency use only');
  const url = await loom.start();
  // stdout is the log (JSON lines unless pretty); the line for people goes to stderr, with the data directory as an absolute path.
  const absoluteDataDir = resolvePath(dataDir);
  process.stderr.write(`loom ${LOOM_VERSION} listening on ${url} (storage ${storage}, data dir ${loom.info.storeBackend === storage ? absoluteDataDir : '-'}, instance ${loom.info.instanceDid})\n`);
  // ---- console (plugins/console) ----
  if (loom.plugins.includes('console') && consoleBuilt()) process.stderr.write(`console: ${url}${CONSOLE_PATH}/\n`);
  // ---- end console ----
  log.log('info', 'started', { url, storage, data_dir: absoluteDataDir, version: LOOM_VERSION, plugins: loom.plugins });

  await new Promise<void>((resolve) => {
    let stopping = false;
    const shutdown = (signal: string) => {
      if (stopping) {
        // A second signal is the operator insisting: exit now, as a crash would (acknowledged writes are durable).
        log.log('warn', 'forced stop', { signal });
        process.exit(1);
      }
      stopping = true;
      log.log('info', 'stopping', { signal });
      // A clean stop that hangs (a stuck connection, a consumer that never yields) must not keep the process
      // alive until a supervisor kills it without a word: after the deadline it says so and exits.
      const deadline = setTimeout(() => {
        log.log('error', 'stop did not finish in time; exiting', { deadline_ms: SHUTDOWN_DEADLINE_MS });
        process.exit(1);
      }, SHUTDOWN_DEADLINE_MS);
      deadline.unref();
      loom.stop().then(
        () => {
          clearTimeout(deadline);
          log.log('info', 'stopped');
          resolve();
        },
        (error: unknown) => {
          clearTimeout(deadline);
          log.log('error', 'stop failed', { error: String(error) });
          process.exitCode = 1;
          resolve();
        },
      );
    };
    process.on('SIGINT', () => shutdown('SIGINT'));
    process.on('SIGTERM', () => shutdown('SIGTERM'));
  });
}
