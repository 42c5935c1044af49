/**
 * HTTP ingest: req/s and p99 latency of POST /v1/records on a full Loom
 * server (createLoom, SQLite, durability full, silent logger) under 64
 * concurrent connections on 127.0.0.1, divided by a bare @hapi/hapi server
 * with one POST route echoing the parsed JSON payload, measured in the same
 * run with the same bodies, connections and duration. Target ≥ 0.6.
 *
 * Each server runs in its own child process, so autocannon (here) does not
 * share its event loop; the child reports its peak RSS when told to stop.
 * Every request carries a different valid record (unique actor/clock), so
 * every Loom answer should be 201; any other status is counted and reported.
 * For information, Loom is also measured with durability 'normal' and with
 * the LevelDB store (both gated the same way, but not the issue's target).
 */
import autocannon, { type Result } from 'autocannon';
import { forkChild, fmt, log, main, makeTempDir, messageFromParent, peakRssMb, ratioCheck, round, SCALE, sendToParent, type Check } from './support/harness.js';
import { actorDid, BENCH_ACTS, bodyFor, threadId, type RawInput } from './support/records.js';

const CONNECTIONS = 64;
const DURATION_S = Math.max(3, Math.round(10 * SCALE));
const WARMUP_S = Math.max(1, Math.round(2 * SCALE));
const TARGET = 0.6;
const PATH = '/v1/records';

// ------------------------------------------------------------------ servers (child processes)

interface ServerReport {
  readonly peakRssMb: number;
  /** Loom only: records stored when the server was stopped. */
  readonly stored?: number;
}

async function loomServer({ durability, storage }: { durability: 'full' | 'normal'; storage: 'sqlite' | 'level' }): Promise<ServerReport> {
  await import('reflect-metadata');
  const { createReferenceLoom: createLoom } = await import('../core/cli/reference-loom.js');
  const { silentLogger } = await import('../core/plugin/logger.js');
  const dataDir = makeTempDir('http-loom');
  const loom = await createLoom({ dataDir, port: 0, logger: silentLogger, durability, storage, auth: { required: false } });
  const url = await loom.start();
  await sendToParent({ kind: 'ready', url });
  await messageFromParent('stop');
  const stored = await loom.engine.store.watermark();
  await loom.stop();
  return { peakRssMb: peakRssMb(), stored };
}

async function echoServer(): Promise<ServerReport> {
  const Hapi = await import('@hapi/hapi');
  const server = Hapi.server({ host: '127.0.0.1', port: 0, debug: false });
  server.route({ method: 'POST', path: PATH, handler: (request) => request.payload as object });
  await server.start();
  await sendToParent({ kind: 'ready', url: server.info.uri });
  await messageFromParent('stop');
  await server.stop();
  return { peakRssMb: peakRssMb() };
}

// ------------------------------------------------------------------ load

let counter = 0;

/** A different valid record per request: 64 actors, 256 threads, a global clock. */
function nextBody(): string {
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

function load(url: string, duration: number): Promise<Result> {
  return Promise.resolve(
    autocannon({
      url: url + PATH,
      connections: CONNECTIONS,
      duration,
      timeout: 30,
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      requests: [
        {
          setupRequest: (request) => {
            request.body = nextBody();
            return request;
          },
        },
      ],
    }),
  );
}

interface Measured {
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
}

async function measure(label: string, phase: string, payload: unknown): Promise<Measured> {
  const child = forkChild(import.meta.url, ['--phase', phase], `server ${label}`, { BENCH_PHASE_PAYLOAD: JSON.stringify(payload) });
  try {
    const { url } = await child.message<{ kind: 'ready'; url: string }>('ready', 60_000);
    await load(url, WARMUP_S);
    const result = await load(url, DURATION_S);
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
    };
  } catch (error) {
    child.kill();
    throw error;
  }
}

