/**
 * PostgreSQL: HTTP ingest (POST /v1/records, 64 connections, auth off) of a
 * Loom server on PostgreSQL ÷ the same server on SQLite (durability full),
 * with absolute appends per second (goal ≥ 2,000/s on this 2-core machine);
 * then two Loom servers on one database, each loaded by 32 of the 64
 * connections at once, ÷ one server with all 64 (goal ≥ 1.5: it scales
 * out). The cluster is a throwaway one (initdb, fsync on) on this machine,
 * so the database, the servers and the load generator share its 2 cores.
 */
import { forkChild, fmt, log, main, ratioCheck, round, SCALE, type Check } from './support/harness.js';
import { CONNECTIONS, describe, load, loomServer, measureServer, type Measured, type ServerReport } from './support/http-load.js';
import { postgresUnavailable, ThrowawayCluster } from '../storage/postgres/throwaway-cluster.js';

const DURATION_S = Math.max(3, Math.round(10 * SCALE));
const WARMUP_S = Math.max(1, Math.round(2 * SCALE));
const PG_TARGET = 2000;
const SCALE_OUT_TARGET = 1.5;

/**
 * The machine's CPU use while `work` runs, as the median of one-second
 * samples of /proc/stat (all cores; 100% = every core busy): evidence of
 * whether a run was bound by the machine rather than by Loom.
 */
async function withCpuSamples<T>(work: () => Promise<T>): Promise<{ value: T; busyPct: number | null }> {
  const { readFileSync } = await import('node:fs');
  const read = () => {
    try {
      const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
      const idle = fields[3]! + (fields[4] ?? 0);
      return { idle, total: fields.reduce((a, b) => a + b, 0) };
    } catch {
      return null;
    }
  };
  const samples: number[] = [];
  let last = read();
  const timer = setInterval(() => {
    const now = read();
    if (now && last && now.total > last.total) samples.push(100 * (1 - (now.idle - last.idle) / (now.total - last.total)));
    last = now;
  }, 1000);
  try {
    const value = await work();
    samples.sort((a, b) => a - b);
    return { value, busyPct: samples.length === 0 ? null : round(samples[Math.floor(samples.length / 2)]!, 1) };
  } finally {
    clearInterval(timer);
  }
}

function measure(label: string, payload: unknown): Promise<Measured> {
  return measureServer(import.meta.url, label, 'loom', payload, { warmupS: WARMUP_S, durationS: DURATION_S });
}

/** Two servers on one database, loaded at the same time with half the connections each; the sum of their 2xx/s. */
async function twoServers(databaseUrl: string): Promise<{ perServer: number[]; total: number; stored: number }> {
  const children = [0, 1].map((i) => forkChild(import.meta.url, ['--phase', 'loom'], `server pg-${i}`, { BENCH_PHASE_PAYLOAD: JSON.stringify({ durability: 'full', storage: 'postgres', databaseUrl }) }));
  try {
    const urls = await Promise.all(children.map(async (child) => (await child.message<{ kind: 'ready'; url: string }>('ready', 60_000)).url));
    const half = CONNECTIONS / 2;
    await Promise.all(urls.map((url) => load(url, WARMUP_S, {}, undefined, half)));
    const results = await Promise.all(urls.map((url) => load(url, DURATION_S, {}, undefined, half)));
    const reports: ServerReport[] = [];
    for (const child of children) {
      child.send({ kind: 'stop' });
      reports.push((await child.message<{ kind: 'phase-result'; value: ServerReport }>('phase-result', 60_000)).value);
      await child.exited;
    }
    for (const result of results) if (result.non2xx > 0 || result.errors > 0) throw new Error(`two servers: non-2xx ${result.non2xx}, errors ${result.errors}`);
    const perServer = results.map((r) => Math.round(r['2xx'] / r.duration));
    return { perServer, total: perServer.reduce((a, b) => a + b, 0), stored: Math.max(...reports.map((r) => r.stored ?? 0)) };
  } catch (error) {
    for (const child of children) child.kill();
    throw error;
  }
}

