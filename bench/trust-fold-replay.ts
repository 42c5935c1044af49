/**
 * Trust fold replay vs ingest (issue: "replay 1M verdicts through the trust
 * fold ÷ ingesting them: goal ≥ 1", i.e. folding is never the bottleneck).
 *
 * One child process:
 *  1. Ingest: 1M verdicts (BENCH_SCALE) with their work through the real
 *     in-process pipeline (LoomEngine.ingestor.ingest: validation, hashing,
 *     group commit, SQLite, broadcast; durability `normal`, the faster and so
 *     the stricter baseline) from 64 concurrent producers. Each task is its
 *     own thread: an INTEND (assignee, domain), the worker's completion
 *     claim, 4 verdicts by 4 different reviewers (mostly accept, some reject,
 *     a few other words, a few with their own domain), and for 3% of
 *     verdicts a correction and for 1% a cancellation by the reviewer. The
 *     trust fold is not registered during ingest, so the ingest rate is the
 *     pipeline's alone.
 *  2. Replay: the same stored records, read back in pages of 5000 with
 *     `changesSince` (untimed), applied to a fresh trust state (timed: apply
 *     only), REPLAYS times; the median is kept. Diagnostic: one replay timed
 *     with the reads included, as the fold engine rebuilds at start.
 *
 * Gated: replay rate ÷ ingest rate (records/s each, the same records) ≥ 1.
 * Also printed: verdicts/s, the state's size (heap, checkpoint bytes) and
 * the fold's statistics, checked against what was generated.
 */
import { ENGINE_WRITE } from '../core/engine/ingest.js';
import { LoomEngine } from '../core/engine/loom-engine.js';
import type { Act } from '../core/records/acts.js';
import { parseRecordQuery } from '../storage/contract/query/parse-query.js';
import { SqliteRecordStore } from '../storage/sqlite/sqlite-record-store.js';
import { trustCheckpoint } from '../plugins/trust/trust-checkpoint.js';
import { applyTrust } from '../plugins/trust/trust-fold.js';
import { trustScores, trustSummary } from '../plugins/trust/trust-rows.js';
import { emptyTrustState, type TrustState } from '../plugins/trust/trust-state.js';
import { currentRssMb, fmt, log, main, makeTempDir, median, peakRssMb, ratioCheck, removeTempDir, round, runPhaseInChild, scaled, seconds, type Check } from './support/harness.js';
import { actorDid, idOf, threadId, type RawInput } from './support/records.js';
import { collectGarbage, unit, verdictWord } from './support/verdicts.js';

const VERDICTS = scaled(1_000_000, 4_000);
const VERDICTS_PER_TASK = 4;
const TASKS = Math.ceil(VERDICTS / VERDICTS_PER_TASK);
const PRODUCERS = 64;
const WORKERS = 500;
const REVIEWERS = 60;
const LEADS = 20;
const DOMAINS = ['code', 'docs', 'ops', 'design', 'security', 'data', 'infra', 'support'] as const;
const REPLAYS = 3;
const PAGE = 5000;
const TARGET = 1;
const PHASE_TIMEOUT_MS = 60 * 60_000;

interface Expected {
  verdicts: number;
  corrections: number;
  cancellations: number;
  unrecognized: number;
}

/** Task i's records in order: INTEND, claim, its verdicts, then their revisions. */
function taskRecords(i: number, expected: Expected): RawInput[] {
  const thread = threadId(i);
  const lead = actorDid(`lead-${i % LEADS}`);
  const worker = actorDid(`worker-${(i * 7919) % WORKERS}`);
  const domain = DOMAINS[i % DOMAINS.length]!;
  const make = (actor: string, act: Act, body: RawInput['body'], clock: number, parents: string[] = [], judged_by: string | null = null): RawInput =>
    ({ parents, thread, actor, act, body, clock, data_type: 'SCALAR', judged_by }) as unknown as RawInput;
  const intend = make(lead, 'INTEND', { task: true, alias: `T-${i}`, goal: `task ${i}: ${domain} work`, assigned_to: worker, domain, priority: 'medium' }, 0);
  const intendId = idOf(intend);
  const claim = make(worker, 'KNOW', { fulfills: intendId, summary: `finished task ${i}` }, 0, [intendId]);
  const claimId = idOf(claim);
  const out = [intend, claim];
  const revisions: RawInput[] = [];
  const count = Math.min(VERDICTS_PER_TASK, VERDICTS - i * VERDICTS_PER_TASK);
  for (let k = 0; k < count; k++) {
    const reviewer = actorDid(`reviewer-${(i + k * 13) % REVIEWERS}`);
    const w = verdictWord(unit(i, k));
    const body: RawInput['body'] = { fulfills: claimId, verdict: w, summary: `review ${k} of task ${i}` };
    if (unit(i, k + 10) < 0.1) body['domain'] = DOMAINS[(i + 3) % DOMAINS.length]!;
    const verdict = make(reviewer, 'KNOW', body, 0, [claimId], claimId);
    const verdictId = idOf(verdict);
    out.push(verdict);
    expected.verdicts++;
    if (w === 'needs_changes') expected.unrecognized++;
    const r = unit(i, k + 20);
    if (r < 0.03) {
      revisions.push(make(reviewer, 'KNOW', { topic: 'correction', supersedes: verdictId, verdict: w === 'reject' ? 'accept' : 'reject', reason: 'second look' }, 1, [verdictId]));
      expected.corrections++;
    } else if (r < 0.04) {
      revisions.push(make(reviewer, 'DO', { cancels: verdictId, reason: 'wrong task' }, 1, [verdictId]));
      expected.cancellations++;
    }
  }
  return [...out, ...revisions];
}

