/**
 * One sync pair's pull loop (target pulls source, spec §2.8). Before pulling
 * it fetches the peer's federation manifest and verifies it: signature
 * first, then expiry (unless strict checks are off), then that the DID is
 * the pair's peer DID and the one the peer's domain serves at
 * /.well-known/did.json when it serves one. Then, by mode:
 * - `continuous`: one SSE connection; each event is a signed page.
 * - `longpoll`: the peer holds each request until it has news (30 s).
 * - `polling`: a page at a time, sleeping `poll_interval_ms` when caught up.
 * Every page must verify against the peer DID and answer this pair's own
 * request (verifyPage), and its records go through RecordReceiver, stopping
 * at the first refused one. The cursor is saved after each page that was
 * taken whole. Errors, and pulls that move nothing, back off exponentially
 * with jitter; after `failingAfterErrors` consecutive errors the pair reads
 * `failing` until a pull succeeds.
 */
import { createParser } from 'eventsource-parser';
import { SYSTEM } from '../../core/access/caller.js';
import type { Logger } from '../../core/plugin/logger.js';
import type { FederationOptions } from './config.js';
import { verifyManifest } from './manifest.js';
import type { PairEntry } from './pair-records.js';
import { PairError, pairErrorOf, type PairErrorCode } from './pair-error.js';
import type { PairKeeping } from './pair-keeping.js';
import type { RecordReceiver } from './record-receiver.js';
import type { SyncPage } from './sync-page.js';
import { parsePeerJson } from './peer-json.js';
import { PairMetrics, type RejectReason } from './sync-metrics.js';
import { verifyPage } from './verify-page.js';

export type PairState = 'running' | 'failing' | 'paused';

export interface PairRunnerDeps {
  readonly files: PairKeeping;
  readonly receiver: RecordReceiver;
  readonly options: FederationOptions;
  readonly log: Logger;
  readonly now: () => number;
}

const MANIFEST_RECHECK_MS = 10 * 60_000;

/** The page failures counted as rejected records in the pair's stats. */
const REJECT_REASON = { SIGNATURE_INVALID: 'signature_invalid', TAMPERED: 'tampered', UNREQUESTED_PAGE: 'unrequested_page' } as const satisfies Partial<Record<PairErrorCode, RejectReason>>;

export class PairRunner {
  state: PairState;
  retries = 0;
  lastError: { code: PairErrorCode; message: string; at: string } | null = null;
  lastSyncAt: string | null = null;
  nextAttemptAt: number | null = null;
  currentDelayMs = 0;
  readonly metrics: PairMetrics;
  private stopped = false;
  private inflight: AbortController | null = null;
  private wake: (() => void) | null = null;
  private manifestCheckedAt = 0;
  private loop: Promise<void> | null = null;

  constructor(private settings: PairEntry, private readonly deps: PairRunnerDeps) {
    this.state = settings.paused ? 'paused' : 'running';
    this.metrics = new PairMetrics(deps.now);
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
    this.inflight?.abort();
    this.wake?.();
    await this.loop;
  }

  pause(): void {
    this.settings = { ...this.settings, paused: true };
    this.state = 'paused';
    this.inflight?.abort();
    this.wake?.();
  }

