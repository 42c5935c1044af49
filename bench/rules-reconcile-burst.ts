/**
 * RECONCILE's dispatch queue under a 4× burst over steady load. A reference
 * loom (createReferenceLoom, SQLite in a temp dir, durability full, auth off,
 * silent logger, `rules: {reconcileConcurrency: 4}`) gets an extra plugin
 * (dependencies ['rules']) that registers, through the AdapterRegistry, an
 * adapter for did:sync:agent:bench-sink whose deliver takes LATENCY_MS
 * (a timer: simulated delivery latency), and one routing rule
 * (POST /v1/config/routing_rule) sending every bench record to it. Records go
 * in through the ingestor as API writes (caller local, via api) at a paced
 * rate; every 10 ms the bench samples the Dispatcher's `stats()`
 * (queue_depth, in_flight) and the backlog (records accepted but not yet
 * delivered: queued, in flight, or not yet read by RECONCILE).
 *
 * Capacity: 4 slots ÷ LATENCY_MS is 800 dispatches/s on paper, but a slot
 * also writes the dispatch record (a group commit with an fdatasync) before
 * delivering, so the bench first measures the real capacity C on a separate
 * loom (a backlog of records dispatched flat out; delivered/s) and uses
 * min(C, 800/s).
 *
 * Scenario A (gated): steady at 20% of C, then 4× that (80% of C: a burst
 * the 4 slots can absorb), then steady again. Scenario B (information): the
 * same shape from 60% of C, so the burst is 240% of C and no number of
 * dispatch slots this size can keep up: the queue is expected to fill to its
 * capacity (256) and back-pressure to hold RECONCILE; the point is that it
 * stays bounded, in-flight never exceeds 4 and every record is still
 * delivered once the burst passes (RECONCILE re-reads from the store).
 *
 * Reported: per phase the maximum sampled queue depth (and the Dispatcher's
 * own high-water mark, exact, for scenario A), max in flight (must be ≤ 4,
 * from the Dispatcher and counted independently in the adapter), whether
 * every record was delivered exactly once, and scenario A's burst maximum
 * against the reference system's (under 20). Queue depth is a count, not a
 * time; the ratio printed is burst ÷ steady maximum in the same run.
 */
import 'reflect-metadata';
import { LOCAL } from '../core/access/caller.js';
import type { IngestContext } from '../core/access/ingest-gate.js';
import { createReferenceLoom } from '../server/reference-loom.js';
import { resolve } from '../core/di/token.js';
import { silentLogger } from '../core/plugin/logger.js';
import { definePlugin } from '../core/plugin/plugin.js';
import type { Loom } from '../core/server/create-loom.js';
import { AdapterRegistryToken, DispatcherToken, type Dispatch, type DispatchAdapter, type Dispatcher } from '../plugins/rules/index.js';
import { fmt, log, main, makeTempDir, round, SCALE, type Check } from './support/harness.js';
import { actorDid, threadId } from './support/records.js';

const CONCURRENCY = 4;
const LATENCY_MS = 5;
const NOMINAL_CAPACITY = (CONCURRENCY * 1000) / LATENCY_MS;
const SINK = 'did:sync:agent:bench-sink';
const SAMPLE_MS = 10;
const REFERENCE_MAX_DEPTH = 20;
const QUEUE_CAPACITY = 256;
/** Phase lengths (s); short enough that the whole benchmark stays under ~30 s. */
const STEADY_S = Math.max(1, round(3 * SCALE, 1));
const BURST_S = Math.max(1, round(3 * SCALE, 1));
const B_STEADY_S = Math.max(1, round(1.5 * SCALE, 1));
const B_BURST_S = 1;
const CALIBRATION_RECORDS = Math.max(300, Math.round(1200 * Math.min(1, SCALE)));
const DRAIN_TIMEOUT_MS = 20_000;
const API_WRITE: IngestContext = Object.freeze({ caller: LOCAL, via: 'api' });

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** The adapter's side of the story: what it was handed, and how many at once. */
class Sink {
  dispatcher: Dispatcher | null = null;
  readonly delivered = new Set<string>();
  deliveries = 0;
  inFlight = 0;
  maxInFlight = 0;
  firstDeliveryAt = 0;
  lastDeliveryAt = 0;

