/**
 * The V8 CPU profiler over a benchmark's measured phase alone (`node
 * --cpu-prof` profiles the whole process, set-up included), and the one
 * question the benchmarks ask of a profile: how much CPU ran inside a given
 * function, its callees and its resumed awaits included. That is a log
 * consumer's CPU, which a timer around its async `handle` cannot give: the
 * timer's wall time also holds everything else that ran during its awaits.
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import type { Profiler } from 'node:inspector';
import { join } from 'node:path';
import { log } from './harness.js';

/** Where V8 says a function's source starts: the key a profile's call frames carry too. */
type FunctionKey = string;

function frameKey(scriptId: string, line: number, column: number): FunctionKey {
  return `${scriptId}:${line}:${column}`;
}

export class CpuProfiler {
  private readonly session = new Session();

  async start(): Promise<void> {
    this.session.connect();
    await this.session.post('Profiler.enable');
    await this.session.post('Profiler.setSamplingInterval', { interval: 200 });
    await this.session.post('Profiler.start');
  }

  /** Where `fn` starts, as a profile names it (null for a native or bound function). */
  async locate(fn: Function): Promise<FunctionKey | null> {
    const probe = '__loomBenchLocate';
    (globalThis as Record<string, unknown>)[probe] = fn;
    try {
      const { result } = await this.session.post('Runtime.evaluate', { expression: `globalThis.${probe}` });
      if (!result.objectId) return null;
      const { internalProperties } = await this.session.post('Runtime.getProperties', { objectId: result.objectId, ownProperties: true });
      const location = internalProperties?.find((p) => p.name === '[[FunctionLocation]]')?.value?.value as
        | { scriptId: string; lineNumber: number; columnNumber: number }
        | undefined;
      return location ? frameKey(location.scriptId, location.lineNumber, location.columnNumber) : null;
    } finally {
      delete (globalThis as Record<string, unknown>)[probe];
    }
  }

  async stop(): Promise<Profiler.Profile> {
    const { profile } = await this.session.post('Profiler.stop');
    this.session.disconnect();
    return profile;
  }
}

/**
 * CPU time (ms) of the samples whose stack holds one of `functions`, by its
 * label; a sample inside two of them counts for the innermost.
 */
export function cpuInside(profile: Profiler.Profile, functions: ReadonlyMap<FunctionKey, string>): Map<string, number> {
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const owner = new Map<number, string | null>();
  const ownerOf = (id: number): string | null => {
    const known = owner.get(id);
    if (known !== undefined) return known;
    const frame = byId.get(id)!.callFrame;
    const here = functions.get(frameKey(frame.scriptId, frame.lineNumber, frame.columnNumber));
    const up = parent.get(id);
    const found = here ?? (up === undefined ? null : ownerOf(up));
    owner.set(id, found);
    return found;
  };
  const totals = new Map<string, number>();
  const samples = profile.samples ?? [];
  const deltas = profile.timeDeltas ?? [];
  for (let i = 0; i < samples.length; i++) {
    const label = ownerOf(samples[i]!);
    if (label !== null) totals.set(label, (totals.get(label) ?? 0) + (deltas[i] ?? 0) / 1000);
  }
  return totals;
}

/**
 * Runs `body` under the profiler when `dir` is set and `enabled`, writing
 * `<dir>/<label>.cpuprofile` for a closer look (chrome://inspect, speedscope).
 */
export async function profiled<T>(dir: string | null, label: string, enabled: boolean, body: () => Promise<T>): Promise<T> {
  if (!dir || !enabled) return body();
  const profiler = new CpuProfiler();
  await profiler.start();
  try {
    return await body();
  } finally {
    const file = join(dir, `${label}.cpuprofile`);
    writeFileSync(file, JSON.stringify(await profiler.stop()));
    log(`    CPU profile of ${label} written to ${file}`);
  }
}