interface ReplayFigures {
  readonly records: number;
  readonly verdicts: number;
  readonly ingest_seconds: number;
  readonly ingest_rate: number;
  readonly ingest_applied_rate: number;
  readonly replay_seconds: number[];
  readonly replay_rate: number;
  readonly replay_verdicts_per_s: number;
  readonly replay_with_reads_seconds: number;
  readonly replay_with_reads_rate: number;
  readonly heap_state_mb: number;
  readonly rss_after_mb: number;
  readonly checkpoint_mb: number;
  readonly checkpoint_save_seconds: number;
  readonly rows: number;
  readonly stats: Record<string, number>;
  readonly expected: Expected;
  readonly peak_rss_mb: number;
}

async function replayPhase(): Promise<ReplayFigures> {
  const dir = makeTempDir('trust');
  const store = new SqliteRecordStore({ path: `${dir}/loom.sqlite`, durability: 'normal' });
  const engine = new LoomEngine({ store, onError: (error, context) => process.stderr.write(`engine error (${context}): ${String(error)}\n`) });
  await engine.start();
  const expected: Expected = { verdicts: 0, corrections: 0, cancellations: 0, unrecognized: 0 };
  let created = 0;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: PRODUCERS }, async (_, p) => {
      for (let i = p; i < TASKS; i += PRODUCERS) {
        for (const input of taskRecords(i, expected)) {
          const result = await engine.ingestor.ingest(ENGINE_WRITE, input);
          if (result.created) created++;
        }
      }
    }),
  );
  const ingestSeconds = seconds(start);
  await store.query(parseRecordQuery({ filter: {}, limit: 1 }));
  const appliedSeconds = seconds(start);
  const watermark = await store.watermark();
  if (created !== watermark) throw new Error(`ingested ${created} records, the store holds ${watermark}`);
  log(`    ingested ${fmt(created)} records (${fmt(expected.verdicts)} verdicts, ${fmt(TASKS)} tasks) in ${ingestSeconds.toFixed(1)} s: ${fmt(created / ingestSeconds)} rec/s`);

  const replayOnce = async (timeReads: boolean): Promise<{ seconds: number; state: TrustState }> => {
    let state = emptyTrustState();
    let applyMs = 0;
    const began = performance.now();
    for (let after = 0; after < watermark; ) {
      const page = await store.changesSince(after, PAGE);
      if (page.length === 0) break;
      const t = performance.now();
      for (let j = 0; j < page.length; j++) state = applyTrust(state, page[j]!);
      applyMs += performance.now() - t;
      after = page[page.length - 1]!.sequence;
    }
    return { seconds: timeReads ? seconds(began) : applyMs / 1000, state };
  };

  collectGarbage();
  const heapBefore = process.memoryUsage().heapUsed;
  const runs: number[] = [];
  let state: TrustState = emptyTrustState();
  for (let r = 0; r < REPLAYS; r++) {
    state = emptyTrustState(); // let the previous one go before building the next
    const replay = await replayOnce(false);
    runs.push(replay.seconds);
    state = replay.state;
    log(`    replay ${r + 1}: apply ${replay.seconds.toFixed(2)} s (${fmt(watermark / replay.seconds)} rec/s)`);
  }
  collectGarbage();
  const heapStateMb = (process.memoryUsage().heapUsed - heapBefore) / 2 ** 20;
  const withReads = await replayOnce(true);
  log(`    replay with the reads (as a rebuild at start): ${withReads.seconds.toFixed(2)} s (${fmt(watermark / withReads.seconds)} rec/s)`);
  const summary = trustSummary(state);
  const rows = trustScores(state, Date.now(), null).length;
  const saveStart = performance.now();
  const checkpointBytes = Buffer.byteLength(JSON.stringify(trustCheckpoint.save(state)));
  const saveSeconds = seconds(saveStart);
  const rssAfter = currentRssMb();
  await engine.stop();
  removeTempDir(dir);
  const replaySeconds = median(runs);
  return {
    records: watermark,
    verdicts: expected.verdicts,
    ingest_seconds: round(ingestSeconds, 2),
    ingest_rate: Math.round(watermark / ingestSeconds),
    ingest_applied_rate: Math.round(watermark / appliedSeconds),
    replay_seconds: runs.map((s) => round(s, 3)),
    replay_rate: Math.round(watermark / replaySeconds),
    replay_verdicts_per_s: Math.round(expected.verdicts / replaySeconds),
    replay_with_reads_seconds: round(withReads.seconds, 2),
    replay_with_reads_rate: Math.round(watermark / withReads.seconds),
    heap_state_mb: round(heapStateMb, 1),
    rss_after_mb: rssAfter,
    checkpoint_mb: round(checkpointBytes / 2 ** 20, 1),
    checkpoint_save_seconds: round(saveSeconds, 2),
    rows,
    stats: { ...summary },
    expected,
    peak_rss_mb: peakRssMb(),
  };
}

