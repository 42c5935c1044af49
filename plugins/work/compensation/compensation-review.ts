/**
 * The compensation review (spec §4.8), pure: per member, its runs, its
 * compensations, their rate and breakdowns, and its anomaly score against
 * the fleet.
 *
 * - rate = compensations ÷ runs. A run may be compensated more than once
 *   (cancelled, then retried; rejected by two judges), so a rate can pass 1.
 * - The fleet is every member with at least one run; `fleet_median` is the
 *   median of their rates (the mean of the middle two for an even count).
 * - anomaly = rate ÷ baseline, where the baseline is the fleet median when
 *   it is above 0. When it is 0 (most members were never compensated) a
 *   ratio to it would be infinite for everyone compensated at all, so the
 *   baseline is the fleet's pooled rate instead (all compensations ÷ all
 *   runs): the score then says how many times the fleet's overall rate a
 *   member runs at. When that is 0 too, nobody was compensated and every
 *   score is 0. `baseline` and `baseline_kind` say which one was used.
 * Computing it is O(members log members) per answer; the fold keeps the tallies.
 */
import { SEAMS, type ActorTally, type CompensationState, type Seam } from './compensation-state.js';

export interface ActorCompensation {
  actor: string;
  runs: number;
  compensations: number;
  rate: number;
  by_seam: Record<Seam, number>;
  by_assumption: Record<string, number>;
  anomaly: number;
}

export type BaselineKind = 'median' | 'fleet_rate' | 'none';

export interface CompensationReview {
  object: 'compensation_review';
  /** The log sequence the fold had reached. */
  watermark: number;
  /** Members with at least one run. */
  fleet_actors: number;
  fleet_runs: number;
  fleet_compensations: number;
  fleet_median: number;
  /** All compensations ÷ all runs. */
  fleet_rate: number;
  baseline: number;
  baseline_kind: BaselineKind;
  data: ActorCompensation[];
}

export function median(values: readonly number[]): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

const rateOf = (tally: ActorTally): number => (tally.runs === 0 ? 0 : tally.compensations / tally.runs);

/** Highest anomaly first, then most compensations, then by DID, so equal scores list in a stable order. */
function byAnomaly(a: ActorCompensation, b: ActorCompensation): number {
  return b.anomaly - a.anomaly || b.compensations - a.compensations || (a.actor < b.actor ? -1 : a.actor > b.actor ? 1 : 0);
}

/** Every member with runs, scored against the fleet, highest anomaly first. */
export function compensationReview(state: Pick<CompensationState, 'actors'>, watermark: number): CompensationReview {
  const fleet = [...state.actors.entries()].filter(([, tally]) => tally.runs > 0);
  let runs = 0;
  let compensations = 0;
  for (const [, tally] of fleet) {
    runs += tally.runs;
    compensations += tally.compensations;
  }
  const fleetMedian = median(fleet.map(([, tally]) => rateOf(tally)));
  const fleetRate = runs === 0 ? 0 : compensations / runs;
  const [baseline, kind]: [number, BaselineKind] = fleetMedian > 0 ? [fleetMedian, 'median'] : fleetRate > 0 ? [fleetRate, 'fleet_rate'] : [0, 'none'];
  const data = fleet.map(([actor, tally]): ActorCompensation => {
    const rate = rateOf(tally);
    const bySeam = {} as Record<Seam, number>;
    for (const seam of SEAMS) bySeam[seam] = tally.bySeam[seam];
    return {
      actor,
      runs: tally.runs,
      compensations: tally.compensations,
      rate,
      by_seam: bySeam,
      by_assumption: Object.fromEntries([...tally.byAssumption.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))),
      anomaly: baseline === 0 ? 0 : rate / baseline,
    };
  });
  data.sort(byAnomaly);
  return {
    object: 'compensation_review',
    watermark,
    fleet_actors: fleet.length,
    fleet_runs: runs,
    fleet_compensations: compensations,
    fleet_median: fleetMedian,
    fleet_rate: fleetRate,
    baseline,
    baseline_kind: kind,
    data,
  };
}
