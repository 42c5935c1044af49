/**
 * Runs the benchmarks one after another, each in its own child process (so
 * peak RSS is per benchmark), prints a summary table and writes every report
 * as JSON under bench/results/ (git-ignored).
 *
 *   node dist/bench/run-all.js                 # all
 *   node dist/bench/run-all.js read-scaling    # one (or several, by name)
 *   BENCH_SCALE=0.05 node dist/bench/run-all.js  # quick smoke run
 *
 * Exits non-zero only when a benchmark crashes (or times out), never for a
 * missed target.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, totalmem, type } from 'node:os';
import { fileURLToPath } from 'node:url';
import { forkChild, log, SCALE, type BenchReport } from './support/harness.js';

const BENCHMARKS = ['ingest-pipeline', 'read-scaling', 'indexed-query', 'http-ingest', 'http-ingest-auth', 'grant-liveness', 'rules-permission-ingest', 'rules-cel-eval', 'rules-reconcile-burst', 'trust-fold-replay', 'fold-scaling', 'data-plane', 'federation', 'postgres', 'search', 'batch-ingest', 'read-path', 'members', 'record-cost', 'work-loop', 'backup', 'fold-checkpoint-scale', 'data-plane-servers', 'fold-memory', 'peer-append', 'ingest-endurance'] as const;
type BenchName = (typeof BENCHMARKS)[number];

/** Per benchmark, before it is killed and counted as a crash. */
const TIMEOUT_MIN = Number(process.env['BENCH_TIMEOUT_MIN'] ?? 60);

interface Outcome {
  readonly name: BenchName;
  readonly report: BenchReport | null;
  readonly error: string | null;
  readonly seconds: number;
}

function parseArgs(argv: readonly string[]): BenchName[] {
  if (argv.includes('--help') || argv.includes('-h')) {
    log(`usage: node dist/bench/run-all.js [${BENCHMARKS.join(' | ')}]...\n       BENCH_SCALE=0.05 for a quick smoke run (default 1)`);
    process.exit(0);
  }
  const unknown = argv.filter((a) => !(BENCHMARKS as readonly string[]).includes(a));
  if (unknown.length > 0) {
    process.stderr.write(`unknown benchmark(s): ${unknown.join(', ')} (benchmarks: ${BENCHMARKS.join(', ')})\n`);
    process.exit(2);
  }
  return argv.length === 0 ? [...BENCHMARKS] : (argv as BenchName[]);
}

async function runOne(name: BenchName): Promise<Outcome> {
  const start = performance.now();
  const child = forkChild(new URL(`./${name}.js`, import.meta.url).href, [], name);
  try {
    const { report } = await child.message<{ kind: 'report'; report: BenchReport }>('report', TIMEOUT_MIN * 60_000);
    const code = await child.exited;
    if (code !== 0) throw new Error(`exited with code ${code} after reporting`);
    return { name, report, error: null, seconds: (performance.now() - start) / 1000 };
  } catch (error) {
    child.kill();
    await child.exited;
    return { name, report: null, error: error instanceof Error ? error.message : String(error), seconds: (performance.now() - start) / 1000 };
  }
}

function pad(text: string, width: number): string {
  return text.length >= width ? text : text + ' '.repeat(width - text.length);
}

function summary(outcomes: readonly Outcome[]): void {
  const rows: string[][] = [['benchmark', 'check', 'ratio', 'target', 'result']];
  for (const o of outcomes) {
    if (!o.report) {
      rows.push([o.name, `CRASHED: ${o.error}`, '', '', 'CRASH']);
      continue;
    }
    for (const c of o.report.checks) rows.push([o.name, c.label, c.ratio === null ? '-' : c.ratio.toFixed(3), c.target, c.pass ? 'PASS' : 'MISS']);
  }
  const widths = rows[0]!.map((_, i) => Math.min(i === 1 ? 90 : 40, Math.max(...rows.map((r) => r[i]!.length))));
  log(`\n=== summary (BENCH_SCALE=${SCALE})`);
  rows.forEach((r, i) => {
    log(r.map((cell, j) => pad(cell, widths[j]!)).join('  '));
    if (i === 0) log(widths.map((w) => '-'.repeat(w)).join('  '));
  });
  log('');
  for (const o of outcomes) {
    const rss = o.report ? `peak RSS ${o.report.peakRssMb} MB${o.report.childPeakRssMb !== null ? ` (largest child process ${o.report.childPeakRssMb} MB)` : ''}` : 'no report';
    log(`${pad(o.name, 16)} ${o.seconds.toFixed(0).padStart(5)} s   ${rss}`);
  }
}

function gitCommit(): string | null {
  try {
    return execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return null;
  }
}

function writeResults(names: readonly BenchName[], outcomes: readonly Outcome[], startedAt: Date): string {
  const dir = fileURLToPath(new URL('../../bench/results/', import.meta.url));
  mkdirSync(dir, { recursive: true });
  const stamp = startedAt.toISOString().replace(/[:.]/g, '-');
  const subset = names.length === BENCHMARKS.length ? 'all' : names.join('+');
  const file = `${dir}${stamp}-scale${SCALE}-${subset}.json`;
  const body = {
    startedAt: startedAt.toISOString(),
    scale: SCALE,
    machine: { node: process.version, os: type(), cpus: cpus().length, cpuModel: cpus()[0]?.model ?? null, totalMemMb: Math.round(totalmem() / 2 ** 20) },
    commit: gitCommit(),
    benchmarks: outcomes.map((o) => ({ name: o.name, seconds: Math.round(o.seconds), error: o.error, report: o.report })),
  };
  const text = JSON.stringify(body, null, 2) + '\n';
  writeFileSync(file, text);
  writeFileSync(`${dir}latest-scale${SCALE}-${subset}.json`, text);
  return file;
}

async function main(): Promise<void> {
  const names = parseArgs(process.argv.slice(2));
  const startedAt = new Date();
  log(`loom benchmarks: ${names.join(', ')} (BENCH_SCALE=${SCALE})`);
  const outcomes: Outcome[] = [];
  for (const name of names) {
    const outcome = await runOne(name);
    if (outcome.error) process.stderr.write(`\n${name} CRASHED: ${outcome.error}\n`);
    outcomes.push(outcome);
  }
  summary(outcomes);
  const file = writeResults(names, outcomes, startedAt);
  log(`\nresults written to ${file}`);
  if (outcomes.some((o) => o.error)) process.exitCode = 1;
}

main().catch((error: unknown) => {
  process.stderr.write(`run-all crashed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});
