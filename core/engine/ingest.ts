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
import { SYSTEM } from '../access/caller.js';
import { LoomError } from '../errors/loom-error.js';
import { CanonicalJsonError } from '../records/canonical-json.js';
import { canonicalRecordContent, type CanonicalRecordContent } from '../records/record-id.js';
import { makeRecord } from '../records/record.js';
import type { Sha256Hex } from '../records/sha256.js';
import { validateRecordInput } from '../records/validate-record.js';
import { namespaceRefusal, type NamespaceRegistry } from '../folds/namespace-registry.js';
import type { RecordStore } from '../../storage/contract/record-store.js';
import { namespaceOf, type AppendOutcome, type PreparedRecord, type StoredRecord } from '../../storage/contract/stored-record.js';
import { token } from '../di/token.js';
import type { RecordBus } from './broadcast.js';

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
  /** Told when a gate throws something other than a LoomError (the record is refused with INTERNAL). */
  readonly onGateFailure?: (gate: string, error: unknown) => void;
}

export class Ingestor {
  private gates: readonly IngestGate[] = [];
  private readonly now: () => number;

  constructor(private readonly deps: IngestDeps) {
    this.now = deps.now ?? Date.now;
  }

  /** Sets the ordered gate chain (the plugin host does, once, before start). */
  setGates(gates: readonly IngestGate[]): void {
    this.gates = Object.freeze([...gates]);
  }

  /** The gate chain in the order it runs. */
  gateNames(): string[] {
    return this.gates.map((gate) => gate.name);
  }

  /** Validates, hashes and narrows: core's fixed checks. Throws LoomError. */
  private check(input: unknown): PreparedRecord {
    const validation = validateRecordInput(input);
    if (!validation.ok) throw new LoomError('INVALID_SHAPE', validation.message);
    let content: CanonicalRecordContent;
    try {
      content = canonicalRecordContent(validation.fields);
    } catch (error) {
      if (error instanceof CanonicalJsonError) throw new LoomError('INVALID_SHAPE', `body: ${error.message}`);
      throw error;
    }
    const id = this.deps.sha256Hex(content.text);
    if (validation.claimedId !== undefined && validation.claimedId !== id) {
      throw new LoomError('INVALID_SHAPE', `id: does not match the record's content (computed ${id}); omit id, the server computes it`);
    }
    // The stored record keeps the checked canonical copies: the client's objects are neither frozen nor shared.
    const record = makeRecord(id, { ...validation.fields, body: content.body, parents: content.parents });
    const declared = record.body['namespace'];
    if (declared !== undefined && typeof declared !== 'string') {
      throw new LoomError('INVALID_SHAPE', 'body.namespace: must be a string of /-separated segments when present');
    }
    const namespace = namespaceOf(record);
    const refusal = namespaceRefusal(this.deps.namespaces(), namespace);
    // A malformed name is the request's mistake (400); an unknown or archived namespace is a refusal (403).
    if (refusal) throw new LoomError(refusal.malformed ? 'INVALID_SHAPE' : 'NAMESPACE_REJECTED', refusal.malformed ? `body.namespace: ${refusal.message}` : refusal.message);
    return { record, namespace, createdAt: this.now() };
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

  /** Everything but storing: core's checks, then the gates. Throws (or rejects with) LoomError. */
  prepare(context: IngestContext, input: unknown): PreparedRecord | Promise<PreparedRecord> {
    const prepared = this.check(input);
    const gated = this.runGates(prepared, context);
    return gated ? gated.then(() => prepared) : prepared;
  }

  async ingest(context: IngestContext, input: unknown): Promise<IngestResult> {
    const prepared = await this.prepare(context, input);
    const result = this.settle(await this.deps.store.append(prepared), prepared);
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
    return this.storePrepared(prepared);
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
    return { results: await this.storePrepared(prepared), refusal };
  }

  /** Stores the prepared records in one batch and publishes the new ones; refusals pass through in place. */
  private async storePrepared(prepared: ReadonlyArray<PreparedRecord | LoomError>): Promise<Array<IngestResult | LoomError>> {
    const valid = prepared.filter((p): p is PreparedRecord => !(p instanceof LoomError));
    const outcomes = await this.deps.store.appendMany(valid);
    let next = 0;
    const results = prepared.map((p) => {
      if (p instanceof LoomError) return p;
      try {
        const input = valid[next]!;
        return this.settle(outcomes[next++]!, input);
      } catch (error) {
        return error as LoomError;
      }
    });
    const created = results.filter((r): r is IngestResult => !(r instanceof LoomError) && r.created).map((r) => r.stored);
    await this.deps.bus.committed(created.sort((a, b) => a.sequence - b.sequence));
    return results;
  }

  private settle(outcome: AppendOutcome, sent: PreparedRecord): IngestResult {
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
        const existing = outcome.existing.record;
        throw new LoomError(
          'DUPLICATE_CLOCK',
          `clock ${existing.clock} of ${existing.actor} on ${existing.thread} is already taken by record ${existing.id}; increment the clock and retry`,
        );
      }
    }
  }
}

export const IngestorToken = token<Ingestor>('core.Ingestor');
