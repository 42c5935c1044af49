/**
 * What every benchmark shares: the BENCH_SCALE knob, temp directories that are
 * removed however the process ends, peak RSS, simple statistics, child
 * processes talking over IPC, and the report each benchmark prints and hands
 * to run-all. Benchmarks never exit non-zero for a missed target, only when
 * they crash.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { SERVER_NODE_FLAGS } from '../../server/node-flags.js';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

// ---------------------------------------------------------------- scale

function parseScale(raw: string | undefined): number {
  if (raw === undefined || raw.trim() === '') return 1;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0 || value > 10) throw new Error(`BENCH_SCALE must be a number in (0, 10], got ${JSON.stringify(raw)}`);
  return value;
}

/** Size multiplier from BENCH_SCALE (default 1); 0.05 gives a quick smoke run. */
export const SCALE = parseScale(process.env['BENCH_SCALE']);

/** `n × SCALE`, rounded, at least `floor`. */
export function scaled(n: number, floor = 1): number {
  return Math.max(floor, Math.round(n * SCALE));
}

// ---------------------------------------------------------------- temp dirs

const tempDirs = new Set<string>();

function removeTempDirs(): void {
  for (const dir of tempDirs) {
    try {
      rmSync(dir, { recursive: true, force: true });
    } catch {
      // best effort on the way out
    }
  }
  tempDirs.clear();
}

process.on('exit', removeTempDirs);
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    removeTempDirs();
    process.exit(130);
  });
}

/** A fresh directory under os.tmpdir(), removed by `removeTempDir` or when the process exits. */
export function makeTempDir(label: string): string {
  const dir = mkdtempSync(join(tmpdir(), `loom-bench-${label}-`));
  tempDirs.add(dir);
  return dir;
}

export function removeTempDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
  tempDirs.delete(dir);
}

// ---------------------------------------------------------------- memory

function statusKb(field: 'VmHWM' | 'VmRSS'): number | null {
  try {
    const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync('/proc/self/status', 'utf8'));
    return match ? Number(match[1]) : null;
  } catch {
    return null;
  }
}

/** Peak resident set size of this process so far, in MB (VmHWM, else getrusage maxRSS). */
export function peakRssMb(): number {
  const kb = statusKb('VmHWM') ?? process.resourceUsage().maxRSS;
  return round(kb / 1024, 1);
}

export function currentRssMb(): number {
  return round(process.memoryUsage().rss / (1024 * 1024), 1);
}

// ---------------------------------------------------------------- numbers

export function round(value: number, digits = 2): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

export function mean(values: readonly number[]): number {
  return values.length === 0 ? NaN : values.reduce((a, b) => a + b, 0) / values.length;
}

export function median(values: readonly number[]): number {
  return percentile(values, 50);
}