  readonly adapter: DispatchAdapter = {
    name: 'bench-sink',
    description: `Benchmark sink: each delivery takes ${LATENCY_MS} ms.`,
    accepts: (target) => target === SINK,
    deliver: async (dispatch: Dispatch) => {
      this.inFlight++;
      this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
      if (this.firstDeliveryAt === 0) this.firstDeliveryAt = performance.now();
      try {
        await sleep(LATENCY_MS);
      } finally {
        this.inFlight--;
      }
      this.deliveries++;
      if (dispatch.source !== null) this.delivered.add(dispatch.source);
      this.lastDeliveryAt = performance.now();
    },
  };

  plugin() {
    return definePlugin({
      name: 'bench-sink',
      version: '1.0.0',
      dependencies: ['rules'],
      register: (scope) => {
        resolve(scope.container, AdapterRegistryToken).register(this.adapter, 'bench-sink');
        this.dispatcher = resolve(scope.container, DispatcherToken);
      },
    });
  }
}

interface Bench {
  readonly loom: Loom;
  readonly sink: Sink;
  readonly url: string;
  /** Ids of records accepted (stored), by scenario. */
  accepted: string[];
  failed: number;
  counter: number;
}

async function startLoom(label: string): Promise<Bench> {
  const sink = new Sink();
  const loom = await createReferenceLoom({
    dataDir: makeTempDir(`reconcile-${label}`),
    port: 0,
    logger: silentLogger,
    storage: 'sqlite',
    durability: 'full',
    auth: { required: false },
    rules: { reconcileConcurrency: CONCURRENCY },
    plugins: [sink.plugin()],
  });
  const url = await loom.start();
  const response = await fetch(url + '/v1/config/routing_rule', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'bench-to-sink', expression: 'has(record.body.kind) && record.body.kind == "bench.burst"', target: SINK, priority: 10 }),
  });
  if (response.status !== 201) throw new Error(`POST /v1/config/routing_rule answered ${response.status}: ${(await response.text()).slice(0, 400)}`);
  await response.arrayBuffer();
  if (!sink.dispatcher) throw new Error('the bench plugin did not get the Dispatcher');
  return { loom, sink, url, accepted: [], failed: 0, counter: 0 };
}

/** One API write of a routed record; does not wait for it. */
function issue(bench: Bench, into: string[]): Promise<void> {
  const n = bench.counter++;
  return bench.loom.engine.ingestor
    .ingest(API_WRITE, {
      parents: [],
      thread: threadId(n % 64),
      actor: actorDid(`burst-${n % 16}`),
      act: 'DO',
      body: { kind: 'bench.burst', n, summary: `work item ${n}` },
      clock: n,
      data_type: 'SCALAR',
      judged_by: null,
    })
    .then(
      ({ stored }) => {
        into.push(stored.record.id);
        bench.accepted.push(stored.record.id);
      },
      () => {
        bench.failed++;
      },
    );
}

/** Issues records at `rate` per second for `seconds`, evenly paced (checked every ~1 ms). */
async function drive(bench: Bench, rate: number, seconds: number, into: string[], inflight: Promise<void>[]): Promise<{ issued: number; seconds: number }> {
  const start = performance.now();
  let issued = 0;
  for (;;) {
    const elapsed = performance.now() - start;
    if (elapsed >= seconds * 1000) break;
    const due = Math.floor((rate * elapsed) / 1000);
    while (issued < due) {
      inflight.push(issue(bench, into));
      issued++;
    }
    await sleep(1);
  }
  return { issued, seconds: (performance.now() - start) / 1000 };
}

interface Sample {
  readonly phase: string;
  readonly depth: number;
  readonly inFlight: number;
  readonly backlog: number;
}

/** Samples the dispatcher every SAMPLE_MS, tagged with the current phase. */
function sampler(bench: Bench) {
  const samples: Sample[] = [];
  let phase = 'idle';
  const timer = setInterval(() => {
    const s = bench.sink.dispatcher!.stats();
    samples.push({ phase, depth: s.queue_depth, inFlight: s.in_flight, backlog: bench.accepted.length - bench.sink.delivered.size });
  }, SAMPLE_MS);
  return {
    samples,
    set phase(name: string) {
      phase = name;
    },
    stop: () => clearInterval(timer),
  };
}

