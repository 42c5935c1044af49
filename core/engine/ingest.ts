/**
 * INGEST (spec §1, §6.1): receive → validate → canonical JSON → hash →
 * namespace narrowing → ingest gates → store → broadcast. Core's checks come
 * first and are fixed; then the gates plugins contributed, in order
 * (core/access/ingest-gate.ts). Every write names its caller and door, so a
 * gate can never be skipped by a route that forgot who is writing. Concurrent
 * ingests share one storage batch (group commit in the store); each caller is
 * answered once its record is durable.
 */
import type { IngestContext, IngestGate } from '../access/ingest-gate.js';
import { SYSTEM, type Caller } from '../access/caller.js';
import { LoomError } from '../errors/loom-error.js';
import { CanonicalJsonError } from '../records/canonical-json.js';
import { canonicalRecord, type CanonicalRecord } from '../records/content-text.js';
import type { Sha256Hex } from '../records/sha256.js';
import { validateRecordInput } from '../records/validate-record.js';
import { namespaceRefusal, type NamespaceRegistry } from '../folds/namespace-registry.js';
import type { RecordStore } from '../../storage/contract/record-store.js';
import { namespaceOf, type AppendOutcome, type PreparedRecord, type StoredRecord } from '../../storage/contract/stored-record.js';
import { token } from '../di/token.js';
import type { RecordBus } from './broadcast.js';
import { ThreadNamespaces } from './thread-namespaces.js';

export interface IngestResult {
  readonly stored: StoredRecord;
  /** False for an idempotent resend of a record already stored. */
  readonly created: boolean;
}

/** The context of the engine's own writes (and of tests and embedders writing directly). */
export const ENGINE_WRITE: IngestContext = Object.freeze({ caller: SYSTEM, via: 'engine' });

export interface IngestDeps {
  readonly store: RecordStore;
  readonly bus: RecordBus;
  readonly namespaces: () => NamespaceRegistry;
  readonly sha256Hex: Sha256Hex;
  readonly now?: () => number;
  /**
   * Whether `caller` may read `stored` (the read policies). A DUPLICATE_CLOCK
   * refusal names the record holding the slot only to a caller who may read
   * it; to anyone else the id would say that a hidden record exists. Absent:
   * the holder is named to system writes only.
   */
  readonly mayRead?: (caller: Caller, stored: StoredRecord) => boolean;
  /** Told when a gate throws something other than a LoomError (the record is refused with INTERNAL). */
  readonly onGateFailure?: (gate: string, error: unknown) => void;
  /**
   * Null when every global fold is loaded, else a promise of it: a record
   * waits for folds still loading their checkpoint after a start, since gates
   * read them and publishing applies it to every fold.
   */
  readonly whenFoldsLoaded?: () => Promise<void> | null;
}

export class Ingestor {
  private gates: readonly IngestGate[] = [];
  private readonly now: () => number;
  private readonly threadNamespaces: ThreadNamespaces;

  constructor(private readonly deps: IngestDeps) {
    this.now = deps.now ?? Date.now;
    this.threadNamespaces = new ThreadNamespaces(async (thread) => {
      const first = (await deps.store.listByThread(thread, { limit: 1 })).items[0];
      return first ? namespaceOf(first.record) : undefined;
    });
  }

  /** Sets the ordered gate chain (the plugin host does, once, before start). */
  setGates(gates: readonly IngestGate[]): void {
    this.gates = Object.freeze([...gates]);
  }

  /** The gate chain in the order it runs. */
  gateNames(): string[] {
    return this.gates.map((gate) => gate.name);
  }

  /** The namespace a thread's records carry (its first record's), undefined while it is empty: the cache the namespace check keeps. */
  threadNamespace(thread: string): Promise<string | undefined> {
    return this.threadNamespaces.of(thread);
  }

