/**
 * HTTP ingest with auth on ÷ auth off: req/s of POST /v1/records on the
 * reference server (createReferenceLoom, SQLite, durability full, silent
 * logger) under 64 connections, once with the auth plugin enforcing bearer
 * tokens (`auth: { required: true }`, every request carrying
 * `Authorization: Bearer loom_prod_sa_bench_<secret>` of an admin service
 * account) and once with enforcement off (`auth: { required: false }`, no
 * header: requests run as the local caller). Same bodies, connections,
 * durations and load generator (autocannon) on both sides. Target ≥ 0.9: a
 * token check is one SHA-256 of the secret and an in-memory lookup.
 *
 * Every measurement is a fresh server process on a fresh data directory.
 * The two sides alternate over ROUNDS rounds (5; 3 below BENCH_SCALE 0.5),
 * the first side of each round swapped from one round to the next
 * (off on | on off | off on | …), and each side's median req/s is kept, so
 * drift in the machine's speed, or another process taking the cores for a
 * while, lands on both sides alike. For diagnosis it also prints each
 * round's on ÷ off (the two measurements of a round are adjacent in time)
 * and the servers' CPU time per stored record, which competing processes
 * disturb less than req/s.
 *
 * With auth on, the bench checks first that a POST without a bearer is
 * refused (401), then creates the account and its token the way a client
 * would: POST /v1/bootstrap/service-account with the SHA-256 of a secret it
 * minted (the plaintext never travels), scopes ['admin'] (which may write as
 * any actor DID, as the records here do).
 */
import { formatBearer, mintSecret, tokenIdOf } from '../plugins/auth/bearer-token.js';
import { fmt, log, main, median, ratioCheck, round, SCALE, type Check } from './support/harness.js';
import { all201, CONNECTIONS, describe, INGEST_PATH, loomServer, measureServer, nextBody, statusSummary, type Measured } from './support/http-load.js';

/** Odd, so each side's median is one measurement; 3 for a smoke run. */
const ROUNDS = SCALE >= 0.5 ? 5 : 3;
const DURATION_S = Math.max(3, Math.round(8 * SCALE));
const WARMUP_S = Math.max(1, Math.round(2 * SCALE));
const TARGET = 0.9;
const SERVICE_ACCOUNT = 'sa_bench';
const ENV_TAG = 'prod';

type Side = 'off' | 'on';

interface AuthSetup {
  /** Status of a POST /v1/records without a bearer (auth on: 401 expected). */
  readonly unauthenticatedStatus: number;
  /** Status of POST /v1/bootstrap/service-account (201 expected). */
  readonly bootstrapStatus: number;
  readonly authorizationBytes: number;
}

/** Auth on: probes that enforcement is on, bootstraps the bench's admin account and returns its Authorization header. */
async function bootstrapBearer(url: string, setups: AuthSetup[]): Promise<Record<string, string>> {
  const probe = await fetch(url + INGEST_PATH, { method: 'POST', headers: { 'content-type': 'application/json' }, body: nextBody() });
  await probe.arrayBuffer();
  const secret = mintSecret();
  const response = await fetch(url + '/v1/bootstrap/service-account', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ service_account_id: SERVICE_ACCOUNT, display_name: 'bench', scopes: ['admin'], with_token: { token_id: tokenIdOf(secret), env_tag: ENV_TAG } }),
  });
  const text = await response.text();
  if (response.status !== 201) throw new Error(`POST /v1/bootstrap/service-account answered ${response.status}: ${text.slice(0, 500)}`);
  const authorization = `Bearer ${formatBearer(ENV_TAG, SERVICE_ACCOUNT, secret)}`;
  setups.push({ unauthenticatedStatus: probe.status, bootstrapStatus: response.status, authorizationBytes: Buffer.byteLength(authorization) });
  return { authorization };
}