async function run() {
  log(`    ${fmt(VERDICTS)} verdicts over ${fmt(TASKS)} tasks (INTEND + claim + ${VERDICTS_PER_TASK} verdicts each, plus corrections and cancellations), ${PRODUCERS} producers, SQLite durability normal; replay apply-only ${REPLAYS}× (median)`);
  const { value: f } = await runPhaseInChild<ReplayFigures>(import.meta.url, 'replay', null, PHASE_TIMEOUT_MS);
  const ratio = f.replay_rate / f.ingest_rate;
  const s = f.stats;
  const consistent =
    s['verdicts'] === f.expected.verdicts &&
    s['corrections'] === f.expected.corrections &&
    s['cancellations'] === f.expected.cancellations &&
    s['unattributed'] === 0 &&
    s['self_judgments'] === 0 &&
    s['ignored_revisions'] === 0;
  log(`    ingest (pipeline, acknowledged):          ${fmt(f.ingest_rate).padStart(10)} rec/s  (${f.ingest_seconds} s; until applied to SQLite ${fmt(f.ingest_applied_rate)} rec/s)`);
  log(`    trust fold replay, apply only (median):  ${fmt(f.replay_rate).padStart(10)} rec/s  (${f.replay_seconds.join(' / ')} s; ${fmt(f.replay_verdicts_per_s)} verdicts/s)`);
  log(`    trust fold replay with the store reads:  ${fmt(f.replay_with_reads_rate).padStart(10)} rec/s  (${f.replay_with_reads_seconds} s)`);
  log(`    RATIO replay ÷ ingest = ${ratio.toFixed(2)} (target ≥ ${TARGET}); with reads ÷ ingest = ${(f.replay_with_reads_rate / f.ingest_rate).toFixed(2)}`);
  log(`    state: ${fmt(f.heap_state_mb, 1)} MB of heap, ${fmt((f.heap_state_mb * 2 ** 20) / f.verdicts)} bytes per verdict with its work (${fmt(s['work_items'] ?? 0)} work items, ${fmt(s['tracked_verdicts'] ?? 0)} verdicts, ${fmt(f.rows)} rows); checkpoint ${fmt(f.checkpoint_mb, 1)} MB JSON, saved in ${f.checkpoint_save_seconds} s; RSS ${fmt(f.rss_after_mb, 1)} MB`);
  log(`    fold statistics: ${JSON.stringify(s)}`);
  const checks: Check[] = [
    ratioCheck(
      `trust fold replay (apply only, from the stored records) ÷ pipeline ingest, records/s, ${fmt(f.verdicts)} verdicts`,
      ratio,
      '>=',
      TARGET,
      `${fmt(f.replay_rate)} vs ${fmt(f.ingest_rate)} rec/s over ${fmt(f.records)} records; with the store reads ${fmt(f.replay_with_reads_rate)} rec/s`,
    ),
    {
      label: 'the fold counted what was generated (verdicts, corrections, cancellations; nothing unattributed or ignored)',
      ratio: null,
      target: 'exact',
      pass: consistent,
      detail: `fold ${JSON.stringify({ verdicts: s['verdicts'], corrections: s['corrections'], cancellations: s['cancellations'], unattributed: s['unattributed'], ignored: s['ignored_revisions'] })} vs generated ${JSON.stringify(f.expected)}`,
    },
  ];
  return {
    figures: { ...f, ratio: round(ratio, 3) },
    checks,
    childPeakRssMb: f.peak_rss_mb,
    notes: [
      'The ingest side is the pipeline alone (the trust fold is not registered while ingesting); the replay side applies the stored records (StoredRecord, with createdAt) to a fresh state, the reads from SQLite untimed, as the issue asks; the with-reads figure is what a rebuild at start costs.',
      `Heap of the state: heapUsed after a full collection with the last state alive, minus the same before the first replay. The checkpoint is trustCheckpoint.save → JSON.stringify, as the fold engine writes it.`,
    ],
  };
}

main(import.meta.url, {
  name: 'trust-fold-replay',
  title: 'trust fold replay of stored verdicts vs ingesting them through the pipeline',
  phases: { replay: replayPhase },
  run,
});
