/**
 * One sync pair's pull loop (target pulls source, spec §2.8). Before pulling
 * it has the peer's federation manifest verified (peer-client.ts: signature
 * first, then expiry unless strict checks are off, then that the DID is the
 * pair's peer DID and the one the peer's domain serves at
 * /.well-known/did.json when it serves one), again every ten minutes or on a
 * kick. Then, by mode:
 * - `continuous`: one SSE connection; each event is a signed page.
 * - `longpoll`: the peer holds each request until it has news (30 s).
 * - `polling`: a page at a time, sleeping `poll_interval_ms` when caught up.
 * - `on-demand`: pages until caught up when started, then only on a kick.
 * Every page the peer client hands over has been verified against the peer
 * DID and this pair's own request; its records go through RecordReceiver,
 * stopping at the first refused one. The cursor is saved after each page
 * that was taken whole. Errors, and pulls that move nothing, back off
 * exponentially with jitter, up to `backoffMaxMs` or the lower cap the
 * plugin gives (a federation pair's poll interval, its promise of latency);
 * after `failingAfterErrors` consecutive errors the pair reads `failing`
 * until a pull succeeds. `observe` hears every pull's outcome (a federation
 * pair's `degraded`, handshake/pair-health.ts).
 */
import type { PeerKeys } from './keys/peer-keys.js';
import { SYSTEM } from '../../core/access/caller.js';
import type { Logger } from '../../core/plugin/logger.js';
import type { FederationOptions } from './config.js';
import type { PairEntry } from './pair-records.js';
import { PairError, pairErrorOf, type PairErrorCode } from './pair-error.js';
import type { PairKeeping } from './pair-keeping.js';
import { PeerClient } from './peer-client.js';
import type { RecordReceiver } from './record-receiver.js';
import type { SyncPage } from './sync-page.js';
import { PairMetrics } from './sync-metrics.js';

export type PairState = 'running' | 'failing' | 'paused';

/** What a pull came to: the error and how many failed in a row, or a success. */
export type PullOutcome = { readonly ok: true } | { readonly ok: false; readonly error: PairError; readonly retries: number; readonly nextAttemptAt: number };

export interface PairRunnerDeps {
  readonly files: PairKeeping;
  /** A lower ceiling for this pair's retry delay (a federation pair's poll interval); null: backoffMaxMs. */
  readonly backoffCapMs?: (pair: PairEntry) => number | null;
  /** Hears each pull's outcome (called synchronously; must not throw). */
  readonly observe?: (pairId: string, outcome: PullOutcome) => void;
  readonly receiver: RecordReceiver;
  readonly options: FederationOptions;
  readonly log: Logger;
  readonly now: () => number;
  /** The peers' keys in force and their rotations. */
  readonly peerKeys?: PeerKeys;
}

const MANIFEST_RECHECK_MS = 10 * 60_000;
/** An on-demand pair sleeps until kicked; this only bounds one sleep. */
const ON_DEMAND_WAIT_MS = 3_600_000;

export class PairRunner {
  state: PairState;
  retries = 0;
  lastError: { code: PairErrorCode; message: string; at: string } | null = null;
  lastSyncAt: string | null = null;
  nextAttemptAt: number | null = null;
  currentDelayMs = 0;
  readonly metrics: PairMetrics;
  private stopped = false;
  private readonly peer: PeerClient;
  private wake: (() => void) | null = null;
  private manifestCheckedAt = 0;
  private loop: Promise<void> | null = null;
  /** The pull in flight was cut by `reconfigure`. */
  private switching = false;

  constructor(private settings: PairEntry, private readonly deps: PairRunnerDeps) {
    this.state = settings.paused ? 'paused' : 'running';
    this.metrics = new PairMetrics(deps.now);
    this.peer = new PeerClient({
      pair: () => this.settings,
      cursor: () => this.cursor,
      token: () => this.token(),
      options: deps.options,
      now: deps.now,
      rejected: (reason, count) => this.metrics.recordRejected(reason, count),
      halted: () => this.stopped || this.settings.paused,
      ...(deps.peerKeys ? { peerKeys: deps.peerKeys } : {}),
    });
  }

