/**
 * Sync pair lifecycle records on the reserved control thread
 * `th_federation_pairs` (spec §2.8): the registry is their fold
 * (pair-registry-fold.ts). Bodies carry the pair's settings and who acted,
 * never the peer bearer (that lives in PairKeeping, sealed on a shared log).
 */
import type { LoomRecord } from '../../core/records/record.js';

export const PAIR_KIND = 'core.sync.pair.v1';
/**
 * `kicked` changes nothing in the registry: it asks the server running the pair to pull now.
 * `updated` changes the mode and poll interval (a federation pair's set-mode / set-poll-interval).
 */
export type PairEvent = 'created' | 'paused' | 'resumed' | 'kicked' | 'updated' | 'deleted';
/** `on-demand` pulls once when the runner starts, then only when kicked (a federation pair's refresh). */
export type PairMode = 'continuous' | 'longpoll' | 'polling' | 'on-demand';
export const PAIR_MODES: readonly PairMode[] = ['continuous', 'longpoll', 'polling', 'on-demand'];

export interface PairSettings {
  readonly pair_id: string;
  readonly peer_did: string;
  readonly peer_url: string;
  /** Only this thread is pulled; null: everything the peer token may read. */
  readonly thread_id: string | null;
  readonly target_namespace: string;
  readonly mode: PairMode;
  readonly poll_interval_ms: number;
  readonly created_at: string;
}

export interface PairEntry extends PairSettings {
  readonly paused: boolean;
}

/** Applies one lifecycle record to the registry (a map by pair id). */
export function applyPairRecord(pairs: Map<string, PairEntry>, record: LoomRecord): void {
  const body = record.body as Record<string, unknown>;
  if (body['kind'] !== PAIR_KIND || typeof body['pair_id'] !== 'string') return;
  const id = body['pair_id'];
  switch (body['event']) {
    case 'created': {
      const settings = body['pair'] as PairSettings | undefined;
      if (settings && typeof settings === 'object' && settings.pair_id === id) pairs.set(id, { ...settings, paused: false });
      return;
    }
    case 'paused':
    case 'resumed': {
      const entry = pairs.get(id);
      if (entry) pairs.set(id, { ...entry, paused: body['event'] === 'paused' });
      return;
    }
    case 'updated': {
      const entry = pairs.get(id);
      if (!entry) return;
      const mode = (PAIR_MODES as readonly unknown[]).includes(body['mode']) ? (body['mode'] as PairMode) : entry.mode;
      const interval = typeof body['poll_interval_ms'] === 'number' && Number.isInteger(body['poll_interval_ms']) && body['poll_interval_ms'] > 0 ? body['poll_interval_ms'] : entry.poll_interval_ms;
      pairs.set(id, { ...entry, mode, poll_interval_ms: interval });
      return;
    }
    case 'deleted':
      pairs.delete(id);
      return;
  }
}