async function drain(bench: Bench, ids: readonly string[], timeoutMs: number): Promise<{ drained: boolean; ms: number }> {
  const start = performance.now();
  while (performance.now() - start < timeoutMs) {
    if (ids.every((id) => bench.sink.delivered.has(id)) && bench.sink.dispatcher!.stats().queue_depth === 0 && bench.sink.inFlight === 0) return { drained: true, ms: performance.now() - start };
    await sleep(20);
  }
  return { drained: false, ms: performance.now() - start };
}

/** Delivered/s with a backlog of CALIBRATION_RECORDS on a fresh loom: the slots' real capacity. */
async function calibrate(): Promise<{ capacity: number; slotMs: number; seconds: number }> {
  const bench = await startLoom('calibration');
  try {
    const ids: string[] = [];
    const inflight: Promise<void>[] = [];
    for (let i = 0; i < CALIBRATION_RECORDS; i++) inflight.push(issue(bench, ids));
    await Promise.all(inflight);
    const { drained } = await drain(bench, ids, 30_000);
    if (!drained) throw new Error(`calibration: ${bench.sink.delivered.size} of ${ids.length} delivered within 30 s`);
    const seconds = (bench.sink.lastDeliveryAt - bench.sink.firstDeliveryAt) / 1000;
    const capacity = (bench.sink.deliveries - 1) / seconds;
    return { capacity, slotMs: (CONCURRENCY * 1000) / capacity, seconds };
  } finally {
    await bench.loom.stop();
  }
}

interface PhaseFigures {
  readonly phase: string;
  readonly target_rate: number;
  readonly achieved_rate: number;
  readonly seconds: number;
  readonly samples: number;
  readonly max_depth: number;
  readonly mean_depth: number;
  readonly max_in_flight_sampled: number;
  readonly max_backlog: number;
}

function phaseFigures(samples: readonly Sample[], phase: string, rate: number, run: { issued: number; seconds: number }): PhaseFigures {
  const mine = samples.filter((s) => s.phase === phase);
  return {
    phase,
    target_rate: round(rate, 1),
    achieved_rate: round(run.issued / run.seconds, 1),
    seconds: round(run.seconds, 2),
    samples: mine.length,
    max_depth: Math.max(0, ...mine.map((s) => s.depth)),
    mean_depth: round(mine.reduce((a, s) => a + s.depth, 0) / Math.max(1, mine.length), 2),
    max_in_flight_sampled: Math.max(0, ...mine.map((s) => s.inFlight)),
    max_backlog: Math.max(0, ...mine.map((s) => s.backlog)),
  };
}

function describePhase(p: PhaseFigures): string {
  return `${p.phase.padEnd(10)} ${fmt(p.target_rate).padStart(5)}/s target, ${fmt(p.achieved_rate).padStart(5)}/s issued over ${p.seconds} s; queue depth max ${String(p.max_depth).padStart(3)} (mean ${p.mean_depth}), in flight max ${p.max_in_flight_sampled}, backlog max ${p.max_backlog} (${p.samples} samples)`;
}

/** steady → 4× burst → steady at `base` records/s, then waits for every record to be delivered. */
async function scenario(bench: Bench, name: string, base: number, steadyS: number, burstS: number) {
  const ids: string[] = [];
  const inflight: Promise<void>[] = [];
  const failedBefore = bench.failed;
  const deliveriesBefore = bench.sink.deliveries;
  const sample = sampler(bench);
  const phases: PhaseFigures[] = [];
  const plan = [
    { phase: `${name}:steady`, rate: base, seconds: steadyS },
    { phase: `${name}:burst`, rate: base * 4, seconds: burstS },
    { phase: `${name}:steady2`, rate: base, seconds: steadyS },
  ];
  const runs: Array<{ issued: number; seconds: number }> = [];
  for (const step of plan) {
    sample.phase = step.phase;
    runs.push(await drive(bench, step.rate, step.seconds, ids, inflight));
  }
  sample.phase = `${name}:drain`;
  await Promise.all(inflight);
  const drain_ = await drain(bench, ids, DRAIN_TIMEOUT_MS);
  sample.stop();
  plan.forEach((step, i) => phases.push(phaseFigures(sample.samples, step.phase, step.rate, runs[i]!)));
  const drainSamples = sample.samples.filter((s) => s.phase === `${name}:drain`);
  const stats = bench.sink.dispatcher!.stats();
  const missing = ids.filter((id) => !bench.sink.delivered.has(id)).length;
  return {
    phases,
    issued: runs.reduce((a, r) => a + r.issued, 0),
    accepted: ids.length,
    failed: bench.failed - failedBefore,
    delivered: ids.length - missing,
    deliveries: bench.sink.deliveries - deliveriesBefore,
    missing,
    drained: drain_.drained,
    drain_ms: Math.round(drain_.ms),
    drain_max_depth: Math.max(0, ...drainSamples.map((s) => s.depth)),
    dispatcher: stats,
  };
}

