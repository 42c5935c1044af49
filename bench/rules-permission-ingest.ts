/**
 * HTTP ingest with 10 permission rules in force ÷ the same without: req/s of
 * POST /v1/records on the reference server (createReferenceLoom, SQLite,
 * durability full, auth off, silent logger, the shared server phase of
 * support/http-load.ts) under 64 connections, same bodies, connections,
 * durations and load generator (autocannon) on both sides. Target ≥ 0.8.
 *
 * Rules on: the bench configures the server the way a client would, over
 * POST /v1/config/permission_rule (10 rules) and POST /v1/config/permissions
 * {enabled: true}: 9 deny rules that no bench record matches (guarded with
 * has(), two scoped to acts and one to namespaces that still cover the bench
 * records) and, at the lowest priority, 1 allow rule
 * (`caller.kind != "anonymous"`), so every write evaluates all 10 in
 * priority order before it is admitted. It checks that a record one deny rule
 * matches is refused (403) and, after the load, from GET /v1/engine/health,
 * that the expression cache took 10 hits per stored record (the gate looks
 * each rule up once per evaluation) and nothing else was denied.
 * Rules off: the same server with no rule configured and permissions off
 * (the rules plugin is loaded either way; its gate returns at once).
 *
 * Every measurement is a fresh server process on a fresh data directory. The
 * two sides alternate over ROUNDS rounds (5; 3 below BENCH_SCALE 0.5), the
 * first side swapped every round, and each side's median req/s is kept. For
 * diagnosis it also prints each round's on ÷ off and the servers' CPU time
 * per stored record.
 */
import { forkChild, fmt, log, main, median, ratioCheck, round, SCALE, type Check } from './support/harness.js';
import { CONNECTIONS, INGEST_PATH, load, loomServer, nextBody, type ServerReport } from './support/http-load.js';

const ROUNDS = SCALE >= 0.5 ? 5 : 3;
const DURATION_S = Math.max(3, Math.round(6 * SCALE));
const WARMUP_S = Math.max(1, Math.round(2 * SCALE));
const TARGET = 0.8;

type Side = 'off' | 'on';

/** Nine deny rules no bench record matches, then one allow rule at the lowest priority. */
const RULES: ReadonlyArray<Record<string, unknown>> = [
  { name: 'deny-forbidden-kind-0', effect: 'deny', priority: 100, expression: 'has(record.body.kind) && record.body.kind == "forbidden-0"' },
  { name: 'deny-forbidden-kind-1', effect: 'deny', priority: 90, acts: ['INTEND', 'DO', 'KNOW', 'LEARN'], expression: 'has(record.body.kind) && record.body.kind == "forbidden-1"' },
  { name: 'deny-banned-actor', effect: 'deny', priority: 80, expression: 'record.actor.startsWith("did:sync:agent:banned-")' },
  { name: 'deny-quarantine-ns', effect: 'deny', priority: 70, namespaces: ['default', 'acme'], expression: 'ns.startsWith("quarantine") || record.thread == "th_quarantine"' },
  { name: 'deny-huge-duration', effect: 'deny', priority: 60, expression: 'has(record.body.duration_ms) && record.body.duration_ms > 86400000.0' },
  { name: 'deny-forbidden-tag', effect: 'deny', priority: 50, expression: 'has(record.body.tags) && "forbidden" in record.body.tags' },
  { name: 'deny-federated-non-admin', effect: 'deny', priority: 40, expression: 'via == "federation" && !caller.admin' },
  { name: 'deny-future-clock', effect: 'deny', priority: 30, expression: 'record.clock > 1000000000000' },
  { name: 'deny-retry-storm', effect: 'deny', priority: 20, acts: ['DO', 'KNOW', 'INTEND', 'LEARN'], expression: 'has(record.body.attempt) && record.body.attempt > 100.0 && record.act == "DO"' },
  { name: 'allow-known-callers', effect: 'allow', priority: -100, expression: 'caller.kind != "anonymous"' },
];

