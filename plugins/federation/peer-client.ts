/**
 * What a pair says to its peer, and what it believes of the answers: the
 * peer's federation manifest and DID document (verified), and its changes
 * pages, one at a time or as the continuous event stream, each parsed as
 * strictly as a request body (peer-json.ts) and verified against the pair's
 * request (verify-page.ts) before anyone stores a record of it. Knows nothing
 * of the cursor's keeping, retries or state: the pair runner
 * (pair-runner.ts) decides when to ask and what to do with a page.
 *
 * Every failure is a PairError. Pages and manifests refused as forged,
 * altered or unrequested are reported to `rejected` (the pair's stats).
 */
import { createParser } from 'eventsource-parser';
import type { FederationOptions } from './config.js';
import type { PeerKeys } from './keys/peer-keys.js';
import { verifyManifest } from './manifest.js';
import type { PairEntry } from './pair-records.js';
import { PairError, pairErrorOf, type PairErrorCode } from './pair-error.js';
import { parsePeerJson } from './peer-json.js';
import { pageProblem, type SyncPage } from './sync-page.js';
import type { RejectReason } from './sync-metrics.js';
import { untilAborted } from './until-aborted.js';
import { verifyPage } from './verify-page.js';

export interface PeerClientDeps {
  /** The pair as it stands now (its settings change on pause and resume). */
  readonly pair: () => PairEntry;
  /** The cursor the pair holds: what the next page must answer. */
  readonly cursor: () => string | null;
  /** The peer bearer; throws NO_PEER_TOKEN when the pair has none. */
  readonly token: () => string;
  readonly options: FederationOptions;
  readonly now: () => number;
  readonly rejected: (reason: RejectReason, count?: number) => void;
  /** The peer's keys in force and its rotations (absent: its DID's own key only). */
  readonly peerKeys?: PeerKeys;
  /**
   * True while the pair must not talk to its peer (stopped or paused). Checked as each request starts:
   * `abort()` reaches only a request already in flight, and one started a moment after a pause or a stop
   * (between two requests of a manifest check, say) would otherwise run, a continuous feed for minutes.
   */
  readonly halted?: () => boolean;
}

/** The page failures counted as rejected records in the pair's stats. */
const REJECT_REASON = { SIGNATURE_INVALID: 'signature_invalid', KEY_EXPIRED: 'signature_invalid', KEY_CHAIN_INVALID: 'signature_invalid', TAMPERED: 'tampered', UNREQUESTED_PAGE: 'unrequested_page' } as const satisfies Partial<Record<PairErrorCode, RejectReason>>;

export class PeerClient {
  private inflight: AbortController | null = null;

  constructor(private readonly deps: PeerClientDeps) {}

  /** Ends the request or stream in flight, if any (pause, stop). */
  abort(): void {
    this.inflight?.abort();
  }

  private base(): string {
    return this.deps.pair().peer_url.replace(/\/+$/, '');
  }

  /** A controller for the request starting now, already aborted if the pair was halted before it started. */
  private begin(): AbortController {
    const controller = new AbortController();
    this.inflight = controller;
    if (this.deps.halted?.()) controller.abort();
    return controller;
  }

  private async fetchJson(url: string, timeoutMs: number, auth: boolean): Promise<{ status: number; body: unknown }> {
    const controller = this.begin();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, timeoutMs);
    try {
      const answer = await untilAborted(fetch(url, { headers: auth ? { authorization: `Bearer ${this.deps.token()}`, accept: 'application/json' } : { accept: 'application/json' }, signal: controller.signal }), controller.signal);
      const text = await untilAborted(answer.text(), controller.signal);
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
    return new PairError(status >= 500 ? 'HTTP_5XX' : 'HTTP_4XX', `${what} answered ${status} (${detail})`, status);
  }

  /** Verifies the peer's manifest at `now`, and its domain's DID document when the domain serves one. */
  async verifyManifest(now: number): Promise<void> {
    const pair = this.deps.pair();
    const base = this.base();
    const discovery = await this.fetchJson(`${base}/.well-known/service`, 10_000, false);
    if (discovery.status !== 200) throw this.httpError(discovery.status, discovery.body, 'GET /.well-known/service');
    const manifest = (discovery.body as { federation_manifest?: unknown } | null)?.federation_manifest;
    if (manifest === undefined) throw new PairError('MANIFEST_INVALID', 'the peer serves no federation manifest (is federation enabled there?)');
    const peerKeys = this.deps.peerKeys;
    const verdict = verifyManifest(manifest, { now, strict: this.deps.options.strictManifests, expectedDid: pair.peer_did, ...(peerKeys ? { pinned: peerKeys.pinned(pair.peer_did) } : {}) });
    if (!verdict.ok) {
      const reason = verdict.reason;
      this.deps.rejected(reason === 'expired' ? 'manifest_expired' : reason === 'did_mismatch' ? 'manifest_did_mismatch' : 'manifest_invalid');
      throw new PairError(reason === 'expired' ? 'MANIFEST_EXPIRED' : reason === 'did_mismatch' ? 'MANIFEST_DID_MISMATCH' : reason === 'key_chain_invalid' ? 'KEY_CHAIN_INVALID' : 'MANIFEST_INVALID', verdict.message);
    }
    // A rotation the pinned key countersigned: pin the key in force now.
    await peerKeys?.follow(pair.peer_did, verdict.keys);
    const didDocument = await this.fetchJson(`${base}/.well-known/did.json`, 10_000, false);
    if (didDocument.status === 200) {
      const doc = didDocument.body as { id?: unknown; alsoKnownAs?: unknown } | null;
      const names = [doc?.id, ...(Array.isArray(doc?.alsoKnownAs) ? doc.alsoKnownAs : [])];
      if (!names.includes(pair.peer_did)) {
        this.deps.rejected('manifest_did_mismatch');
        throw new PairError('MANIFEST_DID_MISMATCH', `the peer's domain serves a DID document for ${String(doc?.id)}, not ${pair.peer_did}`);
      }
    }
  }

