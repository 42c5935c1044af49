/**
 * What the HTTP benchmarks share: the Loom server phase (a reference server in
 * a child process, so autocannon does not share its event loop), the request
 * bodies (a different valid record per request), the autocannon load, and one
 * measurement: fork a server, optionally prepare it (e.g. mint a bearer),
 * warm up, load, stop, and summarise.
 */
import autocannon, { type Result } from 'autocannon';
import { forkChild, fmt, makeTempDir, messageFromParent, peakRssMb, round, sendToParent } from './harness.js';
import { actorDid, BENCH_ACTS, bodyFor, threadId, type RawInput } from './records.js';

export const CONNECTIONS = 64;
export const INGEST_PATH = '/v1/records';

// ------------------------------------------------------------------ the Loom server (child process)

export interface ServerReport {
  readonly peakRssMb: number;
  /** Loom only: records stored when the server was stopped. */
  readonly stored?: number;
  /**
   * Loom only: the server process's CPU time (user + system, all threads)
   * from `ready` to `stop`, per record stored meanwhile, in µs. Less
   * sensitive than req/s to other processes competing for the cores.
   */
  readonly cpuUsPerRecord?: number;
}

export interface LoomServerOptions {
  readonly durability: 'full' | 'normal';
  readonly storage: 'sqlite' | 'level' | 'postgres';
  /** The auth plugin's `required` option. @default false */
  readonly authRequired?: boolean;
  /** The database of storage 'postgres'. */
  readonly databaseUrl?: string;
}

/**
 * A phase: the reference server (createReferenceLoom) on a fresh temp data
 * directory, port 0, silent logger; sends `ready` with its URL, serves until
 * the parent sends `stop`, then reports its stored record count and peak RSS.
 */
export async function loomServer({ durability, storage, authRequired = false, databaseUrl }: LoomServerOptions): Promise<ServerReport> {
  await import('reflect-metadata');
  const { createReferenceLoom } = await import('../../server/reference-loom.js');
  const { silentLogger } = await import('../../core/plugin/logger.js');
  const dataDir = makeTempDir('http-loom');
  const loom = await createReferenceLoom({ dataDir, port: 0, logger: silentLogger, durability, storage, auth: { required: authRequired }, ...(databaseUrl ? { databaseUrl } : {}) });
  const url = await loom.start();
  const storedAtReady = await loom.engine.store.watermark();
  const cpuAtReady = process.cpuUsage();
  await sendToParent({ kind: 'ready', url });
  await messageFromParent('stop');
  const cpu = process.cpuUsage(cpuAtReady);
  const stored = await loom.engine.store.watermark();
  await loom.stop();
  const cpuUsPerRecord = stored > storedAtReady ? round((cpu.user + cpu.system) / (stored - storedAtReady), 1) : undefined;
  return { peakRssMb: peakRssMb(), stored, ...(cpuUsPerRecord !== undefined ? { cpuUsPerRecord } : {}) };
}

// ------------------------------------------------------------------ load

let counter = 0;

/** A different valid record per request: 64 actors, 256 threads, a clock global to this process. */
export function nextBody(): string {
  const n = counter++;
  const input: RawInput = {
    parents: [],
    thread: threadId(n % 256),
    actor: actorDid(`http-${n % CONNECTIONS}`),
    act: BENCH_ACTS[n % BENCH_ACTS.length]!,
    body: bodyFor(n),
    clock: n,
    data_type: 'SCALAR',
    judged_by: null,
  };
  return JSON.stringify(input);
}

/** autocannon: CONNECTIONS connections POSTing a fresh body to `url + path` for `duration` seconds. */
export function load(url: string, duration: number, headers: Record<string, string> = {}, path = INGEST_PATH, connections = CONNECTIONS, body: () => string = nextBody): Promise<Result> {
  return Promise.resolve(
    autocannon({
      url: url + path,
      connections,
      duration,
      timeout: 30,
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      requests: [
        {
          setupRequest: (request) => {
            request.body = body();
            return request;
          },
        },
      ],
    }),
  );
}

// ------------------------------------------------------------------ one measurement