interface Health {
  readonly permissions: { enabled: boolean; rules: number; denials: number; evaluation_errors: number };
  readonly expression_cache: { hits: number; misses: number };
}

interface RulesSetup {
  readonly configStatuses: number[];
  /** Status of a write one deny rule matches (403 expected). */
  readonly deniedProbeStatus: number;
  /** One ordinary write alone: its status (201) and the expression-cache hits it took (10: every rule looked up and evaluated once). */
  readonly allowedProbeStatus: number;
  readonly allowedProbeLookups: number;
  readonly rulesInForce: number;
  readonly enabled: boolean;
}

interface Measured {
  readonly label: string;
  readonly reqPerSec: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly ok2xx: number;
  readonly non2xx: number;
  readonly errors: number;
  readonly timeouts: number;
  readonly statusCodes: Record<string, number>;
  readonly serverPeakRssMb: number;
  readonly stored: number | null;
  readonly serverCpuUsPerRecord: number | null;
  /**
   * Rules on: expression-cache hits during warm-up and load ÷ the 201s autocannon counted (a little over 10: requests autocannon
   * abandons when its time is up are still stored), denials and evaluation errors during them.
   */
  readonly cacheHitsPerWrite: number | null;
  readonly denialsDuringLoad: number | null;
  readonly evaluationErrors: number | null;
}

async function call(url: string, method: string, path: string, body?: unknown): Promise<{ status: number; json: any }> {
  const response = await fetch(url + path, { method, ...(body !== undefined ? { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) } : {}) });
  const text = await response.text();
  return { status: response.status, json: text ? JSON.parse(text) : null };
}

async function health(url: string): Promise<Health> {
  const answer = await call(url, 'GET', '/v1/engine/health');
  if (answer.status !== 200) throw new Error(`GET /v1/engine/health answered ${answer.status}: ${JSON.stringify(answer.json).slice(0, 400)}`);
  return answer.json as Health;
}

/** Configures the 10 rules and turns permissions on, as a client would; probes that a deny rule bites. */
async function configureRules(url: string): Promise<RulesSetup> {
  const configStatuses: number[] = [];
  for (const rule of RULES) {
    const answer = await call(url, 'POST', '/v1/config/permission_rule', rule);
    if (answer.status !== 201) throw new Error(`POST /v1/config/permission_rule ${String(rule['name'])} answered ${answer.status}: ${JSON.stringify(answer.json).slice(0, 400)}`);
    configStatuses.push(answer.status);
  }
  const enable = await call(url, 'POST', '/v1/config/permissions', { enabled: true });
  if (enable.status !== 201) throw new Error(`POST /v1/config/permissions answered ${enable.status}: ${JSON.stringify(enable.json).slice(0, 400)}`);
  configStatuses.push(enable.status);
  const forbidden = JSON.parse(nextBody()) as { body: Record<string, unknown> };
  forbidden.body['kind'] = 'forbidden-0';
  const probe = await call(url, 'POST', INGEST_PATH, forbidden);
  const state = await health(url);
  const allowed = await call(url, 'POST', INGEST_PATH, JSON.parse(nextBody()));
  const afterAllowed = await health(url);
  return {
    configStatuses,
    deniedProbeStatus: probe.status,
    allowedProbeStatus: allowed.status,
    allowedProbeLookups: afterAllowed.expression_cache.hits - state.expression_cache.hits,
    rulesInForce: state.permissions.rules,
    enabled: state.permissions.enabled,
  };
}

