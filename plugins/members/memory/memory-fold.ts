/**
 * member_memory: every member's live memories, from the memory records on
 * the members' memory threads (memory.ts), so GET …/memories and export
 * answer from memory, not from the log. Per member, per name: the newest
 * created record, dropped again by a cancellation. A record whose thread is
 * not its member's memory thread is skipped (only the members plugin
 * writes the kind, memory-gate.ts; this keeps a stray record from
 * speaking for another member). Checkpointed: the fold reads every thread,
 * so without one each start would scan the whole log for it.
 */
import type { Fold } from '../../../core/folds/fold.js';
import { KIND_MEMORY, MEMORY_TYPES, memoryThread, type MemoryBody } from './memory.js';

export const MEMBER_MEMORY_FOLD = 'member_memory';

export interface MemoryEntry {
  /** The record in force. */
  readonly record: string;
  readonly sequence: number;
  /** Its receipt time, ISO 8601. */
  readonly at: string;
  readonly body: MemoryBody;
}

export interface MemoryState {
  /** Member DID → name → the memory in force. */
  readonly members: Map<string, Map<string, MemoryEntry>>;
}

const TYPES: ReadonlySet<string> = new Set(MEMORY_TYPES);

function memberOf(body: Record<string, unknown>): string | null {
  const meta = body['meta'] as Record<string, unknown> | undefined;
  return meta && typeof meta === 'object' && typeof meta['member'] === 'string' ? meta['member'] : null;
}

export const memberMemoryFold: Fold<MemoryState, { members: number; memories: number }> = {
  name: MEMBER_MEMORY_FOLD,
  scope: 'global',
  description: "Members' live memories (newest per name, cancellations applied), from the memory records on their memory threads.",
  ignoresSystemThreads: true,
  kinds: [KIND_MEMORY],
  initial: () => ({ members: new Map() }),
  apply(state, { record, sequence, createdAt }) {
    const body = record.body;
    if (body['kind'] !== KIND_MEMORY || typeof body['name'] !== 'string') return state;
    const member = memberOf(body);
    if (member === null || record.thread !== memoryThread(member)) return state;
    const name = body['name'];
    if (body['status'] === 'cancelled') {
      const live = state.members.get(member);
      live?.delete(name);
      if (live?.size === 0) state.members.delete(member);
      return state;
    }
    if (body['status'] !== 'created' || typeof body['memory_type'] !== 'string' || !TYPES.has(body['memory_type'])) return state;
    let live = state.members.get(member);
    if (!live) state.members.set(member, (live = new Map()));
    live.set(name, { record: record.id, sequence, at: new Date(createdAt ?? 0).toISOString(), body: body as unknown as MemoryBody });
    return state;
  },
  value(state) {
    let memories = 0;
    for (const live of state.members.values()) memories += live.size;
    return { members: state.members.size, memories };
  },
  checkpoint: {
    version: 1,
    save: (state) => [...state.members].map(([member, live]) => [member, [...live.values()]]),
    load: (saved) => {
      const rows = saved as Array<[string, MemoryEntry[]]>;
      if (!Array.isArray(rows)) throw new Error('not a member_memory checkpoint');
      return { members: new Map(rows.map(([member, entries]) => [member, new Map(entries.map((entry) => [entry.body.name, entry]))])) };
    },
  },
};