async function run() {
  log(`    ${CONCURRENCY} dispatch slots, delivery ${LATENCY_MS} ms (nominal ${fmt(NOMINAL_CAPACITY)} dispatches/s), queue capacity ${QUEUE_CAPACITY}; sqlite, durability full; samples every ${SAMPLE_MS} ms`);
  const started = performance.now();
  const cal = await calibrate();
  const capacity = Math.min(cal.capacity, NOMINAL_CAPACITY);
  log(`    calibration: ${CALIBRATION_RECORDS} records dispatched flat out at ${fmt(cal.capacity)} dispatches/s (${cal.slotMs.toFixed(2)} ms per slot: dispatch-record write + ${LATENCY_MS} ms delivery); capacity used C = ${fmt(capacity)}/s`);

  const bench = await startLoom('burst');
  try {
    const aBase = 0.2 * capacity;
    const a = await scenario(bench, 'A', aBase, STEADY_S, BURST_S);
    const aDispatcherHighWater = a.dispatcher.max_queue_depth;
    const aMaxInFlight = Math.max(a.dispatcher.max_in_flight, bench.sink.maxInFlight);
    log(`    scenario A: steady ${fmt(aBase)}/s (20% of C), burst ${fmt(aBase * 4)}/s (80% of C)`);
    for (const p of a.phases) log(`      ${describePhase(p)}`);
    log(
      `      accepted ${fmt(a.accepted)} of ${fmt(a.issued)} issued (${a.failed} refused), delivered ${fmt(a.delivered)} (${fmt(a.deliveries)} deliveries), missing ${a.missing}; drained in ${a.drain_ms} ms; ` +
        `dispatcher high-water queue ${aDispatcherHighWater}, max in flight ${a.dispatcher.max_in_flight} (adapter saw ${bench.sink.maxInFlight})`,
    );

    const bBase = 0.6 * capacity;
    const b = await scenario(bench, 'B', bBase, B_STEADY_S, B_BURST_S);
    const bMaxInFlight = Math.max(b.dispatcher.max_in_flight, bench.sink.maxInFlight);
    log(`    scenario B (information): steady ${fmt(bBase)}/s (60% of C), burst ${fmt(bBase * 4)}/s (240% of C: beyond what ${CONCURRENCY} slots can deliver)`);
    for (const p of b.phases) log(`      ${describePhase(p)}`);
    log(
      `      accepted ${fmt(b.accepted)} of ${fmt(b.issued)} issued (${b.failed} refused), delivered ${fmt(b.delivered)} (${fmt(b.deliveries)} deliveries), missing ${b.missing}; drained ${b.drained ? `in ${b.drain_ms} ms after the load` : `NOT within ${DRAIN_TIMEOUT_MS} ms`} (queue max ${b.drain_max_depth} meanwhile); ` +
        `dispatcher high-water queue ${b.dispatcher.max_queue_depth}, max in flight ${b.dispatcher.max_in_flight} (adapter saw ${bench.sink.maxInFlight})`,
    );

    const [aSteady, aBurst, aSteady2] = a.phases as [PhaseFigures, PhaseFigures, PhaseFigures];
    const steadyMax = Math.max(aSteady.max_depth, aSteady2.max_depth);
    const burstMax = aBurst.max_depth;
    const bMax = Math.max(...b.phases.map((p) => p.max_depth), b.drain_max_depth);
    log(`    RESULT scenario A: steady-state max queue depth ${steadyMax}, burst max ${burstMax} (burst ÷ steady ${steadyMax > 0 ? (burstMax / steadyMax).toFixed(2) : 'n/a: the steady maximum is 0'}); max in flight ${aMaxInFlight} (≤ ${CONCURRENCY}); all dispatched: ${a.missing === 0 && a.drained ? 'yes' : 'NO'}`);
    log(`    REFERENCE: the reference system stayed under ${REFERENCE_MAX_DEPTH} during the burst; here ${burstMax} sampled (${aDispatcherHighWater} high-water over all of scenario A): ${aDispatcherHighWater < REFERENCE_MAX_DEPTH ? 'also under' : 'NOT under'} ${REFERENCE_MAX_DEPTH}`);
    log(`    total ${((performance.now() - started) / 1000).toFixed(1)} s`);

    const checks: Check[] = [
      {
        label: `scenario A (steady 20% of C, burst 4× = 80% of C): burst max queue depth under the reference system's ${REFERENCE_MAX_DEPTH}`,
        ratio: null,
        target: `< ${REFERENCE_MAX_DEPTH}`,
        pass: aDispatcherHighWater < REFERENCE_MAX_DEPTH,
        detail: `burst max ${burstMax} sampled, steady max ${steadyMax}, dispatcher high-water over scenario A ${aDispatcherHighWater}; rates ${fmt(aBase)}/${fmt(aBase * 4)}/s with C = ${fmt(capacity)}/s`,
      },
      {
        label: `max in flight ≤ reconcileConcurrency (${CONCURRENCY}), both scenarios (dispatcher and adapter count)`,
        ratio: null,
        target: `≤ ${CONCURRENCY}`,
        pass: aMaxInFlight <= CONCURRENCY && bMaxInFlight <= CONCURRENCY,
        detail: `dispatcher ${b.dispatcher.max_in_flight}, adapter ${bench.sink.maxInFlight}`,
      },
      {
        label: 'scenario A: every record accepted and delivered exactly once',
        ratio: null,
        target: 'missing 0, deliveries = records',
        pass: a.failed === 0 && a.missing === 0 && a.drained && a.deliveries === a.accepted,
        detail: `${a.accepted} accepted, ${a.delivered} delivered, ${a.deliveries} deliveries, ${a.failed} refused`,
      },
      {
        label: `scenario B (burst 240% of C, information): queue bounded by its capacity (${QUEUE_CAPACITY}) and every record delivered once after the burst`,
        ratio: null,
        target: `≤ ${QUEUE_CAPACITY}, missing 0`,
        pass: b.dispatcher.max_queue_depth <= QUEUE_CAPACITY && b.failed === 0 && b.missing === 0 && b.drained && b.deliveries === b.accepted,
        detail: `queue max ${bMax} sampled (high-water ${b.dispatcher.max_queue_depth}); ${b.accepted} accepted, ${b.delivered} delivered, ${b.deliveries} deliveries; drained ${b.drain_ms} ms after the load`,
      },
    ];
    return {
      figures: {
        concurrency: CONCURRENCY,
        latency_ms: LATENCY_MS,
        nominal_capacity_per_s: NOMINAL_CAPACITY,
        calibrated_capacity_per_s: round(cal.capacity, 1),
        slot_ms: round(cal.slotMs, 2),
        capacity_used_per_s: round(capacity, 1),
        scenario_a: { ...a, dispatcher_high_water: aDispatcherHighWater, steady_max_depth: steadyMax, burst_max_depth: burstMax, max_in_flight: aMaxInFlight },
        scenario_b: { ...b, max_depth: bMax, max_in_flight: bMaxInFlight },
        reference_max_depth: REFERENCE_MAX_DEPTH,
      },
      checks,
      notes: [
        `C is measured in this run (dispatches/s with a full queue); 4 × ${LATENCY_MS} ms alone would give ${NOMINAL_CAPACITY}/s, the dispatch-record write before each delivery lowers it.`,
        'a 4× burst over 60% load is 240% of what the slots deliver, so scenario B fills the queue to its capacity by construction; it is reported for boundedness and loss, not against the reference figure.',
      ],
    };
  } finally {
    await bench.loom.stop();
  }
}

main(import.meta.url, {
  name: 'rules-reconcile-burst',
  title: 'RECONCILE dispatch queue depth during a 4× burst over steady load (4 slots, 5 ms deliveries)',
  run,
});