/** Nearest-rank percentile. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank]!;
}

/** 12,345 */
export function fmt(value: number, digits = 0): string {
  if (!Number.isFinite(value)) return String(value);
  return value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

export function seconds(startMs: number): number {
  return (performance.now() - startMs) / 1000;
}

/** The compliance suite's deterministic PRNG (mulberry32), so benchmarks reproduce from their seed. */
export { seededRandom } from '../../storage/compliance/fixtures.js';

// ---------------------------------------------------------------- reports

export interface Check {
  /** What is compared, e.g. "sqlite full: pipeline ÷ raw INSERT". */
  readonly label: string;
  /** The measured ratio (null when the check is not a ratio, e.g. a plan check). */
  readonly ratio: number | null;
  /** e.g. "≥ 0.5". */
  readonly target: string;
  readonly pass: boolean;
  /** The absolute figures behind the ratio, one line. */
  readonly detail: string;
}

export interface BenchReport {
  readonly name: string;
  readonly title: string;
  readonly scale: number;
  readonly startedAt: string;
  readonly seconds: number;
  /** Peak RSS of the benchmark's own process. */
  readonly peakRssMb: number;
  /** Peak RSS of the largest of its phase/server child processes, if any. */
  readonly childPeakRssMb: number | null;
  readonly figures: Record<string, unknown>;
  readonly checks: Check[];
  readonly notes: string[];
}

export function ratioCheck(label: string, ratio: number, op: '>=' | '<=', threshold: number, detail: string): Check {
  const pass = Number.isFinite(ratio) && (op === '>=' ? ratio >= threshold : ratio <= threshold);
  return { label, ratio: round(ratio, 3), target: `${op === '>=' ? '≥' : '≤'} ${threshold}`, pass, detail };
}

export function printChecks(checks: readonly Check[]): void {
  for (const c of checks) {
    const ratio = c.ratio === null ? '' : `RATIO ${c.ratio.toFixed(3)}  `;
    process.stdout.write(`  [${c.pass ? 'PASS' : 'MISS'}] ${c.label}: ${ratio}target ${c.target}\n         ${c.detail}\n`);
  }
}

export function log(line = ''): void {
  process.stdout.write(line + '\n');
}

// ---------------------------------------------------------------- processes

/** True when this module file is the script node was started with. */
export function isEntry(moduleUrl: string): boolean {
  return process.argv[1] !== undefined && fileURLToPath(moduleUrl) === process.argv[1];
}

interface Envelope {
  readonly kind: string;
  readonly [key: string]: unknown;
}

/** A forked child with an IPC channel: await its messages by kind, send it messages, await its exit. */
export class Child {
  private readonly inbox: Envelope[] = [];
  private readonly waiters: Array<{ kind: string; resolve: (m: Envelope) => void; reject: (e: Error) => void }> = [];
  readonly exited: Promise<number>;
  private exitCode: number | null = null;

  constructor(readonly proc: ChildProcess, readonly label: string) {
    proc.on('message', (message: Envelope) => {
      const i = this.waiters.findIndex((w) => w.kind === message.kind);
      if (i >= 0) this.waiters.splice(i, 1)[0]!.resolve(message);
      else this.inbox.push(message);
    });
    this.exited = new Promise((resolve) => {
      proc.on('exit', (code, signal) => {
        this.exitCode = code ?? (signal ? 128 : 1);
        for (const w of this.waiters.splice(0)) w.reject(new Error(`${label} exited (code ${code}, signal ${signal}) before sending "${w.kind}"`));
        resolve(this.exitCode);
      });
    });
  }

  message<T extends Envelope = Envelope>(kind: string, timeoutMs: number): Promise<T> {
    const queued = this.inbox.findIndex((m) => m.kind === kind);
    if (queued >= 0) return Promise.resolve(this.inbox.splice(queued, 1)[0] as T);
    if (this.exitCode !== null) return Promise.reject(new Error(`${this.label} already exited (code ${this.exitCode})`));
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        const i = this.waiters.indexOf(waiter);
        if (i >= 0) this.waiters.splice(i, 1);
        this.kill();
        reject(new Error(`${this.label}: no "${kind}" within ${Math.round(timeoutMs / 1000)} s; killed`));
      }, timeoutMs);
      const waiter = {
        kind,
        resolve: (m: Envelope) => {
          clearTimeout(timer);
          resolve(m as T);
        },
        reject: (e: Error) => {
          clearTimeout(timer);
          reject(e);
        },
      };
      this.waiters.push(waiter);
    });
  }

  send(message: Envelope): void {
    this.proc.send(message);
  }

  /** Kills this child (by its own pid) if it is still running. */
  kill(): void {
    if (this.exitCode === null) this.proc.kill('SIGKILL');
  }
}

/**
 * Forks the compiled module at `moduleUrl` with `args`; stdout/stderr are
 * inherited. Every child, baselines included, runs with the node flags the
 * reference server runs with (server/node-flags.ts).
 */
export function forkChild(moduleUrl: string, args: readonly string[], label: string, env: Record<string, string> = {}): Child {
  const child = fork(fileURLToPath(moduleUrl), [...args], {
    execArgv: [...new Set([...process.execArgv, ...SERVER_NODE_FLAGS])],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    env: { ...process.env, ...env },
  });
  return new Child(child, label);
}

/** Sends a message to the parent process, if there is one. */
export function sendToParent(message: Envelope): Promise<void> {
  return new Promise((resolve, reject) => {
    if (!process.send) return resolve();
    process.send(message, undefined, {}, (error) => (error ? reject(error) : resolve()));
  });
}

/** Resolves with the next message of `kind` from the parent. */
export function messageFromParent<T extends Envelope = Envelope>(kind: string): Promise<T> {
  return new Promise((resolve) => {
    const listener = (message: Envelope) => {
      if (message.kind !== kind) return;
      process.off('message', listener);
      resolve(message as T);
    };
    process.on('message', listener);
  });
}

// ---------------------------------------------------------------- phases

export interface PhaseResult<T> {
  readonly value: T;
  readonly peakRssMb: number;
}

/**
 * Runs one phase of a benchmark in a fresh child process (its own heap, so its
 * own peak RSS): the child is this same compiled file started with
 * `--phase <name>` and the payload as JSON in BENCH_PHASE_PAYLOAD.
 */
