/**
 * The relay's configuration records (spec §2.9, LEARN on th_engine_config):
 * - `federation.relay` (keyed by `for_pair`, a peer DID or `all`): the relay
 *   this instance deposits envelopes at for that peer and polls its own
 *   mailbox at. Lookup is most specific first: the exact peer DID, else
 *   `all`; `enabled: false` turns an entry off. Two optional timings:
 *   `silence_ms`, how long the peer may go without pulling before this side
 *   deposits for it (default 3 × the pair's poll interval, at least a
 *   minute), and `poll_interval_ms`, how often the mailbox is polled
 *   (default 30 s). They are read at every tick, so no restart is needed.
 * - `federation.relay_mailbox` (single): whether this instance serves
 *   mailboxes for others (`serve`, off by default), with the per-receiver
 *   cap (`max_envelopes`, default 10,000) and the TTL (`ttl_seconds`,
 *   default 30 days).
 */
import { Type } from 'typebox';
import { defineConfigTopic, type Config } from '../../../core/folds/config/config-topic.js';

export const relayTopic = defineConfigTopic({
  topic: 'federation.relay',
  description:
    'The relay mailbox for a peer (for_pair: its DID, or all): url of a Loom instance serving mailboxes; enabled (default true). ' +
    'When the peer has not pulled for silence_ms (default 3 × the pair poll interval, at least 60 s) this instance deposits signed envelopes there; ' +
    'it polls its own mailbox there every poll_interval_ms (default 30000).',
  schema: Type.Object(
    {
      url: Type.String({ pattern: '^https?://[^\\s/]+(/[^\\s]*)?$', maxLength: 2048, examples: ['https://relay.example.org'] }),
      for_pair: Type.String({ pattern: '^(all|did:[a-z0-9]+:[A-Za-z0-9._:%-]+)$', maxLength: 256, examples: ['all'] }),
      enabled: Type.Optional(Type.Boolean()),
      silence_ms: Type.Optional(Type.Integer({ minimum: 100, maximum: 30 * 86_400_000 })),
      poll_interval_ms: Type.Optional(Type.Integer({ minimum: 50, maximum: 86_400_000 })),
    },
    { additionalProperties: false },
  ),
  keyedBy: 'for_pair',
});

export const relayMailboxTopic = defineConfigTopic({
  topic: 'federation.relay_mailbox',
  description:
    'Whether this instance serves relay mailboxes for other instances (serve, default false), ' +
    'at most max_envelopes per receiver (default 10000; more is 507 MAILBOX_FULL) kept ttl_seconds (default 30 days).',
  schema: Type.Object(
    {
      serve: Type.Boolean(),
      max_envelopes: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000 })),
      ttl_seconds: Type.Optional(Type.Integer({ minimum: 1, maximum: 365 * 86_400 })),
    },
    { additionalProperties: false },
  ),
  keyedBy: 'single',
});

export const DEFAULT_MAX_ENVELOPES = 10_000;
export const DEFAULT_TTL_SECONDS = 30 * 86_400;
export const DEFAULT_RELAY_POLL_MS = 30_000;
export const MIN_DEFAULT_SILENCE_MS = 60_000;

export interface RelayTarget {
  readonly url: string;
  readonly for_pair: string;
  readonly silence_ms: number | null;
  readonly poll_interval_ms: number;
}

export interface RelaySettings {
  /** The relay for a peer: its own entry, else `all`; null when none is configured or it is disabled. */
  relayFor(peerDid: string): RelayTarget | null;
  /** Every enabled entry (the mailboxes this instance polls). */
  relays(): RelayTarget[];
  serving(): { serve: boolean; maxEnvelopes: number; ttlMs: number };
}

export function relaySettings(config: Config | null): RelaySettings {
  const entries = (): RelayTarget[] =>
    Object.values(config?.keyed(relayTopic) ?? {})
      .filter((entry) => entry.enabled !== false)
      .map((entry) => ({ url: entry.url.replace(/\/+$/, ''), for_pair: entry.for_pair, silence_ms: entry.silence_ms ?? null, poll_interval_ms: entry.poll_interval_ms ?? DEFAULT_RELAY_POLL_MS }));
  return {
    relayFor(peerDid) {
      const all = config?.keyed(relayTopic) ?? {};
      const entry = all[peerDid] ?? all['all'];
      if (!entry || entry.enabled === false) return null;
      return { url: entry.url.replace(/\/+$/, ''), for_pair: entry.for_pair, silence_ms: entry.silence_ms ?? null, poll_interval_ms: entry.poll_interval_ms ?? DEFAULT_RELAY_POLL_MS };
    },
    relays: entries,
    serving() {
      const entry = config?.single(relayMailboxTopic);
      return { serve: entry?.serve === true, maxEnvelopes: entry?.max_envelopes ?? DEFAULT_MAX_ENVELOPES, ttlMs: (entry?.ttl_seconds ?? DEFAULT_TTL_SECONDS) * 1000 };
    },
  };
}
