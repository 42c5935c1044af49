/**
 * Trust answers for a caller: every one is built from the caller's view of
 * the `trust` fold (`RecordReader.globalFoldState`): the shared live state
 * for a caller who may read everything the fold reads, else a private
 * recomputation over the records it may read, so a restricted caller's
 * answer rests only on verdicts, claims and tasks it can see.
 *
 * Scores are read at minute resolution through the injected clock
 * (trust-rows.ts), so a cache key of watermark and minute names one answer.
 */
import type { Caller } from '../../core/access/caller.js';
import type { PrincipalResolver } from '../../core/access/principal-resolver.js';
import { token } from '../../core/di/token.js';
import type { RecordReader } from '../../core/engine/record-reader.js';
import type { FoldAnswer } from '../../core/folds/fold.js';
import { HALF_LIFE_DAYS } from './decay.js';
import { TRUST_FOLD } from './trust-fold.js';
import { principalTrust, READ_RESOLUTION_MS, readingTime, trustScores, trustSummary, type PrincipalTrust, type TrustFilter, type TrustGrouping, type TrustScore, type TrustSummary } from './trust-rows.js';
import type { TrustState } from './trust-state.js';

export const PRINCIPAL_TRUST_FOLD = 'principal_trust';
/** The only root before federation: everything this instance reaches. */
export const WHOLE_REACH = '⊤';

export interface TrustListing {
  /** The reading time (ms, to the minute). */
  readonly asOf: number;
  readonly watermark: number;
  /** True when the answer was recomputed over only what the caller may read. */
  readonly restricted: boolean;
  readonly rows: TrustScore[];
  readonly stats: TrustSummary;
}

export interface PrincipalTrustValue {
  as_of: string;
  half_life_days: number;
  root: string;
  rows: PrincipalTrust[];
}

/** An actor's standing per domain, all judges together (what the actor directory shows). */
export type TrustByDomain = Record<string, { score: number; total: number }>;

/** Sorted listings kept for paging: a page walk reads the same (state, watermark, minute, filter) many times. */
const LISTINGS_KEPT = 16;

export class TrustService {
  private readonly stateIds = new WeakMap<TrustState, number>();
  private nextStateId = 0;
  private readonly listings = new Map<string, TrustScore[]>();

  constructor(
    private readonly reader: RecordReader,
    private readonly principals: () => PrincipalResolver | null,
    private readonly now: () => number,
  ) {}

  private async view(caller: Caller): Promise<{ state: TrustState; watermark: number; restricted: boolean; at: number }> {
    const { state, watermark, restricted } = await this.reader.globalFoldState<TrustState>(caller, TRUST_FOLD);
    return { state, watermark, restricted, at: readingTime(this.now()) };
  }

  /** Score rows the caller may know of, best first. */
  async rows(caller: Caller, filter: TrustFilter = {}, group: TrustGrouping = 'judge'): Promise<TrustListing> {
    const { state, watermark, restricted, at } = await this.view(caller);
    return { asOf: at, watermark, restricted, rows: this.listing(state, watermark, at, filter, group), stats: trustSummary(state) };
  }

  /**
   * The sorted rows, computed once per (state, watermark, minute, filter,
   * grouping): a state at one watermark never changes, and grants (hence
   * principals) change only by records, which move the watermark.
   */
  private listing(state: TrustState, watermark: number, at: number, filter: TrustFilter, group: TrustGrouping): TrustScore[] {
    let id = this.stateIds.get(state);
    if (id === undefined) this.stateIds.set(state, (id = this.nextStateId++));
    const key = JSON.stringify([id, watermark, at, filter.actor ?? null, filter.domain ?? null, filter.judged_by ?? null, filter.imported ?? null, group]);
    let rows = this.listings.get(key);
    if (rows) {
      this.listings.delete(key); // re-inserted below: Map order is the LRU order
    } else {
      rows = trustScores(state, at, this.principals(), filter, group);
    }
    this.listings.set(key, rows);
    while (this.listings.size > LISTINGS_KEPT) this.listings.delete(this.listings.keys().next().value!);
    return rows;
  }

  /** `actor`'s score and verdict count per domain, all judges together. */
  async byDomain(caller: Caller, actor: string): Promise<TrustByDomain> {
    const { state, at } = await this.view(caller);
    const out: TrustByDomain = {};
    for (const row of trustScores(state, at, this.principals(), { actor }, 'actor_domain')) out[row.domain] = { score: row.score, total: row.total };
    return out;
  }

  /** Trust per person: one row per (principal, domain), the DIDs resolving to the principal merged. */
  async principalTrust(caller: Caller): Promise<FoldAnswer<PrincipalTrustValue>> {
    const { state, watermark, restricted, at } = await this.view(caller);
    return {
      fold_name: PRINCIPAL_TRUST_FOLD,
      cache_key: `${PRINCIPAL_TRUST_FOLD}@${watermark}:${at / READ_RESOLUTION_MS}${restricted ? '~restricted' : ''}`,
      watermark,
      value: { as_of: new Date(at).toISOString(), half_life_days: HALF_LIFE_DAYS, root: WHOLE_REACH, rows: principalTrust(state, at, this.principals()) },
    };
  }
}

export const TrustServiceToken = token<TrustService>('trust.TrustService');