  /** Validates, hashes and narrows: core's fixed checks. Throws LoomError. */
  private check(input: unknown): PreparedRecord {
    const validation = validateRecordInput(input);
    if (!validation.ok) throw new LoomError('INVALID_SHAPE', validation.message, undefined, { path: validation.field });
    let made: CanonicalRecord;
    try {
      made = canonicalRecord(validation.fields, this.deps.sha256Hex);
    } catch (error) {
      if (error instanceof CanonicalJsonError) throw new LoomError('INVALID_SHAPE', `body: ${error.message}`, undefined, { path: 'body' });
      throw error;
    }
    const { record, content } = made;
    const id = record.id;
    if (validation.claimedId !== undefined && validation.claimedId !== id) {
      // The fact lets a receiver tell tampered content from a malformed record without reading the message.
      throw new LoomError('INVALID_SHAPE', `id: does not match the record's content (computed ${id}); omit id, the server computes it`, undefined, {
        path: 'id',
        reason: 'id_mismatch',
        computed_id: id,
      });
    }
    const declared = record.body['namespace'];
    if (declared !== undefined && typeof declared !== 'string') {
      throw new LoomError('INVALID_SHAPE', 'body.namespace: must be a string of /-separated segments when present', undefined, { path: 'body.namespace' });
    }
    const namespace = namespaceOf(record);
    const refusal = namespaceRefusal(this.deps.namespaces(), namespace);
    // A malformed name is the request's mistake (400); an unknown or archived namespace is a refusal (403).
    if (refusal) throw new LoomError(refusal.malformed ? 'INVALID_SHAPE' : 'NAMESPACE_REJECTED', refusal.malformed ? `body.namespace: ${refusal.message}` : refusal.message, undefined, { path: 'body.namespace' });
    // The content text travels with the record: the journal frame and the stored row embed it.
    return { record, namespace, createdAt: this.now(), content };
  }

  private gateFailure(gate: IngestGate, error: unknown): LoomError {
    if (error instanceof LoomError) return error;
    // Fail closed: a gate that crashes refuses the record; it never admits it.
    this.deps.onGateFailure?.(gate.name, error);
    return new LoomError('INTERNAL', `ingest gate ${gate.name} failed`);
  }

  /** Runs the gates in order; synchronous gates cost no await. */
  private runGates(prepared: PreparedRecord, context: IngestContext): void | Promise<void> {
    const input = { record: prepared.record, namespace: prepared.namespace, context };
    for (let i = 0; i < this.gates.length; i++) {
      const gate = this.gates[i]!;
      let outcome: void | Promise<void>;
      try {
        outcome = gate.check(input);
      } catch (error) {
        throw this.gateFailure(gate, error);
      }
      if (outcome && typeof (outcome as Promise<void>).then === 'function') {
        return (async () => {
          try {
            await outcome;
          } catch (error) {
            throw this.gateFailure(gate, error);
          }
          for (const rest of this.gates.slice(i + 1)) {
            try {
              await rest.check(input);
            } catch (error) {
              throw this.gateFailure(rest, error);
            }
          }
        })();
      }
    }
  }

  /** Everything but storing: core's checks, the gates, then the thread's namespace. Throws (or rejects with) LoomError. */
  prepare(context: IngestContext, input: unknown): PreparedRecord | Promise<PreparedRecord> {
    const loading = this.deps.whenFoldsLoaded?.();
    if (loading) return loading.then(() => this.prepareNow(context, input));
    return this.prepareNow(context, input);
  }

  private prepareNow(context: IngestContext, input: unknown): PreparedRecord | Promise<PreparedRecord> {
    const prepared = this.check(input);
    // The gates first: a caller who may not write here learns nothing about the thread from the namespace check.
    const gated = this.runGates(prepared, context);
    if (gated) return gated.then(() => this.inThreadNamespace(prepared, context));
    return this.inThreadNamespace(prepared, context);
  }

  private inThreadNamespace(prepared: PreparedRecord, context: IngestContext): PreparedRecord | Promise<PreparedRecord> {
    const owned = this.threadNamespaces.check(prepared, context);
    return owned ? owned.then(() => prepared) : prepared;
  }

  async ingest(context: IngestContext, input: unknown): Promise<IngestResult> {
    const prepared = await this.prepare(context, input);
    const release = this.threadNamespaces.claim(prepared, context);
    let result: IngestResult;
    try {
      result = this.settle(await this.deps.store.append(prepared), prepared, context.caller);
      // A replay may restore a thread written before one namespace per thread was the rule: learn nothing from it.
      if (result.created && context.via !== 'replay') this.threadNamespaces.learn(prepared.record.thread, prepared.namespace);
    } finally {
      release();
    }
    // Synchronously, with no await since the append resolved, so a local log publishes in sequence order.
    if (result.created) await this.deps.bus.committed([result.stored]);
    return result;
  }

  /**
   * Ingests several records as if one by one, in order, all for one caller.
   * Each entry is the result or the LoomError that refused it; one bad record
   * does not stop the rest.
   */
  async ingestMany(context: IngestContext, inputs: readonly unknown[]): Promise<Array<IngestResult | LoomError>> {
    const prepared: Array<PreparedRecord | LoomError> = [];
    for (const input of inputs) {
      try {
        prepared.push(await this.prepare(context, input));
      } catch (error) {
        if (error instanceof LoomError) prepared.push(error);
        else throw error;
      }
    }
    return (await this.storePrepared(context, prepared, false)).results;
  }