export async function runPhaseInChild<T>(moduleUrl: string, phase: string, payload: unknown, timeoutMs: number, env: Record<string, string> = {}): Promise<PhaseResult<T>> {
  const child = forkChild(moduleUrl, ['--phase', phase], `phase ${phase}`, { ...env, BENCH_PHASE_PAYLOAD: JSON.stringify(payload ?? null) });
  try {
    const message = await child.message<{ kind: 'phase-result'; value: T; peakRssMb: number }>('phase-result', timeoutMs);
    const code = await child.exited;
    if (code !== 0) throw new Error(`phase ${phase} exited with code ${code}`);
    return { value: message.value, peakRssMb: message.peakRssMb };
  } catch (error) {
    child.kill();
    throw error;
  }
}

/** The phase this process was started for, if any. */
export function phaseArgument(): { name: string; payload: unknown } | null {
  const i = process.argv.indexOf('--phase');
  if (i < 0) return null;
  const name = process.argv[i + 1];
  if (!name) throw new Error('--phase needs a name');
  return { name, payload: JSON.parse(process.env['BENCH_PHASE_PAYLOAD'] ?? 'null') as unknown };
}

/**
 * The child side of `runPhaseInChild`: runs the handler for the phase, sends
 * its value and this process's peak RSS, removes temp dirs and exits (1 on a crash).
 */
export function servePhase(handlers: Record<string, (payload: never) => Promise<unknown>>): void {
  const phase = phaseArgument()!;
  // If the parent dies, do not linger.
  process.on('disconnect', () => process.exit(1));
  const handler = handlers[phase.name];
  (async () => {
    if (!handler) throw new Error(`unknown phase ${phase.name} (phases: ${Object.keys(handlers).join(', ')})`);
    const value = await handler(phase.payload as never);
    if (process.send) await sendToParent({ kind: 'phase-result', value, peakRssMb: peakRssMb() });
    else log(JSON.stringify({ phase: phase.name, value, peakRssMb: peakRssMb() }));
  })().then(
    () => {
      removeTempDirs();
      process.exit(0);
    },
    (error: unknown) => {
      process.stderr.write(`phase ${phase.name} crashed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
      removeTempDirs();
      process.exit(1);
    },
  );
}

// ---------------------------------------------------------------- benchmark entry

export interface BenchOutcome {
  readonly figures: Record<string, unknown>;
  readonly checks: Check[];
  readonly notes?: string[];
  readonly childPeakRssMb?: number | null;
}

/**
 * The benchmark's main: prints a header, runs `body`, prints the checks,
 * sends the report to run-all (when forked by it) and exits 0; a crash
 * prints the error and exits 1. A missed target is not a crash.
 */
export function runBenchmark(name: string, title: string, body: () => Promise<BenchOutcome>): void {
  const startedAt = new Date().toISOString();
  const start = performance.now();
  log(`\n=== ${name}: ${title}`);
  log(`    BENCH_SCALE=${SCALE}  node ${process.version}  pid ${process.pid}`);
  body().then(
    async (outcome) => {
      const report: BenchReport = {
        name,
        title,
        scale: SCALE,
        startedAt,
        seconds: round(seconds(start), 1),
        peakRssMb: peakRssMb(),
        childPeakRssMb: outcome.childPeakRssMb ?? null,
        figures: outcome.figures,
        checks: outcome.checks,
        notes: outcome.notes ?? [],
      };
      log(`\n--- ${name} results (${report.seconds} s; peak RSS ${report.peakRssMb} MB${report.childPeakRssMb !== null ? `, largest child ${report.childPeakRssMb} MB` : ''})`);
      printChecks(report.checks);
      for (const note of report.notes) log(`  note: ${note}`);
      await sendToParent({ kind: 'report', report });
      removeTempDirs();
      process.exit(0);
    },
    (error: unknown) => {
      process.stderr.write(`${name} crashed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
      removeTempDirs();
      process.exit(1);
    },
  );
}

/** Dispatches a benchmark file: a phase child when started with --phase, else the benchmark itself. */
export function main(
  moduleUrl: string,
  spec: { name: string; title: string; phases?: Record<string, (payload: never) => Promise<unknown>>; run: () => Promise<BenchOutcome> },
): void {
  if (!isEntry(moduleUrl)) return;
  if (phaseArgument()) servePhase(spec.phases ?? {});
  else runBenchmark(spec.name, spec.title, spec.run);
}
