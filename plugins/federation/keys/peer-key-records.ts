/**
 * The key this instance pinned for each peer: a `federation.peer_key.v1`
 * LEARN record on `th_federation_pairs` each time it follows a peer's
 * rotation (written by the instance; control-records-gate.ts keeps everyone
 * else out), folded into a table by peer DID. The record carries the whole
 * verified chain, so the log shows why the new key was accepted, and every
 * server of a shared log pins the same key. A peer never rotated has no
 * record: its DID's own key is the pin.
 */
import type { Fold } from '../../../core/folds/fold.js';
import type { LoomRecord } from '../../../core/records/record.js';
import { TH_FEDERATION_PAIRS } from '../../../core/records/reserved-threads.js';
import { parseKeyChain, type KeyChain } from './key-chain.js';

export const PEER_KEY_KIND = 'federation.peer_key.v1';

export type PeerKeyTable = Map<string, KeyChain>;

export function applyPeerKeyRecord(table: PeerKeyTable, record: LoomRecord): void {
  const body = record.body as Record<string, unknown>;
  if (body['kind'] !== PEER_KEY_KIND || typeof body['peer_did'] !== 'string') return;
  const did = body['peer_did'];
  let chain: KeyChain;
  try {
    // Re-checked on apply: a record that does not verify (a log imported without the gate) pins nothing.
    chain = parseKeyChain(did, body['keys']);
  } catch {
    return;
  }
  // Only forward: a chain that does not descend from the pin in force is ignored, whatever the log order.
  const pinned = table.get(did);
  if (pinned && pinned.current !== chain.current && !chain.previous.some((link) => link.key === pinned.current)) return;
  table.set(did, chain);
}

export const peerKeysFold: Fold<PeerKeyTable, Array<{ peer_did: string; key: string; previous: number }>> = {
  name: 'federation_peer_keys',
  scope: 'global',
  description: "The signing key this instance pinned for each peer that rotated its key (th_federation_pairs, federation.peer_key.v1), with the peer's verified key chain.",
  threads: [TH_FEDERATION_PAIRS],
  initial: () => new Map(),
  apply(state, input) {
    applyPeerKeyRecord(state, input.record);
    return state;
  },
  value: (state) => [...state].map(([peer_did, chain]) => ({ peer_did, key: chain.current, previous: chain.previous.length })),
};