function describe(m: Measured): string {
  const codes = Object.entries(m.statusCodes)
    .map(([code, n]) => `${code}×${fmt(n)}`)
    .join(' ');
  return `${fmt(m.reqPerSec).padStart(7)} req/s (2xx/s ${fmt(m.completedPerSec)}), latency p50 ${m.p50Ms} ms p99 ${m.p99Ms} ms max ${m.maxMs} ms; ${codes || 'no responses'}, non-2xx ${m.non2xx}, errors ${m.errors}, timeouts ${m.timeouts}; server peak RSS ${m.serverPeakRssMb} MB${m.stored !== undefined ? `; ${fmt(m.stored)} records stored (incl. warm-up)` : ''}`;
}

async function run() {
  log(`    ${CONNECTIONS} connections, ${WARMUP_S} s warm-up + ${DURATION_S} s measured per server; each server in its own process; body ≈ ${Buffer.byteLength(nextBody())} bytes`);
  const echo = await measure('hapi echo', 'echo', null);
  log(`    bare Hapi JSON echo [baseline]:     ${describe(echo)}`);
  const loomFull = await measure('loom full', 'loom', { durability: 'full', storage: 'sqlite' });
  log(`    Loom POST /v1/records (sqlite, full):   ${describe(loomFull)}`);
  const loomNormal = await measure('loom normal', 'loom', { durability: 'normal', storage: 'sqlite' });
  log(`    Loom POST /v1/records (sqlite, normal): ${describe(loomNormal)}`);
  const loomLevel = await measure('loom level', 'loom', { durability: 'full', storage: 'level' });
  log(`    Loom POST /v1/records (level, full):    ${describe(loomLevel)}`);

  const checks: Check[] = [];
  const runs = [
    { m: loomFull, what: 'sqlite, durability full' },
    { m: loomNormal, what: 'sqlite, durability normal; info' },
    { m: loomLevel, what: 'level, durability full; info' },
  ];
  for (const { m, what } of runs) {
    const ratio = m.reqPerSec / echo.reqPerSec;
    const clean = m.non2xx === 0 && m.errors === 0 && m.timeouts === 0 && (m.statusCodes['201'] ?? 0) === m.ok2xx && m.ok2xx > 0;
    log(`    RATIO Loom (${what}) ÷ echo: req/s ${ratio.toFixed(3)} (target ≥ ${TARGET}); p99 ${(m.p99Ms / echo.p99Ms).toFixed(2)}× the echo's`);
    checks.push(
      ratioCheck(
        `Loom POST /v1/records (${what}) ÷ Hapi echo, req/s`,
        ratio,
        '>=',
        TARGET,
        `${fmt(m.reqPerSec)} vs ${fmt(echo.reqPerSec)} req/s; p99 ${m.p99Ms} vs ${echo.p99Ms} ms; server peak RSS ${m.serverPeakRssMb} MB (echo ${echo.serverPeakRssMb} MB)`,
      ),
      {
        label: `Loom (${what.replace('; info', '')}): every answer 201, no errors`,
        ratio: null,
        target: 'non-2xx = 0, errors = 0',
        pass: clean,
        detail: `2xx ${fmt(m.ok2xx)} (${Object.entries(m.statusCodes).map(([c, n]) => `${c}×${n}`).join(' ')}), non-2xx ${m.non2xx}, errors ${m.errors}, timeouts ${m.timeouts}`,
      },
    );
  }
  return {
    figures: {
      connections: CONNECTIONS,
      duration_s: DURATION_S,
      warmup_s: WARMUP_S,
      echo,
      loom_full: loomFull,
      loom_normal: loomNormal,
      loom_level_full: loomLevel,
      ratio_full: round(loomFull.reqPerSec / echo.reqPerSec, 3),
      ratio_normal: round(loomNormal.reqPerSec / echo.reqPerSec, 3),
      ratio_level_full: round(loomLevel.reqPerSec / echo.reqPerSec, 3),
    },
    checks,
    childPeakRssMb: Math.max(echo.serverPeakRssMb, loomFull.serverPeakRssMb, loomNormal.serverPeakRssMb, loomLevel.serverPeakRssMb),
    notes: ['autocannon and the server share the machine\'s 2 cores; req/s is autocannon\'s mean of per-second samples.'],
  };
}

main(import.meta.url, {
  name: 'http-ingest',
  title: 'HTTP POST /v1/records under 64 connections vs a bare Hapi JSON echo',
  phases: { loom: loomServer, echo: echoServer },
  run,
});