  get pair(): PairEntry {
    return this.settings;
  }

  get cursor(): string | null {
    return this.deps.files.cursor(this.settings.pair_id) ?? null;
  }

  start(): void {
    this.loop ??= this.run().catch((error: unknown) => this.deps.log.log('error', 'sync pair loop ended', { pair_id: this.settings.pair_id, error: String(error) }));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.peer.abort();
    this.wake?.();
    await this.loop;
  }

  pause(): void {
    this.settings = { ...this.settings, paused: true };
    this.state = 'paused';
    this.peer.abort();
    this.wake?.();
  }

  resume(): void {
    this.settings = { ...this.settings, paused: false };
    this.state = this.retries >= this.deps.options.failingAfterErrors ? 'failing' : 'running';
    this.wake?.();
  }

  /** New mode or poll interval (an `updated` record): the pull in flight is cut and the loop goes on with them. */
  reconfigure(entry: PairEntry): void {
    const streaming = this.settings.mode === 'continuous' || this.settings.mode === 'longpoll';
    this.settings = { ...entry, paused: this.settings.paused };
    if (streaming) {
      this.switching = true;
      this.peer.abort();
    }
    this.wake?.();
  }

  /** Pull now: ends a poll sleep or a backoff wait at once. */
  kick(): void {
    this.manifestCheckedAt = 0;
    this.wake?.();
  }