async function measure(side: Side, label: string, setups: RulesSetup[]): Promise<Measured> {
  const child = forkChild(import.meta.url, ['--phase', 'loom'], `server ${label}`, { BENCH_PHASE_PAYLOAD: JSON.stringify({ durability: 'full', storage: 'sqlite', authRequired: false }) });
  try {
    const { url } = await child.message<{ kind: 'ready'; url: string }>('ready', 60_000);
    if (side === 'on') setups.push(await configureRules(url));
    const before = side === 'on' ? await health(url) : null;
    const warm = await load(url, WARMUP_S);
    const result = await load(url, DURATION_S);
    const after = side === 'on' ? await health(url) : null;
    child.send({ kind: 'stop' });
    const { value } = await child.message<{ kind: 'phase-result'; value: ServerReport }>('phase-result', 60_000);
    if ((await child.exited) !== 0) throw new Error(`server ${label} exited non-zero`);
    const writes = warm['2xx'] + result['2xx'];
    return {
      label,
      reqPerSec: Math.round(result.requests.average),
      p50Ms: result.latency.p50,
      p99Ms: result.latency.p99,
      ok2xx: result['2xx'],
      non2xx: result.non2xx,
      errors: result.errors,
      timeouts: result.timeouts,
      statusCodes: Object.fromEntries(Object.entries(result.statusCodeStats).map(([code, s]) => [code, s.count])),
      serverPeakRssMb: value.peakRssMb,
      stored: value.stored ?? null,
      serverCpuUsPerRecord: value.cpuUsPerRecord ?? null,
      cacheHitsPerWrite: before && after ? round((after.expression_cache.hits - before.expression_cache.hits) / writes, 3) : null,
      denialsDuringLoad: before && after ? after.permissions.denials - before.permissions.denials : null,
      evaluationErrors: after ? after.permissions.evaluation_errors : null,
    };
  } catch (error) {
    child.kill();
    throw error;
  }
}

function describe(m: Measured): string {
  const codes = Object.entries(m.statusCodes).map(([code, n]) => `${code}×${fmt(n)}`).join(' ');
  const rules = m.cacheHitsPerWrite !== null ? `; ${m.cacheHitsPerWrite} rule lookups per write, ${m.denialsDuringLoad} denials, ${m.evaluationErrors} evaluation errors` : '';
  return `${fmt(m.reqPerSec).padStart(7)} req/s, latency p50 ${m.p50Ms} ms p99 ${m.p99Ms} ms; ${codes || 'no responses'}, non-2xx ${m.non2xx}, errors ${m.errors}; server CPU ${fmt(m.serverCpuUsPerRecord ?? NaN)} µs/record${rules}`;
}

