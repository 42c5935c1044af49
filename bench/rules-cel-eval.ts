/**
 * One cached permission-rule evaluation, the way the permission gate runs it
 * (plugins/rules/permission-gate.ts): `cache.compile('permission', source)`
 * (a cache hit: the rule was compiled when it was configured) then
 * `evaluateCondition(program, permissionActivation(...))`, for a realistic
 * rule:
 *
 *   record.act == "DO" && "admin" in caller.scopes || ns.startsWith("acme")
 *
 * Every call gets a record and a caller object it has not seen before (fresh
 * copies made before the clock starts), so it pays what the gate pays once per
 * write: building the `record` and `caller` variables (the activation's
 * WeakMap caches miss). Inputs vary the outcome: acts cycle over the four
 * coordination acts, namespaces over default / acme/… / globex, callers with
 * and without `admin`, so both sides of each `&&`/`||` are taken.
 *
 * Baseline (same run, same inputs, interleaved sample by sample): a plain JS
 * closure doing the same comparisons on the same record, caller and
 * namespace (`record.act === 'DO' && caller.scopes.includes('admin') ||
 * ns.startsWith('acme')`). The gated ratio is CEL p50 ÷ closure p50 per call;
 * the issue's own figure is absolute (p50 < 5 µs; the reference system
 * claims < 50 µs), so the absolute percentiles are printed beside it.
 *
 * Latency: SAMPLES samples of BATCH calls each, timed with
 * process.hrtime.bigint(); a sample's time ÷ BATCH is one per-call latency,
 * and p50/p90/p99 are over those samples (so p99 is of 1000-call means, not
 * of single calls, which hrtime cannot resolve). Diagnostic (not gated): the
 * same with the activation built beforehand, i.e. what the 2nd…10th rule of
 * one write costs (the gate builds the activation once per write).
 */
import 'reflect-metadata';
import { credentialCaller, type Caller } from '../core/access/caller.js';
import { nodeSha256Hex } from '../core/engine/native-hash.js';
import { COORDINATION_ACTS } from '../core/records/acts.js';
import type { JsonObject } from '../core/records/json.js';
import { computeRecordId } from '../core/records/record-id.js';
import { makeRecord, type LoomRecord, type RecordFields } from '../core/records/record.js';
import { createEnvironments, permissionActivation } from '../plugins/rules/cel/cel-environments.js';
import { evaluateCondition, ExpressionCache } from '../plugins/rules/cel/expression-cache.js';
import { fmt, log, main, percentile, ratioCheck, round, scaled, type Check } from './support/harness.js';
import { actorDid, bodyFor, threadId } from './support/records.js';

const RULE = 'record.act == "DO" && "admin" in caller.scopes || ns.startsWith("acme")';
const BATCH = 1000;
const SAMPLES = scaled(2000, 200);
const WARMUP_SAMPLES = scaled(200, 50);
/** The goal, absolute; printed, not gated (benchmarks gate ratios only). */
const GOAL_P50_US = 5;
const REFERENCE_US = 50;
/** CEL ÷ plain closure, p50 per call: this suite's reading (see the note printed with the result). */
const TARGET = 100;
const NAMESPACES = ['default', 'acme/team-a', 'globex', 'acme', 'default', 'initech/ops'] as const;

interface Input {
  readonly record: LoomRecord;
  readonly namespace: string;
  readonly caller: Caller;
}

/** BATCH distinct templates (records, namespaces, callers) the samples copy from. */
function templates(): Input[] {
  const callers = [
    credentialCaller({ principal: actorDid('alice'), scopes: ['records:write', 'admin'], actors: [actorDid('alice')] }),
    credentialCaller({ principal: actorDid('bob'), scopes: ['records:read', 'records:write'], actors: [actorDid('bob')] }),
    credentialCaller({ principal: actorDid('carol'), scopes: ['records:write'], actors: [actorDid('carol')] }),
  ];
  const out: Input[] = [];
  for (let i = 0; i < BATCH; i++) {
    const namespace = NAMESPACES[i % NAMESPACES.length]!;
    const body: JsonObject = { ...bodyFor(i), ...(namespace === 'default' ? {} : { namespace }) };
    const fields: RecordFields = {
      parents: [],
      thread: threadId(i % 64),
      actor: actorDid(`writer-${i % 7}`),
      act: COORDINATION_ACTS[i % COORDINATION_ACTS.length]!,
      body,
      clock: i,
      data_type: 'SCALAR',
      judged_by: null,
    };
    out.push({ record: makeRecord(computeRecordId(fields, nodeSha256Hex), fields), namespace, caller: callers[(i >> 2) % callers.length]! });
  }
  return out;
}