  private sleep(ms: number): Promise<void> {
    if (this.stopped) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.wake = null;
        resolve();
      }, ms);
      this.wake = () => {
        clearTimeout(timer);
        this.wake = null;
        resolve();
      };
    });
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      if (this.settings.paused) {
        await this.sleep(3_600_000);
        continue;
      }
      try {
        const caughtUp = await this.pullOnce();
        this.switching = false;
        this.retries = 0;
        this.currentDelayMs = 0;
        this.nextAttemptAt = null;
        if (!this.settings.paused) this.state = 'running';
        this.deps.observe?.(this.settings.pair_id, { ok: true });
        if (caughtUp && this.settings.mode === 'polling' && !this.stopped) {
          this.nextAttemptAt = this.deps.now() + this.settings.poll_interval_ms;
          await this.sleep(this.settings.poll_interval_ms);
        } else if (caughtUp && this.settings.mode === 'on-demand' && !this.stopped) {
          await this.sleep(ON_DEMAND_WAIT_MS);
        }
      } catch (error) {
        if (this.stopped || this.settings.paused) continue;
        if (this.reconfigured(error)) continue;
        const failure = pairErrorOf(error, false);
        this.retries++;
        this.metrics.recordError();
        this.lastError = { code: failure.code, message: failure.message, at: new Date(this.deps.now()).toISOString() };
        if (this.retries >= this.deps.options.failingAfterErrors) this.state = 'failing';
        const { backoffBaseMs, backoffMaxMs } = this.deps.options;
        // Full jitter: a uniform delay up to the exponential ceiling, so pairs failing together do not retry together.
        const cap = Math.min(backoffMaxMs, this.deps.backoffCapMs?.(this.settings) ?? backoffMaxMs);
        const ceiling = Math.min(cap, backoffBaseMs * 2 ** Math.min(this.retries - 1, 30));
        this.currentDelayMs = Math.round(ceiling / 2 + (Math.random() * ceiling) / 2);
        this.nextAttemptAt = this.deps.now() + this.currentDelayMs;
        this.deps.observe?.(this.settings.pair_id, { ok: false, error: failure, retries: this.retries, nextAttemptAt: this.nextAttemptAt });
        this.deps.log.log('warn', 'sync pair pull failed', { pair_id: this.settings.pair_id, code: failure.code, message: failure.message, retry_in_ms: this.currentDelayMs });
        await this.sleep(this.currentDelayMs);
      }
    }
  }

  /** A pull cut because the mode changed under it is no failure. */
  private reconfigured(_error: unknown): boolean {
    const cut = this.switching;
    this.switching = false;
    return cut;
  }

  private token(): string {
    const token = this.deps.files.secret(this.settings.pair_id);
    if (!token) throw new PairError('NO_PEER_TOKEN', this.deps.files.secretProblem?.(this.settings.pair_id) ?? 'this pair has no peer token; delete it and create it again with peer_token');
    return token;
  }

  /** Verifies the peer's manifest (and its domain's DID document) unless checked recently. */
  private async checkManifest(): Promise<void> {
    const now = this.deps.now();
    if (now - this.manifestCheckedAt < MANIFEST_RECHECK_MS) return;
    await this.peer.verifyManifest(now);
    this.manifestCheckedAt = now;
  }

  /**
   * Stores one verified page, then saves its cursor. The cursor moves only
   * past a page whose records were all stored (or deduplicated, or
   * quarantined as conflicts); anything else throws, so the page is pulled
   * again after a backoff.
   */
  private async storePage(page: SyncPage): Promise<void> {
    const records = page.records.map((entry) => entry.record);
    const outcome = await this.deps.receiver.receive(records, { caller: SYSTEM, via: 'federation' }, { origin: this.settings.peer_did, via: 'pull', pair_id: this.settings.pair_id }, { stopAtRefusal: true });
    const storedAt = this.deps.now();
    this.metrics.totals.pages++;
    this.metrics.recordStored(outcome.acceptedIndexes.map((i) => storedAt - Date.parse(page.records[i]!.committed_at)));
    this.metrics.totals.deduplicated += outcome.deduplicated.length;
    this.metrics.totals.conflicts += outcome.conflicts.length;
    if (outcome.refused.length > 0) {
      this.metrics.totals.refused += outcome.refused.length;
      this.metrics.recordRejected('refused', outcome.refused.length);
    }
    if (outcome.stoppedAt !== null) {
      // The peer signed it and this instance will not store it: hold the cursor before it (a skipped record would never come back).
      const refused = outcome.refused[outcome.refused.length - 1]!;
      throw new PairError(
        'RECORD_REFUSED',
        `record ${refused.id || `#${outcome.stoppedAt}`} of a signed page was refused here (${refused.code}: ${refused.message}); ${outcome.stoppedAt} record(s) before it were taken, none after it, and the cursor stays until it is stored`,
      );
    }
    if (outcome.refused.length > 0) {
      // Conflicts the store decided (a record already stored with another judged_by): stored, so the cursor may pass.
      this.deps.log.log('warn', 'sync pair: records conflicting with stored ones', { pair_id: this.settings.pair_id, count: outcome.refused.length, first: `${outcome.refused[0]!.code}: ${outcome.refused[0]!.message}` });
    }
    this.deps.files.setCursor(this.settings.pair_id, page.next_cursor);
    this.lastSyncAt = new Date(storedAt).toISOString();
  }

  /** One pull; true when the peer had nothing more (caught up). */
  private async pullOnce(): Promise<boolean> {
    await this.checkManifest();
    if (this.settings.mode === 'continuous') {
      await this.stream();
      return false;
    }
    const page = await this.peer.page(this.settings.mode === 'longpoll' ? 'longpoll' : 'normal');
    await this.storePage(page);
    return !page.has_more;
  }

  /**
   * The continuous feed: stores each event's page in order until the
   * connection ends (the peer client verifies each against the cursor the
   * one before it left). A stream that ends without moving the cursor is a
   * failure, so it is retried after a backoff rather than at once.
   */
  private async stream(): Promise<void> {
    const startCursor = this.cursor;
    try {
      await this.peer.stream(async (page) => {
        await this.storePage(page);
        if (!this.settings.paused) this.state = 'running';
        this.retries = 0;
        this.deps.observe?.(this.settings.pair_id, { ok: true });
      });
    } catch (error) {
      if (this.stopped || this.settings.paused) return;
      throw error;
    }
    if (this.cursor === startCursor && !this.stopped && !this.settings.paused) throw new PairError('NO_PROGRESS', "the peer's event stream ended without moving the cursor");
  }
}