export interface Measured {
  readonly label: string;
  readonly reqPerSec: number;
  readonly completedPerSec: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
  readonly ok2xx: number;
  readonly non2xx: number;
  readonly errors: number;
  readonly timeouts: number;
  readonly statusCodes: Record<string, number>;
  readonly serverPeakRssMb: number;
  readonly stored?: number;
  readonly serverCpuUsPerRecord?: number;
}

export interface MeasureOptions {
  readonly warmupS: number;
  readonly durationS: number;
  /** Runs once the server is up, before the warm-up; returns extra request headers (e.g. authorization). */
  readonly prepare?: (url: string) => Promise<Record<string, string>>;
  /** Runs after the measured load, before the server is stopped (e.g. to wait for background work it left). */
  readonly afterLoad?: (url: string) => Promise<void>;
}

/**
 * Forks `moduleUrl` as the server phase `phase` with `payload`, prepares it,
 * warms it up, loads it, stops it and summarises autocannon's result with the
 * server's own report.
 */
export async function measureServer(moduleUrl: string, label: string, phase: string, payload: unknown, options: MeasureOptions): Promise<Measured> {
  const child = forkChild(moduleUrl, ['--phase', phase], `server ${label}`, { BENCH_PHASE_PAYLOAD: JSON.stringify(payload) });
  try {
    const { url } = await child.message<{ kind: 'ready'; url: string }>('ready', 60_000);
    const headers = options.prepare ? await options.prepare(url) : {};
    await load(url, options.warmupS, headers);
    const result = await load(url, options.durationS, headers);
    if (options.afterLoad) await options.afterLoad(url);
    child.send({ kind: 'stop' });
    const { value } = await child.message<{ kind: 'phase-result'; value: ServerReport }>('phase-result', 60_000);
    if ((await child.exited) !== 0) throw new Error(`server ${label} exited non-zero`);
    const statusCodes = Object.fromEntries(Object.entries(result.statusCodeStats).map(([code, s]) => [code, s.count]));
    return {
      label,
      reqPerSec: Math.round(result.requests.average),
      completedPerSec: Math.round(result['2xx'] / result.duration),
      p50Ms: result.latency.p50,
      p99Ms: result.latency.p99,
      maxMs: result.latency.max,
      ok2xx: result['2xx'],
      non2xx: result.non2xx,
      errors: result.errors,
      timeouts: result.timeouts,
      statusCodes,
      serverPeakRssMb: value.peakRssMb,
      ...(value.stored !== undefined ? { stored: value.stored } : {}),
      ...(value.cpuUsPerRecord !== undefined ? { serverCpuUsPerRecord: value.cpuUsPerRecord } : {}),
    };
  } catch (error) {
    child.kill();
    throw error;
  }
}

/** True when every answer was a 201 and nothing failed. */
export function all201(m: Measured): boolean {
  return m.non2xx === 0 && m.errors === 0 && m.timeouts === 0 && (m.statusCodes['201'] ?? 0) === m.ok2xx && m.ok2xx > 0;
}

export function statusSummary(m: Measured): string {
  return `2xx ${fmt(m.ok2xx)} (${Object.entries(m.statusCodes).map(([c, n]) => `${c}×${n}`).join(' ')}), non-2xx ${m.non2xx}, errors ${m.errors}, timeouts ${m.timeouts}`;
}

export function describe(m: Measured): string {
  const codes = Object.entries(m.statusCodes)
    .map(([code, n]) => `${code}×${fmt(n)}`)
    .join(' ');
  return `${fmt(m.reqPerSec).padStart(7)} req/s (2xx/s ${fmt(m.completedPerSec)}), latency p50 ${m.p50Ms} ms p99 ${m.p99Ms} ms max ${m.maxMs} ms; ${codes || 'no responses'}, non-2xx ${m.non2xx}, errors ${m.errors}, timeouts ${m.timeouts}; server peak RSS ${m.serverPeakRssMb} MB${m.stored !== undefined ? `; ${fmt(m.stored)} records stored (incl. warm-up)` : ''}${m.serverCpuUsPerRecord !== undefined ? `; server CPU ${fmt(m.serverCpuUsPerRecord)} µs/record` : ''}`;
}
