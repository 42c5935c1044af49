/**
 * The receiver's side of the relay: this instance polls its mailbox at every
 * relay configured in `federation.relay` (each at its `poll_interval_ms`),
 * whatever the state of its pulls, because it cannot know when a peer
 * decided its pulls had stopped arriving. Each envelope is checked end to
 * end before anything of it is stored (envelope.ts): addressed to this
 * instance; from the pinned DID of a federation pair that is active or
 * degraded here; its id the hash of its content; its signature by the
 * sender's instance key; every record hashing to its id; its request the
 * target namespace and thread this side's sync pair pulls with. Its records
 * then go through the same RecordReceiver as a pull (core recomputes every
 * id; a replay is deduplicated by content hash, so switching between relay
 * and direct pulls loses and duplicates nothing). When the envelope
 * continues from at or before the sync pair's own cursor, that cursor moves
 * to the envelope's source cursor, so the next direct pull resumes after it.
 *
 * Every envelope is acked once it is decided, taken or rejected: a rejected
 * one is reported (the warning log, `GET /v1/federation/relay` `rejected`,
 * kept in the data directory), and the pair's cursor stays before it, so its
 * records come by the next direct pull instead. An envelope from a pair that
 * is paused here is left in the mailbox for later.
 */
import { readFile, writeFile, rename, mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { SYSTEM } from '../../../core/access/caller.js';
import type { Logger } from '../../../core/plugin/logger.js';
import { decodeFeedCursor } from '../feed-cursor.js';
import type { FederationPair } from '../handshake/federation-pair.js';
import type { PairEntry } from '../pair-records.js';
import type { PairKeeping } from '../pair-keeping.js';
import { parsePeerJson } from '../peer-json.js';
import type { RecordReceiver } from '../record-receiver.js';
import { envelopeProblem, envelopeSigningKeys, type MailboxEnvelope } from './envelope.js';
import type { KeyChain } from '../keys/key-chain.js';
import type { PeerKeys } from '../keys/peer-keys.js';
import { mailboxProofHeaders } from './mailbox-proof.js';
import type { RelaySettings } from './relay-config.js';
import { untilAborted } from '../until-aborted.js';

const BATCH = 20;
const BATCHES_PER_TICK = 100;
const REPORT_KEEP = 200;
const REQUEST_TIMEOUT_MS = 30_000;

export interface RejectedEnvelope {
  readonly envelope_id: string;
  readonly relay_url: string;
  readonly sender: string | null;
  readonly code: string;
  readonly message: string;
  /** The source positions it covered, when it could be read. */
  readonly since: string | null;
  readonly next_cursor: string | null;
  readonly records: number;
  readonly at: string;
}

export interface InboxState {
  relay_url: string;
  last_poll_at: string | null;
  last_error: { code: string; message: string; at: string } | null;
  envelopes_taken: number;
  envelopes_rejected: number;
  records_accepted: number;
  records_deduplicated: number;
}

export interface RelayInboxDeps {
  readonly pairs: () => FederationPair[];
  readonly registry: () => ReadonlyMap<string, PairEntry>;
  readonly files: PairKeeping;
  readonly receiver: RecordReceiver;
  readonly key: { did: string; sign(message: Uint8Array): Uint8Array; chain?(): KeyChain };
  /** The keys trusted for each peer (key rotation); without it, a peer's DID key only. */
  readonly peerKeys?: Pick<PeerKeys, 'pinned' | 'acceptable'>;
  readonly settings: RelaySettings;
  readonly reportFile: string | null;
  readonly log: Logger;
  readonly now: () => number;
}

interface Delivered {
  readonly id: string;
  readonly envelope: unknown;
}

export class RelayInbox {
  private readonly states = new Map<string, InboxState>();
  /** When each relay was last polled; due again after the interval in force now (a shortened interval applies at once). */
  private readonly polledAt = new Map<string, number>();
  private rejected: RejectedEnvelope[] = [];
  private loaded = false;

  constructor(private readonly deps: RelayInboxDeps) {}

  view(): { receiving: InboxState[]; rejected: RejectedEnvelope[] } {
    return { receiving: [...this.states.values()], rejected: [...this.rejected] };
  }

  private async load(): Promise<void> {
    if (this.loaded) return;
    this.loaded = true;
    if (!this.deps.reportFile) return;
    try {
      this.rejected = JSON.parse(await readFile(this.deps.reportFile, 'utf8')) as RejectedEnvelope[];
    } catch {
      this.rejected = [];
    }
  }

  async tick(): Promise<void> {
    await this.load();
    const urls = new Map<string, number>();
    for (const relay of this.deps.settings.relays()) urls.set(relay.url, Math.min(urls.get(relay.url) ?? Infinity, relay.poll_interval_ms));
    for (const [url, interval] of urls) {
      const now = this.deps.now();
      if (now - (this.polledAt.get(url) ?? -Infinity) < interval) continue;
      this.polledAt.set(url, now);
      const state = this.stateOf(url);
      try {
        await this.drain(url, state);
        state.last_error = null;
      } catch (error) {
        const code = (error as { code?: string }).code ?? 'RELAY_UNREACHABLE';
        if (state.last_error?.code !== code) this.deps.log.log('warn', 'federation relay: mailbox poll failed', { relay: url, code, message: String((error as Error).message) });
        state.last_error = { code, message: String((error as Error).message), at: new Date(this.deps.now()).toISOString() };
      }
    }
  }

  private stateOf(url: string): InboxState {
    let state = this.states.get(url);
    if (!state) {
      state = { relay_url: url, last_poll_at: null, last_error: null, envelopes_taken: 0, envelopes_rejected: 0, records_accepted: 0, records_deduplicated: 0 };
      this.states.set(url, state);
    }
    return state;
  }

  private async call(url: string, method: 'GET' | 'POST', path: string, body?: unknown): Promise<unknown> {
    const headers: Record<string, string> = { ...mailboxProofHeaders(this.deps.key, method, path, body, this.deps.now()), ...(body !== undefined ? { 'content-type': 'application/json' } : {}) };
    const signal = AbortSignal.timeout(REQUEST_TIMEOUT_MS);
    const answer = await untilAborted(fetch(`${url}${path}`, { method, headers, ...(body !== undefined ? { body: JSON.stringify(body) } : {}), signal }), signal);
    const text = await untilAborted(answer.text(), signal);
    if (answer.status !== 200) {
      let code = `HTTP_${answer.status}`;
      try {
        code = (JSON.parse(text) as { code?: string }).code ?? code;
      } catch {
        // The status is all there is.
      }
      throw Object.assign(new Error(`the relay answered ${answer.status} ${code} to ${method} ${path}`), { code });
    }
    return parsePeerJson(text, 'the relay answer');
  }

  /** Receives, decides and acks batches until the mailbox is empty (or the per-tick budget). */
  private async drain(url: string, state: InboxState): Promise<void> {
    const base = `/v1/mailbox/${encodeURIComponent(this.deps.key.did)}`;
    for (let batch = 0; batch < BATCHES_PER_TICK; batch++) {
      const answer = (await this.call(url, 'GET', `${base}/receive`)) as { envelopes?: unknown; has_more?: unknown };
      state.last_poll_at = new Date(this.deps.now()).toISOString();
      const items = Array.isArray(answer.envelopes) ? (answer.envelopes as Delivered[]) : [];
      const decided: string[] = [];
      for (const item of items) {
        if (typeof item?.id !== 'string') continue;
        if (await this.take(url, state, item)) decided.push(item.id);
      }
      if (decided.length > 0) await this.call(url, 'POST', `${base}/ack`, { ids: decided });
      if (answer.has_more !== true || decided.length === 0) return;
    }
  }

  /** True when the envelope is decided (taken or rejected) and may be acked. */
  private async take(url: string, state: InboxState, item: Delivered): Promise<boolean> {
    const value = item.envelope as Partial<MailboxEnvelope> | null;
    const sender = typeof value?.sender === 'string' ? value.sender : null;
    const reject = (code: string, message: string) => {
      this.reject(url, state, item.id, value, sender, code, message);
      return true;
    };
    if (value === null || typeof value !== 'object') return reject('ENVELOPE_MALFORMED', 'the relay served no readable envelope under this id');
    if (value.id !== item.id) return reject('ENVELOPE_ID_MISMATCH', `the relay served envelope ${String(value.id)} under the id ${item.id}`);
    if (value.receiver !== this.deps.key.did) return reject('MISADDRESSED', `the envelope is addressed to ${String(value.receiver)}, not to this instance`);
    const pair = this.deps.pairs().find((p) => p.peer_did === sender && p.state !== 'revoked' && p.state !== 'establishing');
    if (!pair) return reject('UNKNOWN_SENDER', `no federation pair here has the peer ${String(sender)}`);
    if (pair.state === 'paused') return false;
    const peerKeys = this.deps.peerKeys;
    // A rotated sender's envelope carries its chain: it must descend from the key pinned for the peer.
    const problem = envelopeProblem(value, pair.peer_did, (envelope) =>
      envelope.sender_keys !== undefined ? envelopeSigningKeys(envelope, this.deps.now(), peerKeys?.pinned(pair.peer_did) ?? pair.peer_did) : (peerKeys?.acceptable(pair.peer_did) ?? [pair.peer_did]),
    );
    if (problem) return reject(problem.code, problem.message);
    const envelope = value as MailboxEnvelope;
    const entry = this.deps.registry().get(pair.sync_pair_id);
    if (!entry) return reject('UNKNOWN_SENDER', `federation pair ${pair.pair_id} has no sync pair here`);
    if (envelope.request.target_namespace !== entry.target_namespace || envelope.request.thread !== entry.thread_id) {
      return reject('UNREQUESTED_PAGE', `the envelope answers target ${envelope.request.target_namespace} thread ${String(envelope.request.thread)}; this pair pulls ${entry.target_namespace} thread ${String(entry.thread_id)}`);
    }
    const outcome = await this.deps.receiver.receive(
      envelope.records.map((e) => e.record),
      { caller: SYSTEM, via: 'federation' },
      { origin: pair.peer_did, via: 'pull', pair_id: entry.pair_id },
      { stopAtRefusal: true },
    );
    state.records_accepted += outcome.accepted.length;
    state.records_deduplicated += outcome.deduplicated.length;
    if (outcome.stoppedAt !== null) {
      const refused = outcome.refused[outcome.refused.length - 1]!;
      return reject('RECORD_REFUSED', `record ${refused.id} was refused here (${refused.code}); ${outcome.stoppedAt} record(s) before it were stored`);
    }
    state.envelopes_taken++;
    this.advance(entry.pair_id, envelope);
    return true;
  }

  /** Moves the sync pair's cursor to the envelope's source cursor when the envelope covers everything after it. */
  private advance(syncPairId: string, envelope: MailboxEnvelope): void {
    try {
      const held = this.deps.files.cursor(syncPairId) ?? '';
      const since = envelope.request.since ?? '';
      if (decodeFeedCursor(since) <= decodeFeedCursor(held) && decodeFeedCursor(envelope.next_cursor) > decodeFeedCursor(held)) this.deps.files.setCursor(syncPairId, envelope.next_cursor);
    } catch {
      // A cursor this side cannot read: leave the pull's own cursor alone (its records are stored, deduplicated later).
    }
  }

  private reject(url: string, state: InboxState, id: string, value: Partial<MailboxEnvelope> | null, sender: string | null, code: string, message: string): void {
    state.envelopes_rejected++;
    const report: RejectedEnvelope = {
      envelope_id: id,
      relay_url: url,
      sender,
      code,
      message,
      since: typeof value?.request?.since === 'string' ? value.request.since : null,
      next_cursor: typeof value?.next_cursor === 'string' ? value.next_cursor : null,
      records: Array.isArray(value?.records) ? value.records.length : 0,
      at: new Date(this.deps.now()).toISOString(),
    };
    this.rejected = [...this.rejected, report].slice(-REPORT_KEEP);
    this.deps.log.log('warn', 'federation relay: envelope rejected', { envelope_id: id, relay: url, sender, code, message });
    void this.saveReport();
  }

  private async saveReport(): Promise<void> {
    if (!this.deps.reportFile) return;
    try {
      await mkdir(dirname(this.deps.reportFile), { recursive: true });
      await writeFile(`${this.deps.reportFile}.tmp`, JSON.stringify(this.rejected));
      await rename(`${this.deps.reportFile}.tmp`, this.deps.reportFile);
    } catch (error) {
      this.deps.log.log('error', 'federation relay: the rejection report could not be saved', { error: String(error) });
    }
  }
}
