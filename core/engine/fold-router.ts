/**
 * Which global folds a record reaches, found in constant time rather than by
 * asking every fold. A fold says what it applies to (core/folds/fold.ts):
 * `threads` (only those), `kinds` (only records whose `body.kind` is one of
 * them) and `ignoresSystemThreads`. Each fold lands in exactly one bucket:
 *
 * - by thread, for folds with `threads` (a record looks up its own thread);
 * - by kind, for the other folds with `kinds` (a record looks up its kind);
 * - open, for the rest, which see every record (system threads aside when
 *   they ignore them).
 *
 * So a record costs a fold nothing unless it could change it: the agent
 * plugins' folds (runs, grades, memories, files) never see a plain record.
 * Within a bucket the remaining checks (a threaded fold's kinds, an open
 * fold's system threads) are per fold, over the few folds the lookup found.
 */
import type { LoomRecord } from '../records/record.js';
import type { SystemThreads } from './system-threads.js';
import type { GlobalFoldSlot } from './global-fold-slot.js';

interface Routed {
  readonly slot: GlobalFoldSlot;
  /** The fold's kinds, or null for every kind. */
  readonly kinds: ReadonlySet<string> | null;
  readonly skipsSystem: boolean;
}

const NONE: readonly Routed[] = [];

export class FoldRouter {
  private readonly byThread = new Map<string, Routed[]>();
  private readonly byKind = new Map<string, Routed[]>();
  private readonly open: Routed[] = [];

  constructor(
    slots: Iterable<GlobalFoldSlot>,
    private readonly systemThreads: SystemThreads,
  ) {
    for (const slot of slots) {
      const { threads, kinds, ignoresSystemThreads } = slot.fold;
      const routed: Routed = { slot, kinds: kinds ? new Set(kinds) : null, skipsSystem: ignoresSystemThreads === true };
      if (threads) for (const thread of new Set(threads)) push(this.byThread, thread, routed);
      else if (kinds) for (const kind of new Set(kinds)) push(this.byKind, kind, routed);
      else this.open.push(routed);
    }
  }

  /** Calls `visit` for every fold `record` reaches, each once. */
  route(record: LoomRecord, visit: (slot: GlobalFoldSlot) => void): void {
    const kind = record.body['kind'];
    for (const routed of this.byThread.get(record.thread) ?? NONE) {
      if (routed.kinds === null || (typeof kind === 'string' && routed.kinds.has(kind))) visit(routed.slot);
    }
    const system = this.open.length > 0 || typeof kind === 'string' ? this.systemThreads.has(record.thread) : false;
    if (typeof kind === 'string') {
      for (const routed of this.byKind.get(kind) ?? NONE) if (!(routed.skipsSystem && system)) visit(routed.slot);
    }
    for (const routed of this.open) if (!(routed.skipsSystem && system)) visit(routed.slot);
  }
}

function push(index: Map<string, Routed[]>, key: string, routed: Routed): void {
  const list = index.get(key);
  if (list) list.push(routed);
  else index.set(key, [routed]);
}
