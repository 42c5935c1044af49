/**
 * dispatches: every dispatch and what became of it, folded from the records
 * on dispatch threads. A dispatch is open until a record on its thread
 * fulfils or cancels it (`body.fulfills`/`body.cancels` = the dispatch id,
 * or a core.trigger.outcome.v1), or the engine records a delivery failure.
 * Any record on the thread by someone other than the engine acknowledges it.
 * TICK notes drift once per dispatch. Closed dispatches are kept for the
 * latest 1000; per-trigger firing history (count, last firing) for all.
 */
import { token } from '../../../core/di/token.js';
import type { Fold } from '../../../core/folds/fold.js';
import type { OwnFold } from '../../../core/plugin/own-fold.js';
import type { JsonObject } from '../../../core/records/json.js';
import { ENGINE_ACTOR, KIND_DISPATCH, KIND_DISPATCH_FAILED, KIND_DRIFT, KIND_TRIGGER_OUTCOME, originKey, type DispatchBudget, type DispatchOrigin } from './dispatch-kinds.js';

export const DISPATCH_FOLD = 'dispatches';
const CLOSED_KEPT = 1000;

export interface DispatchEntry {
  id: string;
  thread: string;
  sequence: number;
  target: string;
  goal: string;
  parent_thread: string;
  source: string | null;
  namespace: string;
  origin: DispatchOrigin;
  adapter: string;
  budget: DispatchBudget;
  dispatched_at: string;
  /** Unix ms after which an open dispatch is drift. */
  deadline_ms: number;
  status: 'open' | 'acknowledged' | 'completed' | 'failed';
  drift: string | null;
  /** The engine's highest clock on the thread (its next record takes this + 1). */
  engine_clock: number;
}

export interface TriggerHistory {
  firings: number;
  last_fired_at: string | null;
}

export interface DispatchState {
  open: Map<string, DispatchEntry>;
  closed: DispatchEntry[];
  /** Dispatch record id -> thread, for open dispatches. */
  byId: Map<string, string>;
  /** `<source record>\0<origin>` -> thread: a record is dispatched once per rule or trigger, even when replayed after a restart. */
  bySource: Map<string, string>;
  triggers: Map<string, TriggerHistory>;
  totals: { dispatched: number; completed: number; failed: number; drifted: number };
}

export interface DispatchSummary {
  open: DispatchEntry[];
  recent_closed: DispatchEntry[];
  triggers: Record<string, TriggerHistory>;
  totals: DispatchState['totals'];
}

export function sourceKey(source: string, origin: DispatchOrigin): string {
  return source + '\u0000' + originKey(origin);
}

function str(body: JsonObject, key: string): string | null {
  const value = body[key];
  return typeof value === 'string' ? value : null;
}

function parseOrigin(value: unknown): DispatchOrigin | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return null;
  const o = value as Record<string, unknown>;
  if ((o['type'] === 'rule' || o['type'] === 'trigger') && typeof o['name'] === 'string') return { type: o['type'], name: o['name'] };
  if (o['type'] === 'manual' && typeof o['by'] === 'string') return { type: 'manual', by: o['by'] };
  return null;
}

function parseBudget(value: unknown): DispatchBudget | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return null;
  const b = value as Record<string, unknown>;
  if (typeof b['max_cost_usd'] !== 'number' || typeof b['max_duration_secs'] !== 'number') return null;
  return { max_cost_usd: b['max_cost_usd'], max_duration_secs: b['max_duration_secs'] };
}

function close(state: DispatchState, entry: DispatchEntry, status: 'completed' | 'failed'): void {
  entry.status = status;
  state.open.delete(entry.thread);
  state.byId.delete(entry.id);
  state.closed.push(entry);
  state.totals[status]++;
  if (state.closed.length > CLOSED_KEPT) {
    for (const gone of state.closed.splice(0, state.closed.length - CLOSED_KEPT)) {
      if (gone.source !== null) state.bySource.delete(sourceKey(gone.source, gone.origin));
    }
  }
}

