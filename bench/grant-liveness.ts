/**
 * Grant liveness per request: req/s of an HTTP read (GET /v1/threads?limit=20)
 * by a bearer at the bottom of a 64-hop delegation chain ÷ the same read by a
 * bearer parented to no grant, on one reference server (createReferenceLoom,
 * SQLite, auth required, silent logger) in a child process, under 64
 * connections. Both bearers hold exactly `records:read` (so both reads go
 * through the same read restriction: the credentials thread is sealed from
 * non-admins), and the chain's bearer is checked for liveness on every request
 * (spec §5.4 rule 9). Target ≥ 0.9: the grant graph is folded incrementally,
 * with revocation cascaded and the chain's earliest expiry precomputed, so the
 * check is one map lookup, never a walk of the 64 ancestors.
 *
 * The chain is built the way a client builds it: an admin issues a root grant
 * to did:sync:agent:hop0 with a bearer (POST /v1/grants, with_token), and each
 * hop's bearer delegates the next hop from its own grant, 64 times. The two
 * sides alternate over ROUNDS rounds on the same server (first side swapped
 * from round to round), and each side's median req/s is kept.
 */
import autocannon from 'autocannon';
import { formatBearer, mintSecret, tokenIdOf } from '../plugins/auth/bearer-token.js';
import { fmt, forkChild, log, main, median, ratioCheck, round, SCALE, type Check } from './support/harness.js';
import { CONNECTIONS, loomServer } from './support/http-load.js';

const ROUNDS = SCALE >= 0.5 ? 5 : 3;
const DURATION_S = Math.max(3, Math.round(6 * SCALE));
const WARMUP_S = Math.max(1, Math.round(2 * SCALE));
const TARGET = 0.9;
const HOPS = 64;
const READ_PATH = '/v1/threads?limit=20';

type Side = 'chain' | 'plain';