async function run() {
  log(
    `    ${CONNECTIONS} connections, ${WARMUP_S} s warm-up + ${DURATION_S} s measured per server, ${ROUNDS} rounds of auth off and on (alternating which goes first); ` +
      `each server its own process on a fresh data directory; sqlite, durability full; body ≈ ${Buffer.byteLength(nextBody())} bytes`,
  );
  const setups: AuthSetup[] = [];
  const measured: Record<Side, Measured[]> = { off: [], on: [] };
  const roundRatios: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    const order: Side[] = r % 2 === 0 ? ['off', 'on'] : ['on', 'off'];
    for (const side of order) {
      const m = await measureServer(
        import.meta.url,
        `auth ${side} #${r + 1}`,
        'loom',
        { durability: 'full', storage: 'sqlite', authRequired: side === 'on' },
        { warmupS: WARMUP_S, durationS: DURATION_S, ...(side === 'on' ? { prepare: (url: string) => bootstrapBearer(url, setups) } : {}) },
      );
      measured[side].push(m);
      log(`    round ${r + 1} auth ${side.padEnd(3)}: ${describe(m)}`);
    }
    const ratio = measured.on[r]!.reqPerSec / measured.off[r]!.reqPerSec;
    roundRatios.push(ratio);
    log(`    round ${r + 1} on ÷ off: ${ratio.toFixed(3)}`);
  }

  const reqOff = median(measured.off.map((m) => m.reqPerSec));
  const reqOn = median(measured.on.map((m) => m.reqPerSec));
  const p99Off = median(measured.off.map((m) => m.p99Ms));
  const p99On = median(measured.on.map((m) => m.p99Ms));
  const cpuOff = median(measured.off.map((m) => m.serverCpuUsPerRecord ?? NaN));
  const cpuOn = median(measured.on.map((m) => m.serverCpuUsPerRecord ?? NaN));
  const ratio = reqOn / reqOff;
  const roundRatioMedian = median(roundRatios);
  const authBytes = setups[0]?.authorizationBytes ?? 0;
  log(`    median auth off: ${fmt(reqOff)} req/s, p99 ${p99Off} ms, server CPU ${fmt(cpuOff)} µs/record`);
  log(`    median auth on:  ${fmt(reqOn)} req/s, p99 ${p99On} ms, server CPU ${fmt(cpuOn)} µs/record (requests carry a ${authBytes}-byte Authorization header)`);
  log(`    RATIO auth on ÷ auth off: req/s ${ratio.toFixed(3)} (target ≥ ${TARGET}); p99 ${(p99On / p99Off).toFixed(2)}× auth off's`);
  log(`    diagnostics: per-round on ÷ off ${roundRatios.map((x) => x.toFixed(3)).join(', ')} (median ${roundRatioMedian.toFixed(3)}); server CPU per record on ÷ off ${(cpuOn / cpuOff).toFixed(3)} (${fmt(cpuOn - cpuOff)} µs more per request with auth on)`);

  const enforced = setups.length === ROUNDS && setups.every((s) => s.unauthenticatedStatus === 401 && s.bootstrapStatus === 201);
  const everyRun = [...measured.off, ...measured.on];
  const checks: Check[] = [
    ratioCheck(
      `Loom POST /v1/records, auth on ÷ auth off, req/s (median of ${ROUNDS} rounds; sqlite, durability full)`,
      ratio,
      '>=',
      TARGET,
      `${fmt(reqOn)} vs ${fmt(reqOff)} req/s; rounds on ${measured.on.map((m) => fmt(m.reqPerSec)).join('/')}, off ${measured.off.map((m) => fmt(m.reqPerSec)).join('/')}; per-round ratio median ${roundRatioMedian.toFixed(3)}; p99 ${p99On} vs ${p99Off} ms; server CPU ${fmt(cpuOn)} vs ${fmt(cpuOff)} µs/record`,
    ),
    {
      label: 'auth on is enforced: POST without a bearer answered 401, bootstrap 201',
      ratio: null,
      target: '401 and 201 every round',
      pass: enforced,
      detail: setups.map((s, i) => `round ${i + 1}: unauthenticated ${s.unauthenticatedStatus}, bootstrap ${s.bootstrapStatus}`).join('; '),
    },
    {
      label: 'every answer 201, no errors (both sides, every round)',
      ratio: null,
      target: 'non-2xx = 0, errors = 0',
      pass: everyRun.every(all201),
      detail: everyRun.map((m) => `${m.label}: ${statusSummary(m)}`).join('; '),
    },
  ];
  return {
    figures: {
      connections: CONNECTIONS,
      duration_s: DURATION_S,
      warmup_s: WARMUP_S,
      rounds: ROUNDS,
      auth_off: measured.off,
      auth_on: measured.on,
      auth_setup: setups,
      median_req_per_sec_off: reqOff,
      median_req_per_sec_on: reqOn,
      median_p99_ms_off: p99Off,
      median_p99_ms_on: p99On,
      median_server_cpu_us_per_record_off: cpuOff,
      median_server_cpu_us_per_record_on: cpuOn,
      ratio: round(ratio, 3),
      round_ratios: roundRatios.map((x) => round(x, 3)),
      round_ratio_median: round(roundRatioMedian, 3),
      server_cpu_ratio: round(cpuOn / cpuOff, 3),
    },
    checks,
    childPeakRssMb: Math.max(...everyRun.map((m) => m.serverPeakRssMb)),
    notes: [
      "autocannon and the server share the machine's cores; req/s is autocannon's mean of per-second samples.",
      'auth-on servers hold 2 more records than they were sent (the bench account and its token, on the auth thread).',
    ],
  };
}

main(import.meta.url, {
  name: 'http-ingest-auth',
  title: 'HTTP POST /v1/records under 64 connections, bearer auth on vs off',
  phases: { loom: loomServer },
  run,
});
