/**
 * The sender's side of the relay. Loom's pairs are pull-based: the peer pulls
 * this instance's changes feed with the token minted for it. "Direct
 * delivery fails" therefore means the peer's pulls stop arriving: no read by
 * the pair's token, and no feed of it held open, for `silence_ms` (default
 * 3 × the pair's poll interval, at least 60 s). While a pair is silent and a
 * relay is configured for its peer, each tick wraps the pages the peer would
 * have pulled (the same consent filter, the peer's token's scopes, its last
 * target namespace and thread) into signed envelopes and deposits them at
 * `POST {relay}/v1/mailbox/{peer-did}`. It starts from the cursor the peer
 * last asked for (or where this side's deposits reached, whichever is
 * further) and keeps its own push cursor in the data directory, with the
 * peer's last request (cursor, target namespace, thread): after a restart,
 * before the peer has asked anything again, deposits go on from there, for
 * the namespace and thread the peer reads, not from the log's start. Once the
 * peer pulls again, deposits stop; the peer's own cursor has moved with the
 * envelopes it took, so nothing is fetched twice that need not be.
 */
import { readFile, writeFile, rename, mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { credentialCaller } from '../../../core/access/caller.js';
import type { Logger } from '../../../core/plugin/logger.js';
import type { ChangesFeed } from '../changes-feed.js';
import { decodeFeedCursor } from '../feed-cursor.js';
import type { FederationPair } from '../handshake/federation-pair.js';
import { sealEnvelope } from './envelope.js';
import { MIN_DEFAULT_SILENCE_MS, type RelaySettings } from './relay-config.js';
import { untilAborted } from '../until-aborted.js';

/** Records per envelope: well under the relay's 1 MiB body limit for ordinary records. */
export const ENVELOPE_RECORDS = 500;
/** An envelope's JSON at most: the deposit route takes 4 MiB. */
const ENVELOPE_MAX_BYTES = 3.5 * 1024 * 1024;
/** Envelopes one pair deposits per tick at most (the rest on the next tick). */
const ENVELOPES_PER_TICK = 40;
const DEPOSIT_TIMEOUT_MS = 15_000;

/** What the peer's last read of this instance asked for (PeerContact). */
export interface PeerRead {
  readonly at: number;
  readonly since: string;
  readonly target_namespace: string;
  readonly thread: string | null;
}

export interface RelaySenderDeps {
  readonly pairs: () => FederationPair[];
  readonly feed: ChangesFeed;
  readonly key: { did: string; sign(message: Uint8Array): Uint8Array };
  readonly settings: RelaySettings;
  readonly lastRead: (accountId: string) => PeerRead | undefined;
  readonly feedOpen: (accountId: string) => boolean;
  readonly defaultPollMs: number;
  /** Where push cursors are kept; null: memory only. */
  readonly stateFile: string | null;
  readonly log: Logger;
  readonly now: () => number;
}

export interface PushState {
  pair_id: string;
  peer_did: string;
  relay_url: string | null;
  pushing: boolean;
  push_cursor: string | null;
  envelopes_deposited: number;
  records_deposited: number;
  last_deposit_at: string | null;
  last_error: { code: string; message: string; at: string } | null;
}

export class RelaySender {
  private readonly states = new Map<string, PushState>();
  private readonly startedAt: number;
  /** What each pair's peer last asked for, kept across restarts (PeerContact's memory is not): where a first deposit starts. */
  private readonly savedReads = new Map<string, Omit<PeerRead, 'at'>>();
  private loaded = false;

  constructor(private readonly deps: RelaySenderDeps) {
    this.startedAt = deps.now();
  }

  view(): PushState[] {
    return [...this.states.values()];
  }

  private async load(): Promise<void> {
    if (this.loaded) return;
    this.loaded = true;
    if (!this.deps.stateFile) return;
    try {
      const saved = JSON.parse(await readFile(this.deps.stateFile, 'utf8')) as Record<string, string | { push_cursor: string | null; peer_read: Omit<PeerRead, 'at'> | null }>;
      for (const [pairId, entry] of Object.entries(saved)) {
        const state = this.state(pairId, '');
        // A file of an earlier Loom holds the push cursor alone.
        if (typeof entry === 'string') {
          state.push_cursor = entry;
          continue;
        }
        state.push_cursor = typeof entry?.push_cursor === 'string' ? entry.push_cursor : null;
        if (entry?.peer_read && typeof entry.peer_read.since === 'string') this.savedReads.set(pairId, entry.peer_read);
      }
    } catch {
      // First start, or an unreadable file: start from what the peer last asked for.
    }
  }

  private async save(): Promise<void> {
    if (!this.deps.stateFile) return;
    const cursors = Object.fromEntries([...this.states.values()].map((s) => [s.pair_id, { push_cursor: s.push_cursor, peer_read: this.savedReads.get(s.pair_id) ?? null }]));
    await mkdir(dirname(this.deps.stateFile), { recursive: true });
    await writeFile(`${this.deps.stateFile}.tmp`, JSON.stringify(cursors));
    await rename(`${this.deps.stateFile}.tmp`, this.deps.stateFile);
  }

  private state(pairId: string, peerDid: string): PushState {
    let state = this.states.get(pairId);
    if (!state) {
      state = { pair_id: pairId, peer_did: peerDid, relay_url: null, pushing: false, push_cursor: null, envelopes_deposited: 0, records_deposited: 0, last_deposit_at: null, last_error: null };
      this.states.set(pairId, state);
    }
    if (peerDid) state.peer_did = peerDid;
    return state;
  }

  async tick(): Promise<void> {
    await this.load();
    for (const pair of this.deps.pairs()) {
      // A paused pair serves nothing, by relay or not; a revoked or establishing one has no peer to serve.
      if ((pair.state !== 'active' && pair.state !== 'degraded') || !pair.issued) continue;
      const relay = this.deps.settings.relayFor(pair.peer_did);
      const state = this.state(pair.pair_id, pair.peer_did);
      state.relay_url = relay?.url ?? null;
      if (!relay) {
        state.pushing = false;
        continue;
      }
      const account = pair.issued.service_account_id;
      const live = this.deps.lastRead(account) ?? (pair.previous_issued ? this.deps.lastRead(pair.previous_issued.service_account_id) : undefined);
      if (live) {
        const known = this.savedReads.get(pair.pair_id);
        if (!known || known.since !== live.since || known.target_namespace !== live.target_namespace || known.thread !== live.thread) {
          this.savedReads.set(pair.pair_id, { since: live.since, target_namespace: live.target_namespace, thread: live.thread });
          await this.save();
        }
      }
      // After a restart, silence counts from the start; the peer's last request is the saved one.
      const saved = this.savedReads.get(pair.pair_id);
      const read: PeerRead | undefined = live ?? (saved ? { ...saved, at: this.startedAt } : undefined);
      const silenceMs = relay.silence_ms ?? Math.max(MIN_DEFAULT_SILENCE_MS, 3 * (pair.poll_interval_ms ?? this.deps.defaultPollMs));
      const silent = !this.deps.feedOpen(account) && this.deps.now() - (read?.at ?? this.startedAt) >= silenceMs;
      state.pushing = silent;
      if (!silent) continue;
      try {
        await this.push(pair, relay.url, state, read);
      } catch (error) {
        const code = (error as { code?: string }).code ?? 'RELAY_UNREACHABLE';
        if (state.last_error?.code !== code) this.deps.log.log('warn', 'federation relay: deposit failed', { pair_id: pair.pair_id, relay: relay.url, code, message: String((error as Error).message) });
        state.last_error = { code, message: String((error as Error).message), at: new Date(this.deps.now()).toISOString() };
      }
    }
  }

  /** Deposits the pages after the push cursor until caught up (or the per-tick budget). */
  private async push(pair: FederationPair, relayUrl: string, state: PushState, read: PeerRead | undefined): Promise<void> {
    const peerSince = read?.since ?? '';
    let cursor = state.push_cursor !== null && safeDecode(state.push_cursor) >= safeDecode(peerSince) ? state.push_cursor : peerSince;
    let after = safeDecode(cursor);
    const caller = credentialCaller({ scopes: pair.scopes, claims: { 'federation.relay_for': pair.pair_id } });
    const targetNamespace = read?.target_namespace ?? 'default';
    const thread = read?.thread ?? null;
    let limit = ENVELOPE_RECORDS;
    // Bounded per tick: deposits, and pages scanned (a long run of records withheld from this peer is scanned over several ticks).
    for (let deposited = 0, pages = 0; deposited < ENVELOPES_PER_TICK && pages < 4 * ENVELOPES_PER_TICK; pages++) {
      const page = await this.deps.feed.page({ caller, since: cursor, after, limit, targetNamespace, ...(thread ? { thread } : {}) });
      const envelope = page.records.length > 0 ? sealEnvelope(this.deps.key, pair.peer_did, page) : null;
      const text = envelope ? JSON.stringify(envelope) : '';
      if (envelope && Buffer.byteLength(text) > ENVELOPE_MAX_BYTES && page.records.length > 1) {
        // Large records: fewer per envelope, so each stays under the relay's body limit.
        limit = Math.max(1, Math.floor(page.records.length / 2));
        continue;
      }
      limit = ENVELOPE_RECORDS;
      if (!envelope) {
        // Only withheld records: scan on, but keep `since` where the last deposit ended so the chain has no hole.
        if (!page.has_more) break;
        after = safeDecode(page.next_cursor);
        continue;
      }
      await this.deposit(relayUrl, pair.peer_did, text);
      deposited++;
      state.envelopes_deposited++;
      state.records_deposited += page.records.length;
      state.last_deposit_at = new Date(this.deps.now()).toISOString();
      state.last_error = null;
      cursor = page.next_cursor;
      after = safeDecode(cursor);
      state.push_cursor = cursor;
      await this.save();
      if (!page.has_more) break;
    }
  }

  private async deposit(relayUrl: string, receiver: string, body: string): Promise<void> {
    const signal = AbortSignal.timeout(DEPOSIT_TIMEOUT_MS);
    const answer = await untilAborted(fetch(`${relayUrl}/v1/mailbox/${encodeURIComponent(receiver)}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body, signal }), signal);
    if (answer.status === 202) {
      await untilAborted(answer.arrayBuffer(), signal);
      return;
    }
    const text = await untilAborted(answer.text(), signal);
    let code = `HTTP_${answer.status}`;
    try {
      code = (JSON.parse(text) as { code?: string }).code ?? code;
    } catch {
      // Not our error envelope: the status says enough.
    }
    throw Object.assign(new Error(`the relay answered ${answer.status} ${code}`), { code });
  }
}

function safeDecode(cursor: string): number {
  try {
    return decodeFeedCursor(cursor);
  } catch {
    return 0;
  }
}
