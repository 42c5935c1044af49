/**
 * The trust benchmarks' generated verdict log: a deterministic pseudo-random
 * number per (task, k), so every run generates the same log, and the verdict
 * word it picks; and a full garbage collection on demand, so a state's
 * retained size can be measured.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** Deterministic per (task, k) pseudo-random in [0, 1). */
export function unit(i: number, k: number): number {
  let h = Math.imul(i ^ 0x9e3779b9, 0x85ebca6b) ^ Math.imul(k + 1, 0xc2b2ae35);
  h ^= h >>> 13;
  h = Math.imul(h, 0x27d4eb2f);
  h ^= h >>> 16;
  return (h >>> 0) / 4294967296;
}

/** Mostly accept, some reject, a few other words (one the fold does not recognise). */
export function verdictWord(r: number): string {
  if (r < 0.6) return 'accept';
  if (r < 0.75) return 'approved';
  if (r < 0.9) return 'reject';
  if (r < 0.95) return 'timeout';
  return 'needs_changes';
}

/** A full collection (the flag exposes gc to new contexts). */
export function collectGarbage(): void {
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
}