  resume(): void {
    this.settings = { ...this.settings, paused: false };
    this.state = this.retries >= this.deps.options.failingAfterErrors ? 'failing' : 'running';
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
        this.retries = 0;
        this.currentDelayMs = 0;
        this.nextAttemptAt = null;
        if (!this.settings.paused) this.state = 'running';
        if (caughtUp && this.settings.mode === 'polling' && !this.stopped) {
          this.nextAttemptAt = this.deps.now() + this.settings.poll_interval_ms;
          await this.sleep(this.settings.poll_interval_ms);
        }
      } catch (error) {
        if (this.stopped || this.settings.paused) continue;
        const failure = pairErrorOf(error, false);
        this.retries++;
        this.metrics.recordError();
        this.lastError = { code: failure.code, message: failure.message, at: new Date(this.deps.now()).toISOString() };
        if (this.retries >= this.deps.options.failingAfterErrors) this.state = 'failing';
        const { backoffBaseMs, backoffMaxMs } = this.deps.options;
        // Full jitter: a uniform delay up to the exponential ceiling, so pairs failing together do not retry together.
        const ceiling = Math.min(backoffMaxMs, backoffBaseMs * 2 ** Math.min(this.retries - 1, 30));
        this.currentDelayMs = Math.round(ceiling / 2 + (Math.random() * ceiling) / 2);
        this.nextAttemptAt = this.deps.now() + this.currentDelayMs;
        this.deps.log.log('warn', 'sync pair pull failed', { pair_id: this.settings.pair_id, code: failure.code, message: failure.message, retry_in_ms: this.currentDelayMs });
        await this.sleep(this.currentDelayMs);
      }
    }
  }

  private token(): string {
    const token = this.deps.files.secret(this.settings.pair_id);
    if (!token) throw new PairError('NO_PEER_TOKEN', this.deps.files.secretProblem?.(this.settings.pair_id) ?? 'this pair has no peer token; delete it and create it again with peer_token');
    return token;
  }

  private async fetchJson(url: string, timeoutMs: number, auth: boolean): Promise<{ status: number; body: unknown }> {
    const controller = new AbortController();
    this.inflight = controller;
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, timeoutMs);
    try {
      const answer = await fetch(url, { headers: auth ? { authorization: `Bearer ${this.token()}`, accept: 'application/json' } : { accept: 'application/json' }, signal: controller.signal });
      const text = await answer.text();
      let body: unknown = null;
      if (answer.ok) body = text.length > 0 ? parsePeerJson(text, `the peer's answer to ${new URL(url).pathname}`) : null;
      else {
        try {
          body = text.length > 0 ? JSON.parse(text) : null;
        } catch {
          body = null;
        }
      }
      return { status: answer.status, body };
    } catch (error) {
      throw pairErrorOf(error, timedOut);
    } finally {
      clearTimeout(timer);
      if (this.inflight === controller) this.inflight = null;
    }
  }

  private httpError(status: number, body: unknown, what: string): PairError {
    const envelope = body as { code?: unknown; message?: unknown } | null;
    const detail = envelope && typeof envelope.code === 'string' ? `${envelope.code}: ${String(envelope.message)}` : `HTTP ${status}`;
    return new PairError(status >= 500 ? 'HTTP_5XX' : 'HTTP_4XX', `${what} answered ${status} (${detail})`);
  }

  /** Verifies the peer's manifest (and its domain's DID document) unless checked recently. */
  private async checkManifest(): Promise<void> {
    const now = this.deps.now();
    if (now - this.manifestCheckedAt < MANIFEST_RECHECK_MS) return;
    const base = this.settings.peer_url.replace(/\/+$/, '');
    const discovery = await this.fetchJson(`${base}/.well-known/service`, 10_000, false);
    if (discovery.status !== 200) throw this.httpError(discovery.status, discovery.body, 'GET /.well-known/service');
    const manifest = (discovery.body as { federation_manifest?: unknown } | null)?.federation_manifest;
    if (manifest === undefined) throw new PairError('MANIFEST_INVALID', 'the peer serves no federation manifest (is federation enabled there?)');
    const verdict = verifyManifest(manifest, { now, strict: this.deps.options.strictManifests, expectedDid: this.settings.peer_did });
    if (!verdict.ok) {
      const reason = verdict.reason;
      this.metrics.recordRejected(reason === 'expired' ? 'manifest_expired' : reason === 'did_mismatch' ? 'manifest_did_mismatch' : 'manifest_invalid');
      throw new PairError(reason === 'expired' ? 'MANIFEST_EXPIRED' : reason === 'did_mismatch' ? 'MANIFEST_DID_MISMATCH' : 'MANIFEST_INVALID', verdict.message);
    }
    const didDocument = await this.fetchJson(`${base}/.well-known/did.json`, 10_000, false);
    if (didDocument.status === 200) {
      const doc = didDocument.body as { id?: unknown; alsoKnownAs?: unknown } | null;
      const names = [doc?.id, ...(Array.isArray(doc?.alsoKnownAs) ? doc.alsoKnownAs : [])];
      if (!names.includes(this.settings.peer_did)) {
        this.metrics.recordRejected('manifest_did_mismatch');
        throw new PairError('MANIFEST_DID_MISMATCH', `the peer's domain serves a DID document for ${String(doc?.id)}, not ${this.settings.peer_did}`);
      }
    }
    this.manifestCheckedAt = now;
  }

  private changesUrl(feed: 'normal' | 'longpoll' | 'continuous'): string {
    const params = new URLSearchParams({ limit: String(this.deps.options.pullLimit), feed, target_namespace: this.settings.target_namespace });
    const cursor = this.cursor;
    if (cursor) params.set('since', cursor);
    if (this.settings.thread_id) params.set('thread', this.settings.thread_id);
    return `${this.settings.peer_url.replace(/\/+$/, '')}/v1/sync/changes?${params.toString()}`;
  }

  /**
   * Verifies and stores one page, then saves its cursor. The cursor moves
   * only past a page that answers this pair's request and whose records were
   * all stored (or deduplicated, or quarantined as conflicts); anything else
   * throws, so the page is pulled again after a backoff. Returns the page.
   */
  private async applyPage(body: unknown): Promise<SyncPage> {
    let page: SyncPage;
    try {
      page = verifyPage(body, { peerDid: this.settings.peer_did, since: this.cursor ?? '', targetNamespace: this.settings.target_namespace, thread: this.settings.thread_id });
    } catch (error) {
      const rejected = (body as { records?: unknown } | null)?.records;
      const count = Math.max(1, Array.isArray(rejected) ? rejected.length : 0);
      if (error instanceof PairError && error.code in REJECT_REASON) this.metrics.recordRejected(REJECT_REASON[error.code as keyof typeof REJECT_REASON], count);
      throw error;
    }
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
    return page;
  }

  /** One pull; true when the peer had nothing more (caught up). */
  private async pullOnce(): Promise<boolean> {
    await this.checkManifest();
    if (this.settings.mode === 'continuous') {
      await this.stream();
      return false;
    }
    const longpoll = this.settings.mode === 'longpoll';
    const answer = await this.fetchJson(this.changesUrl(longpoll ? 'longpoll' : 'normal'), longpoll ? this.deps.options.longpollTimeoutMs + 30_000 : 60_000, true);
    if (answer.status !== 200) throw this.httpError(answer.status, answer.body, 'GET /v1/sync/changes');
    return !(await this.applyPage(answer.body)).has_more;
  }

  /**
   * The continuous feed: applies each event's page in order until the
   * connection ends. Each event must continue from the cursor the one before
   * it left (verifyPage), so a dropped, replayed or reordered event stops the
   * stream. A stream that ends without moving the cursor is a failure, so it
   * is retried after a backoff rather than at once.
   */
  private async stream(): Promise<void> {
    const controller = new AbortController();
    this.inflight = controller;
    let timedOut = false;
    let failure: unknown = null;
    const startCursor = this.cursor;
    let idle: NodeJS.Timeout | null = null;
    // A connection silent for far longer than the peer's heartbeat is dead even if TCP has not noticed.
    const watchdog = () => {
      if (idle) clearTimeout(idle);
      idle = setTimeout(() => {
        timedOut = true;
        controller.abort();
      }, Math.max(60_000, this.deps.options.heartbeatMs * 6));
    };
    try {
      watchdog();
      const answer = await fetch(this.changesUrl('continuous'), { headers: { authorization: `Bearer ${this.token()}`, accept: 'text/event-stream' }, signal: controller.signal });
      if (answer.status !== 200 || !answer.body) {
        const text = await answer.text().catch(() => '');
        let body: unknown = null;
        try {
          body = JSON.parse(text);
        } catch {
          body = null;
        }
        throw this.httpError(answer.status, body, 'GET /v1/sync/changes?feed=continuous');
      }
      let chain: Promise<void> = Promise.resolve();
      const parser = createParser({
        onEvent: (event) => {
          if (event.event !== 'changes' && event.event !== 'heartbeat') return;
          chain = chain.then(async () => {
            if (failure) return;
            try {
              await this.applyPage(parsePeerJson(event.data, 'a continuous changes event') as never);
              if (!this.settings.paused) this.state = 'running';
              this.retries = 0;
            } catch (error) {
              failure = error;
              controller.abort();
            }
          });
        },
      });
      const decoder = new TextDecoder();
      for await (const chunk of answer.body as unknown as AsyncIterable<Uint8Array>) {
        watchdog();
        parser.feed(decoder.decode(chunk, { stream: true }));
        // Back-pressure: do not read further ahead than the pages being stored.
        await chain;
        if (failure) break;
      }
      await chain;
      if (failure) throw failure;
      if (this.cursor === startCursor && !this.stopped && !this.settings.paused) throw new PairError('NO_PROGRESS', "the peer's event stream ended without moving the cursor");
    } catch (error) {
      if (this.stopped || this.settings.paused) return;
      // A page that failed aborts the connection, and the read then rejects with the abort: report the page's failure, not the abort.
      throw pairErrorOf(failure ?? error, timedOut && !failure);
    } finally {
      if (idle) clearTimeout(idle);
      if (this.inflight === controller) this.inflight = null;
    }
  }
}