async function call(url: string, method: string, path: string, token: string | null, body?: unknown): Promise<{ status: number; json: any }> {
  const response = await fetch(url + path, {
    method,
    headers: { ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...(token ? { authorization: `Bearer ${token}` } : {}) },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await response.text();
  return { status: response.status, json: text ? JSON.parse(text) : null };
}

async function expectStatus<T extends { status: number; json: any }>(answer: Promise<T>, status: number, what: string): Promise<T> {
  const settled = await answer;
  if (settled.status !== status) throw new Error(`${what} answered ${settled.status}: ${JSON.stringify(settled.json).slice(0, 400)}`);
  return settled;
}

/** Bootstraps an admin, builds the 64-hop chain and a plain records:read account; returns both bearers and the chain's depth. */
async function prepare(url: string): Promise<{ chain: string; plain: string; depth: number }> {
  const secret = mintSecret();
  await expectStatus(
    call(url, 'POST', '/v1/bootstrap/service-account', null, { service_account_id: 'sa_bench', display_name: 'bench', scopes: ['admin'], with_token: { token_id: tokenIdOf(secret), env_tag: 'prod' } }),
    201,
    'bootstrap',
  );
  const admin = formatBearer('prod', 'sa_bench', secret);
  const plain = await expectStatus(call(url, 'POST', '/v1/service-accounts', admin, { name: 'plain reader', scopes: ['records:read'] }), 201, 'create plain account');
  let holder = admin;
  let grant: any = null;
  for (let hop = 0; hop <= HOPS; hop++) {
    grant = (await expectStatus(call(url, 'POST', '/v1/grants', holder, { aud: `did:sync:agent:hop${hop}`, scopes: ['records:read'], with_token: true }), 201, `grant hop ${hop}`)).json;
    holder = grant.token;
  }
  return { chain: holder, plain: plain.json.api_key, depth: grant.chain.length };
}

async function read(url: string, token: string, durationS: number) {
  return autocannon({ url: url + READ_PATH, connections: CONNECTIONS, duration: durationS, timeout: 30, method: 'GET', headers: { authorization: `Bearer ${token}` } });
}

async function run() {
  log(`    ${CONNECTIONS} connections, GET ${READ_PATH}, ${WARMUP_S} s warm-up + ${DURATION_S} s measured per side, ${ROUNDS} rounds alternating; one server (sqlite, auth required) in a child process`);
  const child = forkChild(import.meta.url, ['--phase', 'loom'], 'server', { BENCH_PHASE_PAYLOAD: JSON.stringify({ durability: 'full', storage: 'sqlite', authRequired: true }) });
  try {
    const { url } = await child.message<{ kind: 'ready'; url: string }>('ready', 60_000);
    const started = Date.now();
    const { chain, plain, depth } = await prepare(url);
    log(`    chain built: the bench bearer's grant is ${depth} hops below its root (${Date.now() - started} ms to issue ${HOPS + 1} grants)`);
    const tokens: Record<Side, string> = { chain, plain };
    for (const side of ['plain', 'chain'] as const) await read(url, tokens[side], WARMUP_S);
    const results: Record<Side, Array<{ reqPerSec: number; p99: number; non2xx: number; errors: number }>> = { chain: [], plain: [] };
    const roundRatios: number[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      const order: Side[] = r % 2 === 0 ? ['plain', 'chain'] : ['chain', 'plain'];
      for (const side of order) {
        const result = await read(url, tokens[side], DURATION_S);
        results[side].push({ reqPerSec: Math.round(result.requests.average), p99: result.latency.p99, non2xx: result.non2xx, errors: result.errors + result.timeouts });
        log(`    round ${r + 1} ${side.padEnd(5)}: ${fmt(Math.round(result.requests.average)).padStart(7)} req/s, p99 ${result.latency.p99} ms, non-2xx ${result.non2xx}, errors ${result.errors}`);
      }
      roundRatios.push(results.chain[r]!.reqPerSec / results.plain[r]!.reqPerSec);
    }
    child.send({ kind: 'stop' });
    const { value } = await child.message<{ kind: 'phase-result'; value: { peakRssMb: number } }>('phase-result', 60_000);
    await child.exited;
    const chainRps = median(results.chain.map((m) => m.reqPerSec));
    const plainRps = median(results.plain.map((m) => m.reqPerSec));
    const ratio = chainRps / plainRps;
    log(`    median plain bearer:        ${fmt(plainRps)} req/s`);
    log(`    median 64-hop chain bearer: ${fmt(chainRps)} req/s`);
    log(`    RATIO chain ÷ plain: ${ratio.toFixed(3)} (target ≥ ${TARGET}); per round ${roundRatios.map((x) => x.toFixed(3)).join(', ')}`);
    const checks: Check[] = [
      ratioCheck(`GET ${READ_PATH}, 64-hop grant chain bearer ÷ bearer with no grant, req/s (median of ${ROUNDS} rounds)`, ratio, '>=', TARGET, `${fmt(chainRps)} vs ${fmt(plainRps)} req/s; per-round ${roundRatios.map((x) => x.toFixed(3)).join('/')}`),
      { label: `the chain bearer sits ${HOPS} hops below its root`, ratio: null, target: `${HOPS}`, pass: depth === HOPS, detail: `chain length ${depth}` },
      {
        label: 'every answer 2xx, no errors (both sides, every round)',
        ratio: null,
        target: 'non-2xx = 0, errors = 0',
        pass: [...results.chain, ...results.plain].every((m) => m.non2xx === 0 && m.errors === 0),
        detail: [...results.chain, ...results.plain].map((m) => `${m.non2xx}/${m.errors}`).join(' '),
      },
    ];
    return {
      figures: { connections: CONNECTIONS, rounds: ROUNDS, duration_s: DURATION_S, chain_depth: depth, chain: results.chain, plain: results.plain, ratio: round(ratio, 3), round_ratios: roundRatios.map((x) => round(x, 3)) },
      checks,
      childPeakRssMb: value.peakRssMb,
      notes: ['autocannon and the server share the machine\'s cores; both sides run against the same server, alternating.'],
    };
  } catch (error) {
    child.kill();
    throw error;
  }
}

main(import.meta.url, {
  name: 'grant-liveness',
  title: 'HTTP reads by a bearer 64 grant hops deep vs a bearer with no grant',
  phases: { loom: loomServer },
  run,
});
