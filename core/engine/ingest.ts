/**
 * INGEST (spec §1, §6.1): receive → validate → canonical JSON → hash →
 * namespace narrowing → store → broadcast. `prepare` is pure apart from the
 * registry read; `ingest` stores and publishes. Concurrent ingests share one
 * storage batch (group commit in the store); each caller is answered once its
 * record is durable.
 */
import { LoomError } from '../errors/loom-error.js';
import { CanonicalJsonError } from '../records/canonical-json.js';
import { canonicalRecordContent, type CanonicalRecordContent } from '../records/record-id.js';
import { makeRecord, type LoomRecord } from '../records/record.js';
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

/** A check every record passes before it is stored (e.g. permission rules); throws LoomError to refuse. */
export type IngestGuard = (record: LoomRecord) => void;

export interface IngestDeps {
  readonly store: RecordStore;
  readonly bus: RecordBus;
  readonly namespaces: () => NamespaceRegistry;
  readonly sha256Hex: Sha256Hex;
  readonly now?: () => number;
}

export class Ingestor {
  private readonly guards: IngestGuard[] = [];
  private readonly now: () => number;

  constructor(private readonly deps: IngestDeps) {
    this.now = deps.now ?? Date.now;
  }

  /** Adds a check run on every valid record before it is stored. */
  addGuard(guard: IngestGuard): void {
    this.guards.push(guard);
  }

  /** Validates, hashes and narrows: everything but storing. Throws LoomError. */
  prepare(input: unknown): PreparedRecord {
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
    if (refusal) throw new LoomError('NAMESPACE_REJECTED', refusal.message);
    for (const guard of this.guards) guard(record);
    return { record, namespace, createdAt: this.now() };
  }

  async ingest(input: unknown): Promise<IngestResult> {
    const prepared = this.prepare(input);
    return this.settle(await this.deps.store.append(prepared));
  }

  /**
   * Ingests several records as if one by one, in order. Each entry is the
   * result or the LoomError that refused it; one bad record does not stop the rest.
   */
  async ingestMany(inputs: readonly unknown[]): Promise<Array<IngestResult | LoomError>> {
    const prepared: Array<PreparedRecord | LoomError> = inputs.map((input) => {
      try {
        return this.prepare(input);
      } catch (error) {
        if (error instanceof LoomError) return error;
        throw error;
      }
    });
    const valid = prepared.filter((p): p is PreparedRecord => !(p instanceof LoomError));
    const outcomes = await this.deps.store.appendMany(valid);
    let next = 0;
    return prepared.map((p) => {
      if (p instanceof LoomError) return p;
      try {
        return this.settle(outcomes[next++]!);
      } catch (error) {
        return error as LoomError;
      }
    });
  }

  private settle(outcome: AppendOutcome): IngestResult {
    switch (outcome.status) {
      case 'inserted':
        // Synchronously, with no await since the append resolved, so records are published in sequence order.
        this.deps.bus.publish([outcome.stored]);
        return { stored: outcome.stored, created: true };
      case 'exists':
        return { stored: outcome.stored, created: false };
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