async function run() {
  const unavailable = postgresUnavailable();
  if (unavailable) throw new Error(`cannot run: ${unavailable}`);
  // BENCH_PG_FSYNC=off takes the WAL flush out of each commit, to see what bounds the scale-out.
  const fsync = process.env['BENCH_PG_FSYNC'] !== 'off';
  const cluster = await ThrowawayCluster.start({ fsync });
  try {
    log(`    ${CONNECTIONS} connections, ${WARMUP_S} s warm-up + ${DURATION_S} s measured; each server in its own process; PostgreSQL ${cluster.url()} (fsync ${fsync ? 'on' : 'off'})`);
    const sqlite = await measure('loom sqlite', { durability: 'full', storage: 'sqlite' });
    log(`    Loom on SQLite (full) [baseline]:  ${describe(sqlite)}`);
    const oneDb = await cluster.createDatabase('one_server');
    const { value: one, busyPct: oneBusy } = await withCpuSamples(() => measure('loom postgres', { durability: 'full', storage: 'postgres', databaseUrl: oneDb }));
    log(`    Loom on PostgreSQL, one server:    ${describe(one)}; machine CPU busy ${oneBusy ?? '?'}% (median of 1-s samples)`);
    const twoDb = await cluster.createDatabase('two_servers');
    const { value: two, busyPct: twoBusy } = await withCpuSamples(() => twoServers(twoDb));
    log(`    Loom on PostgreSQL, two servers:   ${fmt(two.total)} 2xx/s (${two.perServer.map((n) => fmt(n)).join(' + ')}); ${fmt(two.stored)} records stored (incl. warm-up); machine CPU busy ${twoBusy ?? '?'}%`);
    const pgRatio = one.completedPerSec / sqlite.completedPerSec;
    const scaleOut = two.total / one.completedPerSec;
    log(`    RATIO PostgreSQL ÷ SQLite: ${pgRatio.toFixed(3)} (${fmt(one.completedPerSec)} vs ${fmt(sqlite.completedPerSec)} appends/s; goal ≥ ${fmt(PG_TARGET)}/s absolute)`);
    log(`    RATIO two servers ÷ one: ${scaleOut.toFixed(3)} (goal ≥ ${SCALE_OUT_TARGET})`);
    const checks: Check[] = [
      { label: 'PostgreSQL, one server: appends/s', ratio: null, target: `≥ ${PG_TARGET}`, pass: one.completedPerSec >= PG_TARGET, detail: `${fmt(one.completedPerSec)} appends/s; ${fmt(pgRatio, 3)}× SQLite's ${fmt(sqlite.completedPerSec)}` },
      ratioCheck('two servers on one database ÷ one server, appends/s', scaleOut, '>=', SCALE_OUT_TARGET, `${fmt(two.total)} vs ${fmt(one.completedPerSec)} appends/s`),
    ];
    return {
      figures: { connections: CONNECTIONS, duration_s: DURATION_S, sqlite, postgres_one: one, postgres_two: two, cpu_busy_pct_one: oneBusy, cpu_busy_pct_two: twoBusy, ratio_pg_sqlite: round(pgRatio, 3), ratio_two_one: round(scaleOut, 3) },
      checks,
      childPeakRssMb: Math.max(sqlite.serverPeakRssMb, one.serverPeakRssMb),
      notes: ['The database server, the Loom servers and autocannon share the machine\'s 2 cores: two servers compete with PostgreSQL for CPU, which bounds the scale-out here.'],
    };
  } finally {
    await cluster.stop();
  }
}

main(import.meta.url, {
  name: 'postgres',
  title: 'HTTP ingest on PostgreSQL vs SQLite, and two servers on one database vs one',
  phases: { loom: loomServer },
  run,
});