async function run() {
  log(
    `    ${CONNECTIONS} connections, ${WARMUP_S} s warm-up + ${DURATION_S} s measured per server, ${ROUNDS} rounds of rules off and on (alternating which goes first); ` +
      `each server its own process on a fresh data directory; sqlite, durability full, auth off; body ≈ ${Buffer.byteLength(nextBody())} bytes; rules on = ${RULES.length - 1} deny + 1 allow (lowest priority)`,
  );
  const setups: RulesSetup[] = [];
  const measured: Record<Side, Measured[]> = { off: [], on: [] };
  const roundRatios: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    const order: Side[] = r % 2 === 0 ? ['off', 'on'] : ['on', 'off'];
    for (const side of order) {
      const m = await measure(side, `rules ${side} #${r + 1}`, setups);
      measured[side].push(m);
      log(`    round ${r + 1} rules ${side.padEnd(3)}: ${describe(m)}`);
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
  log(`    median rules off: ${fmt(reqOff)} req/s, p99 ${p99Off} ms, server CPU ${fmt(cpuOff)} µs/record`);
  log(`    median rules on:  ${fmt(reqOn)} req/s, p99 ${p99On} ms, server CPU ${fmt(cpuOn)} µs/record`);
  log(`    RATIO rules on ÷ rules off: req/s ${ratio.toFixed(3)} (target ≥ ${TARGET}); p99 ${(p99On / p99Off).toFixed(2)}× rules off's`);
  log(
    `    diagnostics: per-round on ÷ off ${roundRatios.map((x) => x.toFixed(3)).join(', ')} (median ${roundRatioMedian.toFixed(3)}); ` +
      `server CPU per record on ÷ off ${(cpuOn / cpuOff).toFixed(3)} (${fmt(cpuOn - cpuOff)} µs more per write with 10 rules, ${fmt((cpuOn - cpuOff) / RULES.length, 1)} µs per rule)`,
  );

  const everyRun = [...measured.off, ...measured.on];
  const all201 = (m: Measured) => m.non2xx === 0 && m.errors === 0 && m.timeouts === 0 && m.ok2xx > 0 && (m.statusCodes['201'] ?? 0) === m.ok2xx;
  const enforced = setups.length === ROUNDS && setups.every((s) => s.deniedProbeStatus === 403 && s.rulesInForce === RULES.length && s.enabled);
  const allEvaluated =
    setups.every((s) => s.allowedProbeStatus === 201 && s.allowedProbeLookups === RULES.length) &&
    measured.on.every((m) => m.cacheHitsPerWrite !== null && m.cacheHitsPerWrite >= RULES.length && m.cacheHitsPerWrite < RULES.length * 1.05 && m.denialsDuringLoad === 0 && m.evaluationErrors === 0);
  const checks: Check[] = [
    ratioCheck(
      `Loom POST /v1/records, 10 permission rules on ÷ off, req/s (median of ${ROUNDS} rounds; sqlite, durability full)`,
      ratio,
      '>=',
      TARGET,
      `${fmt(reqOn)} vs ${fmt(reqOff)} req/s; rounds on ${measured.on.map((m) => fmt(m.reqPerSec)).join('/')}, off ${measured.off.map((m) => fmt(m.reqPerSec)).join('/')}; per-round ratio median ${roundRatioMedian.toFixed(3)}; p99 ${p99On} vs ${p99Off} ms; server CPU ${fmt(cpuOn)} vs ${fmt(cpuOff)} µs/record`,
    ),
    {
      label: 'rules on are in force: 10 rules, permissions enabled, a write a deny rule matches answered 403',
      ratio: null,
      target: '10 rules, enabled, 403 every round',
      pass: enforced,
      detail: setups.map((s, i) => `round ${i + 1}: ${s.rulesInForce} rules, enabled ${s.enabled}, probe ${s.deniedProbeStatus}`).join('; '),
    },
    {
      label: 'every write evaluated all 10 rules (one write alone: 10 expression-cache hits; under load ≥ 10 per counted 201), none denied, no evaluation error',
      ratio: null,
      target: '10 lookups for one write; 10–10.5 per 201 under load; 0 denials, 0 errors',
      pass: allEvaluated,
      detail:
        setups.map((s, i) => `round ${i + 1} single write: ${s.allowedProbeStatus}, ${s.allowedProbeLookups} lookups`).join('; ') +
        '; ' +
        measured.on.map((m) => `${m.label}: ${m.cacheHitsPerWrite}/201, ${m.denialsDuringLoad} denials, ${m.evaluationErrors} errors`).join('; '),
    },
    {
      label: 'every answer 201, no errors (both sides, every round)',
      ratio: null,
      target: 'non-2xx = 0, errors = 0',
      pass: everyRun.every(all201),
      detail: everyRun.map((m) => `${m.label}: 2xx ${fmt(m.ok2xx)}, non-2xx ${m.non2xx}, errors ${m.errors}, timeouts ${m.timeouts}`).join('; '),
    },
  ];
  return {
    figures: {
      connections: CONNECTIONS,
      duration_s: DURATION_S,
      warmup_s: WARMUP_S,
      rounds: ROUNDS,
      rules: RULES,
      rules_off: measured.off,
      rules_on: measured.on,
      rules_setup: setups,
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
      'rules-on servers hold 12 records more than autocannon sent (10 rules and permissions on th_engine_config, and the single-write probe); the refused probe is not stored.',
    ],
  };
}

main(import.meta.url, {
  name: 'rules-permission-ingest',
  title: 'HTTP POST /v1/records under 64 connections, 10 permission rules in force vs none',
  phases: { loom: loomServer },
  run,
});