  private changesUrl(feed: 'normal' | 'longpoll' | 'continuous'): string {
    const pair = this.deps.pair();
    const params = new URLSearchParams({ limit: String(this.deps.options.pullLimit), feed, target_namespace: pair.target_namespace });
    const cursor = this.deps.cursor();
    if (cursor) params.set('since', cursor);
    if (pair.thread_id) params.set('thread', pair.thread_id);
    return `${this.base()}/v1/sync/changes?${params.toString()}`;
  }

  /** The page `body` if it verifies against the pair's request as it stands now; a PairError otherwise. */
  private async verified(body: unknown): Promise<SyncPage> {
    const pair = this.deps.pair();
    const peerKeys = this.deps.peerKeys;
    const expectation = () => ({ peerDid: pair.peer_did, since: this.deps.cursor() ?? '', targetNamespace: pair.target_namespace, thread: pair.thread_id, ...(peerKeys ? { keys: peerKeys.acceptable(pair.peer_did) } : {}) });
    try {
      try {
        return verifyPage(body, expectation());
      } catch (error) {
        if (!peerKeys || !(error instanceof PairError) || error.code !== 'SIGNATURE_INVALID') throw error;
        // No key in force verifies it: an expired key is refused as such; otherwise the peer may have rotated,
        // so its manifest is refetched once and a new key followed only through the pinned key's countersignature.
        const page = body as SyncPage;
        const verdict = await peerKeys.verify(pair.peer_did, (key) => pageProblem(page, pair.peer_did, [key]) === null, pair.peer_url);
        if (!verdict.ok) throw verdict.code === 'SIGNATURE_INVALID' ? error : new PairError(verdict.code, `${verdict.message}; nothing of the page is accepted`);
        return verifyPage(body, expectation());
      }
    } catch (error) {
      const rejected = (body as { records?: unknown } | null)?.records;
      const count = Math.max(1, Array.isArray(rejected) ? rejected.length : 0);
      if (error instanceof PairError && error.code in REJECT_REASON) this.deps.rejected(REJECT_REASON[error.code as keyof typeof REJECT_REASON], count);
      throw error;
    }
  }

  /** The next page after the pair's cursor, verified: at once (`normal`) or held by the peer until it has news (`longpoll`). */
  async page(feed: 'normal' | 'longpoll'): Promise<SyncPage> {
    const answer = await this.fetchJson(this.changesUrl(feed), feed === 'longpoll' ? this.deps.options.longpollTimeoutMs + 30_000 : 60_000, true);
    if (answer.status !== 200) throw this.httpError(answer.status, answer.body, 'GET /v1/sync/changes');
    return this.verified(answer.body);
  }

  /**
   * The continuous feed: hands each event's page, verified, to `onPage` in
   * order, until the connection ends. Each page is verified against the
   * cursor as `onPage` left it, so a dropped, replayed or reordered event
   * stops the stream; so does a page `onPage` throws on. Resolves when the
   * peer ends the stream; rejects with the first failure (a page's, not the
   * abort it caused).
   */
  async stream(onPage: (page: SyncPage) => Promise<void>): Promise<void> {
    const controller = this.begin();
    let timedOut = false;
    let failure: unknown = null;
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
      const answer = await untilAborted(fetch(this.changesUrl('continuous'), { headers: { authorization: `Bearer ${this.deps.token()}`, accept: 'text/event-stream' }, signal: controller.signal }), controller.signal);
      if (answer.status !== 200 || !answer.body) {
        const text = await untilAborted(answer.text(), controller.signal).catch(() => '');
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
              await onPage(await this.verified(parsePeerJson(event.data, 'a continuous changes event')));
            } catch (error) {
              failure = error;
              controller.abort();
            }
          });
        },
      });
      const decoder = new TextDecoder();
      const reader = answer.body.getReader();
      try {
        for (;;) {
          const { done, value } = await untilAborted(reader.read(), controller.signal);
          if (done) break;
          watchdog();
          parser.feed(decoder.decode(value, { stream: true }));
          // Back-pressure: do not read further ahead than the pages being stored.
          await chain;
          if (failure) break;
        }
      } finally {
        reader.cancel().catch(() => undefined);
      }
      await chain;
      if (failure) throw failure;
    } catch (error) {
      // A page that failed aborts the connection, and the read then rejects with the abort: report the page's failure, not the abort.
      throw pairErrorOf(failure ?? error, timedOut && !failure);
    } finally {
      if (idle) clearTimeout(idle);
      if (this.inflight === controller) this.inflight = null;
    }
  }
}