/** Fresh record and caller objects (new identities, so the activation caches miss), as a new write brings. */
function freshCopies(inputs: readonly Input[]): Input[] {
  return inputs.map((input) => ({ record: { ...input.record }, namespace: input.namespace, caller: { ...input.caller } }));
}

async function run() {
  const cache = new ExpressionCache(createEnvironments());
  cache.compile('permission', RULE); // configured: compiled once, as the permission_rule topic does
  const now = new Date();
  const base = templates();

  // The measured bodies. Each returns how many calls held, so nothing is optimised away.
  const celGatePath = (inputs: readonly Input[]): number => {
    let held = 0;
    for (let i = 0; i < inputs.length; i++) {
      const { record, namespace, caller } = inputs[i]!;
      const program = cache.compile('permission', RULE);
      if (evaluateCondition(program, permissionActivation({ record, namespace, caller, via: 'api', now }))) held++;
    }
    return held;
  };
  const closure = (record: LoomRecord, caller: Caller, ns: string): boolean => (record.act === 'DO' && caller.scopes.includes('admin')) || ns.startsWith('acme');
  const plainJs = (inputs: readonly Input[]): number => {
    let held = 0;
    for (let i = 0; i < inputs.length; i++) {
      const { record, namespace, caller } = inputs[i]!;
      if (closure(record, caller, namespace)) held++;
    }
    return held;
  };
  const celEvalOnly = (activations: ReadonlyArray<Record<string, unknown>>): number => {
    let held = 0;
    for (let i = 0; i < activations.length; i++) if (evaluateCondition(cache.compile('permission', RULE), activations[i]!)) held++;
    return held;
  };

  // Correctness first: CEL and the closure agree on every input.
  let disagreements = 0;
  for (const input of base) {
    const cel = evaluateCondition(cache.compile('permission', RULE), permissionActivation({ ...input, via: 'api', now }));
    if (cel !== closure(input.record, input.caller, input.namespace)) disagreements++;
  }
  const expectedHeld = base.filter((input) => closure(input.record, input.caller, input.namespace)).length;

  const time = <T>(body: (x: T) => number, input: T): { us: number; held: number } => {
    const started = process.hrtime.bigint();
    const held = body(input);
    return { us: Number(process.hrtime.bigint() - started) / 1000 / BATCH, held };
  };

  log(`    rule: ${RULE}`);
  log(`    ${fmt(SAMPLES)} samples × ${fmt(BATCH)} calls per side (after ${fmt(WARMUP_SAMPLES)} warm-up samples), interleaved; ${expectedHeld} of every ${BATCH} inputs hold; CEL and the closure disagree on ${disagreements}`);
  const cel: number[] = [];
  const js: number[] = [];
  const evalOnly: number[] = [];
  let heldMismatch = 0;
  for (let s = -WARMUP_SAMPLES; s < SAMPLES; s++) {
    const gateInputs = freshCopies(base);
    const closureInputs = freshCopies(base);
    const prebuilt = freshCopies(base).map((input) => permissionActivation({ ...input, via: 'api', now }));
    // Alternate which side goes first, so drift and GC land on all sides alike.
    const order = s % 2 === 0 ? (['cel', 'js', 'eval'] as const) : (['eval', 'js', 'cel'] as const);
    for (const side of order) {
      const m = side === 'cel' ? time(celGatePath, gateInputs) : side === 'js' ? time(plainJs, closureInputs) : time(celEvalOnly, prebuilt);
      if (m.held !== expectedHeld) heldMismatch++;
      if (s < 0) continue;
      (side === 'cel' ? cel : side === 'js' ? js : evalOnly).push(m.us);
    }
  }

  const p = (values: number[], q: number) => percentile(values, q);
  const stats = (values: number[]) => ({ p50: round(p(values, 50), 3), p90: round(p(values, 90), 3), p99: round(p(values, 99), 3) });
  const celStats = stats(cel);
  const jsStats = stats(js);
  const evalStats = stats(evalOnly);
  const ratio = celStats.p50 / jsStats.p50;
  const cacheStats = cache.stats();
  const us = (x: number) => x.toFixed(3);
  log(`    CEL, gate path (cache hit + activation of a new write + evaluate): p50 ${us(celStats.p50)} µs  p90 ${us(celStats.p90)} µs  p99 ${us(celStats.p99)} µs per call`);
  log(`    CEL, activation already built (2nd…nth rule of a write):        p50 ${us(evalStats.p50)} µs  p90 ${us(evalStats.p90)} µs  p99 ${us(evalStats.p99)} µs per call`);
  log(`    plain JS closure, same comparisons (baseline):                   p50 ${us(jsStats.p50)} µs  p90 ${us(jsStats.p90)} µs  p99 ${us(jsStats.p99)} µs per call`);
  log(`    RATIO CEL gate path ÷ plain closure, p50: ${ratio.toFixed(1)} (target ≤ ${TARGET}); activation built ÷ closure ${(evalStats.p50 / jsStats.p50).toFixed(1)}`);
  log(`    ABSOLUTE p50 ${us(celStats.p50)} µs vs the issue's goal < ${GOAL_P50_US} µs (${celStats.p50 < GOAL_P50_US ? 'met' : 'not met'}) and the reference system's < ${REFERENCE_US} µs (${celStats.p50 < REFERENCE_US ? 'met' : 'not met'}); not gated (absolute)`);
  log(`    expression cache: ${fmt(cacheStats.hits)} hits, ${cacheStats.misses} miss(es), hit rate ${cacheStats.hit_rate_pct}%`);

  const checks: Check[] = [
    ratioCheck(
      'one cached permission-rule evaluation (gate path, new write) ÷ a plain JS closure doing the same comparisons, p50 per call',
      ratio,
      '<=',
      TARGET,
      `CEL p50 ${us(celStats.p50)} / p90 ${us(celStats.p90)} / p99 ${us(celStats.p99)} µs vs closure p50 ${us(jsStats.p50)} µs; absolute p50 goal < ${GOAL_P50_US} µs ${celStats.p50 < GOAL_P50_US ? 'met' : 'NOT met'} (reference < ${REFERENCE_US} µs)`,
    ),
    {
      label: 'CEL and the closure agree on every input, every sample',
      ratio: null,
      target: '0 disagreements',
      pass: disagreements === 0 && heldMismatch === 0,
      detail: `${disagreements} disagreements over ${BATCH} inputs; ${heldMismatch} samples with an unexpected count of holding calls; cache misses ${cacheStats.misses} (1 expected: the configuration)`,
    },
  ];
  return {
    figures: {
      rule: RULE,
      batch: BATCH,
      samples: SAMPLES,
      cel_gate_path_us: celStats,
      cel_activation_built_us: evalStats,
      plain_closure_us: jsStats,
      ratio_p50: round(ratio, 2),
      ratio_p50_activation_built: round(evalStats.p50 / jsStats.p50, 2),
      goal_p50_us: GOAL_P50_US,
      reference_us: REFERENCE_US,
      goal_met: celStats.p50 < GOAL_P50_US,
      expression_cache: cacheStats,
    },
    checks,
    notes: [
      `percentiles are over ${BATCH}-call sample means (hrtime cannot time one sub-µs call); p99 is of those means.`,
      `the ratio target (≤ ${TARGET}) is this suite's reading: the closure does only the three comparisons, so the ratio is the interpreter's overhead over native code; the issue names an absolute p50 (< ${GOAL_P50_US} µs), printed above.`,
    ],
  };
}

main(import.meta.url, {
  name: 'rules-cel-eval',
  title: 'one cached CEL permission-rule evaluation vs a plain JS closure, per-call latency',
  run,
});
