/**
 * Sync metrics (spec §4.13, §8): in memory, a one-hour rolling window in
 * one-minute buckets, reset on restart. Latency is delivery latency: from the
 * source's commit (`committed_at` of each entry) to the record being stored
 * here, so it includes the feed, the network and this side's ingest; clocks of
 * two machines must be in sync for it to mean anything across hosts.
 */
const MINUTE = 60_000;
const WINDOW_MINUTES = 60;
/** Latency samples kept per minute bucket (a uniform reservoir). */
const SAMPLES_PER_MINUTE = 512;

/** Upper bounds (ms) of the latency histogram's buckets; the last bucket is everything above. */
export const LATENCY_BUCKETS_MS = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10_000] as const;

export type RejectReason = 'signature_invalid' | 'tampered' | 'unrequested_page' | 'unsigned' | 'manifest_expired' | 'manifest_did_mismatch' | 'manifest_invalid' | 'refused';

interface Bucket {
  minute: number;
  pulled: number;
  errors: number;
  seen: number;
  samples: number[];
}

function quantile(sorted: readonly number[], q: number): number | null {
  if (sorted.length === 0) return null;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

export class PairMetrics {
  private readonly buckets: Bucket[] = [];
  readonly totals = { pulled: 0, deduplicated: 0, conflicts: 0, refused: 0, rejected: 0, errors: 0, pages: 0 };
  readonly rejectedBy: Partial<Record<RejectReason, number>> = {};
  readonly histogram = new Array<number>(LATENCY_BUCKETS_MS.length + 1).fill(0);

  constructor(private readonly now: () => number) {}

  private bucket(): Bucket {
    const minute = Math.floor(this.now() / MINUTE);
    let last = this.buckets[this.buckets.length - 1];
    if (!last || last.minute !== minute) {
      last = { minute, pulled: 0, errors: 0, seen: 0, samples: [] };
      this.buckets.push(last);
      while (this.buckets.length > 0 && this.buckets[0]!.minute <= minute - WINDOW_MINUTES) this.buckets.shift();
    }
    return last;
  }

  private live(): Bucket[] {
    const minute = Math.floor(this.now() / MINUTE);
    return this.buckets.filter((b) => b.minute > minute - WINDOW_MINUTES);
  }

  recordStored(latenciesMs: readonly number[]): void {
    const bucket = this.bucket();
    bucket.pulled += latenciesMs.length;
    this.totals.pulled += latenciesMs.length;
    for (const latency of latenciesMs) {
      const ms = Math.max(0, latency);
      let i = LATENCY_BUCKETS_MS.findIndex((bound) => ms <= bound);
      if (i < 0) i = LATENCY_BUCKETS_MS.length;
      this.histogram[i]!++;
      bucket.seen++;
      if (bucket.samples.length < SAMPLES_PER_MINUTE) bucket.samples.push(ms);
      else {
        const slot = Math.floor(Math.random() * bucket.seen);
        if (slot < SAMPLES_PER_MINUTE) bucket.samples[slot] = ms;
      }
    }
  }

  recordError(): void {
    this.bucket().errors++;
    this.totals.errors++;
  }

  recordRejected(reason: RejectReason, count = 1): void {
    this.totals.rejected += count;
    this.rejectedBy[reason] = (this.rejectedBy[reason] ?? 0) + count;
  }

  /** Figures over the window: pulled last hour, per minute (oldest first), errors, latency quantiles. */
  window(): { pulledLastHour: number; errorsLastHour: number; perMinute: number[]; latency: { mean: number | null; p50: number | null; p95: number | null; p99: number | null }; samples: number[] } {
    const live = this.live();
    const minute = Math.floor(this.now() / MINUTE);
    const perMinute = new Array<number>(WINDOW_MINUTES).fill(0);
    for (const b of live) perMinute[WINDOW_MINUTES - 1 - (minute - b.minute)] = b.pulled;
    const samples = live.flatMap((b) => b.samples);
    const sorted = [...samples].sort((a, b) => a - b);
    const mean = sorted.length === 0 ? null : sorted.reduce((sum, x) => sum + x, 0) / sorted.length;
    return {
      pulledLastHour: live.reduce((sum, b) => sum + b.pulled, 0),
      errorsLastHour: live.reduce((sum, b) => sum + b.errors, 0),
      perMinute,
      latency: { mean, p50: quantile(sorted, 0.5), p95: quantile(sorted, 0.95), p99: quantile(sorted, 0.99) },
      samples,
    };
  }
}

/** Counts for refusals not tied to a pair (pushed records, bad manifests fetched by hand). */
export class SyncCounters {
  readonly pushed = { accepted: 0, deduplicated: 0, conflicts: 0, refused: 0, rejected: 0 };
  readonly rejectedBy: Partial<Record<RejectReason, number>> = {};
  recordRejected(reason: RejectReason, count = 1): void {
    this.pushed.rejected += count;
    this.rejectedBy[reason] = (this.rejectedBy[reason] ?? 0) + count;
  }
}

export function roundMs(value: number | null): number | null {
  return value === null ? null : Math.round(value * 100) / 100;
}