  /**
   * Ingests the longest prefix of `inputs` that core's checks and the gates
   * admit, as if one by one: preparing stops at the first refusal, and only
   * the records before it are stored (`results` covers exactly those, so
   * `results.length` is the refused record's index). For a caller that must
   * not pass over a refused record, such as a federation pull, which would
   * otherwise move its cursor beyond it. Outcomes the store decides per
   * record (DUPLICATE_CLOCK, JUDGED_BY_CONFLICT) do not stop it; they are in
   * `results` as in ingestMany.
   */
  async ingestPrefix(context: IngestContext, inputs: readonly unknown[]): Promise<{ results: Array<IngestResult | LoomError>; refusal: LoomError | null }> {
    const prepared: PreparedRecord[] = [];
    let refusal: LoomError | null = null;
    for (const input of inputs) {
      try {
        prepared.push(await this.prepare(context, input));
      } catch (error) {
        if (!(error instanceof LoomError)) throw error;
        refusal = error;
        break;
      }
    }
    const stored = await this.storePrepared(context, prepared, true);
    return { results: stored.results, refusal: stored.refusal ?? refusal };
  }

  /**
   * Stores the prepared records in one batch and publishes the new ones;
   * refusals pass through in place. Each record first claims its thread's
   * namespace, in order and synchronously, so a later record that would give
   * a new thread another namespace is refused (and with `stopAtRefusal`,
   * nothing from it on is stored).
   */
  private async storePrepared(
    context: IngestContext,
    prepared: Array<PreparedRecord | LoomError>,
    stopAtRefusal: boolean,
  ): Promise<{ results: Array<IngestResult | LoomError>; refusal: LoomError | null }> {
    const releases: Array<() => void> = [];
    let refusal: LoomError | null = null;
    for (let i = 0; i < prepared.length; i++) {
      const p = prepared[i]!;
      if (p instanceof LoomError) continue;
      try {
        releases.push(this.threadNamespaces.claim(p, context));
      } catch (error) {
        if (!(error instanceof LoomError)) throw error;
        if (stopAtRefusal) {
          refusal = error;
          prepared = prepared.slice(0, i);
          break;
        }
        prepared[i] = error;
      }
    }
    const valid = prepared.filter((p): p is PreparedRecord => !(p instanceof LoomError));
    let results: Array<IngestResult | LoomError>;
    try {
      const outcomes = await this.deps.store.appendMany(valid);
      let next = 0;
      results = prepared.map((p) => {
        if (p instanceof LoomError) return p;
        try {
          const input = valid[next]!;
          const result = this.settle(outcomes[next++]!, input, context.caller);
          if (result.created && context.via !== 'replay') this.threadNamespaces.learn(input.record.thread, input.namespace);
          return result;
        } catch (error) {
          return error as LoomError;
        }
      });
    } finally {
      for (const release of releases) release();
    }
    const created = results.filter((r): r is IngestResult => !(r instanceof LoomError) && r.created).map((r) => r.stored);
    await this.deps.bus.committed(created.sort((a, b) => a.sequence - b.sequence));
    return { results, refusal };
  }

  private settle(outcome: AppendOutcome, sent: PreparedRecord, caller: Caller): IngestResult {
    switch (outcome.status) {
      case 'inserted':
        return { stored: outcome.stored, created: true };
      case 'exists': {
        // judged_by is not hashed: a resend that differs only there has the stored id, but its value would be silently dropped.
        const stored = outcome.stored.record.judged_by;
        if (sent.record.judged_by !== stored) {
          throw new LoomError('JUDGED_BY_CONFLICT', `record ${outcome.stored.record.id} is already stored with judged_by ${JSON.stringify(stored)}; a stored record never changes (judged_by is not part of its id)`, { stored_judged_by: stored });
        }
        return { stored: outcome.stored, created: false };
      }
      case 'duplicate_clock': {
        const existing = outcome.existing;
        const slot = `clock ${existing.record.clock} of ${existing.record.actor} on ${existing.record.thread} is already taken`;
        const named = this.deps.mayRead ? this.deps.mayRead(caller, existing) : caller.kind === 'system';
        if (!named) throw new LoomError('DUPLICATE_CLOCK', `${slot}; increment the clock and retry`);
        throw new LoomError('DUPLICATE_CLOCK', `${slot} by record ${existing.record.id}; increment the clock and retry`, undefined, { existing_id: existing.record.id });
      }
    }
  }
}

export const IngestorToken = token<Ingestor>('core.Ingestor');