export const dispatchFold: Fold<DispatchState, DispatchSummary> = {
  name: DISPATCH_FOLD,
  scope: 'global',
  description: 'Dispatches (RECONCILE, triggers, POST /v1/dispatch) and their status: open, acknowledged, completed or failed, with drift noted by TICK; per-trigger firing history.',
  initial: () => ({ open: new Map(), closed: [], byId: new Map(), bySource: new Map(), triggers: new Map(), totals: { dispatched: 0, completed: 0, failed: 0, drifted: 0 } }),
  // It reads every thread (dispatch threads are derived ids), so without a checkpoint each start would replay the whole log.
  checkpoint: {
    version: 1,
    save: (state) => ({
      open: [...state.open.entries()],
      closed: state.closed,
      byId: [...state.byId.entries()],
      bySource: [...state.bySource.entries()],
      triggers: [...state.triggers.entries()],
      totals: state.totals,
    }),
    load: (saved) => {
      const s = saved as {
        open: Array<[string, DispatchEntry]>;
        closed: DispatchEntry[];
        byId: Array<[string, string]>;
        bySource: Array<[string, string]>;
        triggers: Array<[string, TriggerHistory]>;
        totals: DispatchState['totals'];
      };
      return { open: new Map(s.open), closed: s.closed, byId: new Map(s.byId), bySource: new Map(s.bySource), triggers: new Map(s.triggers), totals: s.totals };
    },
  },
  apply(state, { sequence, record }) {
    const body = record.body;
    const kind = body['kind'];
    if (kind === KIND_DISPATCH && record.act === 'DO') {
      const origin = parseOrigin(body['origin']);
      const budget = parseBudget(body['budget']);
      const target = str(body, 'target');
      const at = str(body, 'dispatched_at');
      const atMs = at === null ? NaN : Date.parse(at);
      if (!origin || !budget || target === null || Number.isNaN(atMs) || state.open.has(record.thread)) return state;
      const entry: DispatchEntry = {
        id: record.id,
        thread: record.thread,
        sequence,
        target,
        goal: str(body, 'goal') ?? '',
        parent_thread: str(body, 'parent_thread') ?? '',
        source: str(body, 'source'),
        namespace: str(body, 'namespace') ?? 'default',
        origin,
        adapter: str(body, 'adapter') ?? 'record',
        budget,
        dispatched_at: new Date(atMs).toISOString(),
        deadline_ms: atMs + budget.max_duration_secs * 1000,
        status: 'open',
        drift: null,
        engine_clock: record.actor === ENGINE_ACTOR ? record.clock : -1,
      };
      state.open.set(record.thread, entry);
      state.byId.set(record.id, record.thread);
      if (entry.source !== null) state.bySource.set(sourceKey(entry.source, origin), record.thread);
      state.totals.dispatched++;
      if (origin.type === 'trigger') {
        const history = state.triggers.get(origin.name) ?? { firings: 0, last_fired_at: null };
        history.firings++;
        history.last_fired_at = entry.dispatched_at;
        state.triggers.set(origin.name, history);
      }
      return state;
    }
    const entry = state.open.get(record.thread);
    if (!entry) return state;
    if (record.actor === ENGINE_ACTOR) {
      entry.engine_clock = Math.max(entry.engine_clock, record.clock);
      if (kind === KIND_DRIFT && entry.drift === null) {
        entry.drift = str(body, 'reason') ?? 'drift';
        state.totals.drifted++;
      } else if (kind === KIND_DISPATCH_FAILED) {
        close(state, entry, 'failed');
      }
      return state;
    }
    if (body['fulfills'] === entry.id || body['cancels'] === entry.id || kind === KIND_TRIGGER_OUTCOME) close(state, entry, 'completed');
    else if (entry.status === 'open') entry.status = 'acknowledged';
    return state;
  },
  value(state) {
    return {
      open: [...state.open.values()].map((entry) => structuredClone(entry)),
      recent_closed: state.closed.slice(-100).map((entry) => structuredClone(entry)),
      triggers: Object.fromEntries([...state.triggers].map(([name, history]) => [name, { ...history }])),
      totals: { ...state.totals },
    };
  },
};

/** The dispatches fold as this plugin registered it (its state and watermark). */
export const DispatchFoldToken = token<OwnFold<DispatchState>>('rules.DispatchFold');
