/**
 * HTTP ingest: req/s and p99 latency of POST /v1/records on a full Loom
 * server (createReferenceLoom, SQLite, durability full, auth off, silent
 * logger; the cost of auth is http-ingest-auth.ts's subject) under 64
 * concurrent connections on 127.0.0.1, divided by a bare @hapi/hapi server
 * with one POST route echoing the parsed JSON payload, measured in the same
 * run with the same bodies, connections and duration. Target ≥ 0.6.
 *
 * Each server runs in its own child process, so autocannon (here) does not
 * share its event loop; the child reports its peak RSS when told to stop.
 * Every request carries a different valid record (unique actor/clock), so
 * every Loom answer should be 201; any other status is counted and reported.
 * For information, Loom is also measured with durability 'normal' and with
 * the LevelDB store (both gated the same way, but not the target).
 */
import { fmt, log, main, messageFromParent, peakRssMb, ratioCheck, round, SCALE, sendToParent, type Check } from './support/harness.js';
import { all201, CONNECTIONS, describe, INGEST_PATH, loomServer, measureServer, nextBody, statusSummary, type Measured, type ServerReport } from './support/http-load.js';

const DURATION_S = Math.max(3, Math.round(10 * SCALE));
const WARMUP_S = Math.max(1, Math.round(2 * SCALE));
const TARGET = 0.6;

// ------------------------------------------------------------------ the baseline server (child process; Loom's is in support/http-load.ts)

async function echoServer(): Promise<ServerReport> {
  const Hapi = await import('@hapi/hapi');
  const server = Hapi.server({ host: '127.0.0.1', port: 0, debug: false });
  server.route({ method: 'POST', path: INGEST_PATH, handler: (request) => request.payload as object });
  await server.start();
  await sendToParent({ kind: 'ready', url: server.info.uri });
  await messageFromParent('stop');
  await server.stop();
  return { peakRssMb: peakRssMb() };
}

function measure(label: string, phase: string, payload: unknown): Promise<Measured> {
  return measureServer(import.meta.url, label, phase, payload, { warmupS: WARMUP_S, durationS: DURATION_S });
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
    const clean = all201(m);
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
        detail: statusSummary(m),
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
