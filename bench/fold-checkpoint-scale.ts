/**
 * A global fold's checkpoint at a size one JSON text cannot hold (issue
 * "Stateless servers", "fold state without a memory-sized string"): a trust
 * state of 10M verdicts (BENCH_SCALE) is saved the way the fold engine saves
 * it (core/engine/checkpoint-file.ts: the codec's pieces, saveChunks, written
 * as lines, synchronously, then fdatasync) and restored from the file.
 *
 * One child process with a large heap:
 *  1. builds the state by applying generated records straight to the fold
 *     (the trust fold's inputs, as trust-fold-replay generates them: per task
 *     an INTEND, a claim, 4 verdicts, and some corrections and cancellations;
 *     record ids are 64 hex characters like real ones, not hashes, to save time);
 *  2. saves it, with the process's peak RSS reset just before (Linux
 *     /proc/self/clear_refs), so the peak is the save's own;
 *  3. tries the previous format (one JSON.stringify of the whole) and reports
 *     whether V8 could build that string at all;
 *  4. drops the state, restores it from the file, and checks the restored
 *     fold answers as the original did (summary and every row's score).
 *
 * Gated: peak RSS during the save ÷ RSS holding the state before it ≤ 1.5.
 */
import { writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import type { Act } from '../core/records/acts.js';
import type { LoomRecord } from '../core/records/record.js';
import { chunked, readCheckpointFile, writeCheckpointFile } from '../core/engine/checkpoint-file.js';
import { trustCheckpoint } from '../plugins/trust/trust-checkpoint.js';
import { applyTrust } from '../plugins/trust/trust-fold.js';
import { trustScores, trustSummary } from '../plugins/trust/trust-rows.js';
import { emptyTrustState, type TrustState } from '../plugins/trust/trust-state.js';
import { currentRssMb, fmt, log, main, makeTempDir, peakRssMb, ratioCheck, removeTempDir, round, runPhaseInChild, scaled, seconds, type Check } from './support/harness.js';
import { actorDid, threadId } from './support/records.js';
import { collectGarbage, unit, verdictWord } from './support/verdicts.js';

const VERDICTS = scaled(10_000_000, 20_000);
const VERDICTS_PER_TASK = 4;
const TASKS = Math.ceil(VERDICTS / VERDICTS_PER_TASK);
const WORKERS = 500;
const REVIEWERS = 60;
const LEADS = 20;
const DOMAINS = ['code', 'docs', 'ops', 'design', 'security', 'data', 'infra', 'support'] as const;
const TARGET = 1.5;
const HEAP_MB = 20_000;

/** Resets VmHWM (peak RSS) to the current RSS, where the kernel allows it. */
function resetPeakRss(): boolean {
  try {
    writeFileSync('/proc/self/clear_refs', '5');
    return true;
  } catch {
    return false;
  }
}

let sequence = 0;
/** A record id like a real one (64 hex characters), unique per record. */
const nextId = () => (++sequence).toString(16).padStart(64, '0');

function applyTask(state: TrustState, i: number, at: number): TrustState {
  const thread = threadId(i);
  const lead = actorDid(`lead-${i % LEADS}`);
  const worker = actorDid(`worker-${(i * 7919) % WORKERS}`);
  const domain = DOMAINS[i % DOMAINS.length]!;
  const apply = (actor: string, act: Act, body: Record<string, unknown>, parents: string[] = [], judged_by: string | null = null): string => {
    const id = nextId();
    const record = { id, thread, actor, act, body, clock: 0, data_type: 'SCALAR', parents, judged_by } as unknown as LoomRecord;
    state = applyTrust(state, { sequence, record, createdAt: at });
    return id;
  };
  const intend = apply(lead, 'INTEND', { task: true, alias: `T-${i}`, goal: `task ${i}`, assigned_to: worker, domain, priority: 'medium' });
  const claim = apply(worker, 'KNOW', { fulfills: intend, summary: 'done' }, [intend]);
  const count = Math.min(VERDICTS_PER_TASK, VERDICTS - i * VERDICTS_PER_TASK);
  for (let k = 0; k < count; k++) {
    const reviewer = actorDid(`reviewer-${(i + k * 13) % REVIEWERS}`);
    const w = verdictWord(unit(i, k));
    const body: Record<string, unknown> = { fulfills: claim, verdict: w };
    if (unit(i, k + 10) < 0.1) body['domain'] = DOMAINS[(i + 3) % DOMAINS.length]!;
    const verdict = apply(reviewer, 'KNOW', body, [claim], claim);
    const r = unit(i, k + 20);
    if (r < 0.03) apply(reviewer, 'KNOW', { topic: 'correction', supersedes: verdict, verdict: w === 'reject' ? 'accept' : 'reject' }, [verdict]);
    else if (r < 0.04) apply(reviewer, 'DO', { cancels: verdict }, [verdict]);
  }
  return state;
}

/** What the fold answers, condensed: the summary and a hash of every row's score. */
function answers(state: TrustState, at: number): { summary: string; scores: string; rows: number } {
  const scores = trustScores(state, at, null);
  const hash = createHash('sha256');
  for (const score of scores) hash.update(JSON.stringify(score));
  return { summary: JSON.stringify(trustSummary(state)), scores: hash.digest('hex'), rows: scores.length };
}

interface Figures {
  readonly verdicts: number;
  readonly records: number;
  readonly build_seconds: number;
  readonly state_heap_mb: number;
  readonly rss_with_state_mb: number;
  readonly save_peak_rss_mb: number;
  readonly peak_reset: boolean;
  readonly save_seconds: number;
  readonly file_mb: number;
  readonly single_string: string;
  readonly restore_seconds: number;
  readonly restore_peak_rss_mb: number;
  readonly restored_equal: boolean;
  readonly rows: number;
}

async function scalePhase(): Promise<Figures> {
  const dir = makeTempDir('fold-checkpoint');
  try {
    collectGarbage();
    const heapBefore = process.memoryUsage().heapUsed;
    const began = performance.now();
    let state = emptyTrustState();
    const at = Date.now() - 86_400_000;
    for (let i = 0; i < TASKS; i++) state = applyTask(state, i, at + i);
    const buildSeconds = seconds(began);
    collectGarbage();
    const stateHeapMb = (process.memoryUsage().heapUsed - heapBefore) / 2 ** 20;
    const rssWithState = currentRssMb();
    const readAt = Date.now();
    const before = answers(state, readAt);
    log(`    built ${fmt(VERDICTS)} verdicts (${fmt(sequence)} records) in ${buildSeconds.toFixed(1)} s: ${fmt(stateHeapMb)} MB of heap, RSS ${fmt(rssWithState)} MB`);

    collectGarbage();
    const reset = resetPeakRss();
    const path = `${dir}/trust.ckpt`;
    const saveBegan = performance.now();
    const header = { fold: 'trust', version: trustCheckpoint.version, watermark: sequence, anchor: null, saved_at: new Date().toISOString() };
    const { bytes, durable } = writeCheckpointFile(path, header, chunked(trustCheckpoint.saveChunks!(state)));
    await durable;
    const saveSeconds = seconds(saveBegan);
    const savePeak = peakRssMb();
    log(`    saved ${fmt(bytes / 2 ** 20)} MB in ${saveSeconds.toFixed(1)} s; peak RSS during the save ${fmt(savePeak)} MB (reset ${reset ? 'before it' : 'not possible: the peak is the whole run'})`);

    let singleString: string;
    try {
      singleString = `${fmt(JSON.stringify(trustCheckpoint.save(state)).length / 2 ** 20)} MB string built`;
    } catch (error) {
      singleString = `failed: ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}`;
    }
    log(`    the previous format (one JSON.stringify of the whole state): ${singleString}`);

    state = emptyTrustState();
    collectGarbage();
    resetPeakRss();
    const restoreBegan = performance.now();
    const { state: saved } = await readCheckpointFile(path);
    const restored = trustCheckpoint.load(saved);
    const restoreSeconds = seconds(restoreBegan);
    const restorePeak = peakRssMb();
    const after = answers(restored, readAt);
    const equal = after.summary === before.summary && after.scores === before.scores && after.rows === before.rows;
    log(`    restored in ${restoreSeconds.toFixed(1)} s (peak RSS ${fmt(restorePeak)} MB); answers ${equal ? 'identical' : 'DIFFER'} (${fmt(after.rows)} rows)`);
    return {
      verdicts: VERDICTS,
      records: sequence,
      build_seconds: round(buildSeconds, 1),
      state_heap_mb: round(stateHeapMb, 0),
      rss_with_state_mb: rssWithState,
      save_peak_rss_mb: savePeak,
      peak_reset: reset,
      save_seconds: round(saveSeconds, 1),
      file_mb: round(bytes / 2 ** 20, 0),
      single_string: singleString,
      restore_seconds: round(restoreSeconds, 1),
      restore_peak_rss_mb: restorePeak,
      restored_equal: equal,
      rows: after.rows,
    };
  } finally {
    removeTempDir(dir);
  }
}

async function run() {
  log(`    ${fmt(VERDICTS)} verdicts over ${fmt(TASKS)} tasks applied straight to the trust fold, then checkpointed as the fold engine does and restored (child heap up to ${fmt(HEAP_MB)} MB)`);
  const { value: f, peakRssMb: childPeak } = await runPhaseInChild<Figures>(import.meta.url, 'scale', null, 60 * 60_000, { NODE_OPTIONS: `--max-old-space-size=${HEAP_MB}` });
  const ratio = f.save_peak_rss_mb / f.rss_with_state_mb;
  const checks: Check[] = [
    ratioCheck(
      `peak RSS during the save ÷ RSS holding the state, ${fmt(f.verdicts)} verdicts`,
      ratio,
      '<=',
      TARGET,
      `${fmt(f.save_peak_rss_mb)} MB vs ${fmt(f.rss_with_state_mb)} MB (state ${fmt(f.state_heap_mb)} MB of heap; peak ÷ heap of the state ${(f.save_peak_rss_mb / f.state_heap_mb).toFixed(2)}); file ${fmt(f.file_mb)} MB in ${f.save_seconds} s`,
    ),
    { label: 'the restored fold answers as the saved one (summary, every row\'s score)', ratio: null, target: 'exact', pass: f.restored_equal, detail: `${fmt(f.rows)} rows; restored in ${f.restore_seconds} s, peak RSS ${fmt(f.restore_peak_rss_mb)} MB` },
  ];
  return {
    figures: { ...f, ratio: round(ratio, 3) },
    checks,
    childPeakRssMb: childPeak,
    notes: [`The previous checkpoint format (one JSON text): ${f.single_string}.`, 'Record ids are generated (64 hex characters), not hashes: the fold keys on them the same way; trust-fold-replay measures the fold on real stored records.'],
  };
}

main(import.meta.url, {
  name: 'fold-checkpoint-scale',
  title: 'a 10M-verdict trust state checkpointed as JSON lines and restored',
  phases: { scale: scalePhase },
  run,
});
