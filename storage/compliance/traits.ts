/**
 * Shared hooks and assertions for the suites: where a store comes from (one
 * per test, or one per group), skipping a group by capability or by an
 * optional method the store lacks, reopening a store, and asserting a
 * rejection by its code. Suites call these inside their describe blocks.
 */
import { expect } from 'chai';
import type { RecordStore, StoreCapabilities } from '../contract/record-store.js';
import type { PreparedRecord, StoredRecord } from '../contract/stored-record.js';
import type { StoreComplianceOptions, StoreHarness } from './compliance-options.js';

/** The contract's optional methods (shared-log services such as checkpoints, locks and slots). */
export type OptionalStoreMethod = { [K in keyof RecordStore]-?: undefined extends RecordStore[K] ? K : never }[keyof RecordStore];

export interface SuiteContext {
  readonly options: StoreComplianceOptions;
  /** The store's manifest, read from a probe store before any group runs. */
  capabilities(): StoreCapabilities;
  /** Whether the store implements an optional method, read from the same probe store. */
  implements(method: OptionalStoreMethod): boolean;
}

/**
 * Skips the enclosing describe unless the manifest has the capability.
 * Register it before any hook that makes a store: mocha runs no later
 * `before` hook of a skipped group.
 */
export function requireCapability(context: SuiteContext, has: (capabilities: StoreCapabilities) => boolean): void {
  before(function () {
    if (!has(context.capabilities())) this.skip();
  });
}

/** Skips the enclosing describe unless the store implements every one of `methods` (same ordering rule as requireCapability). */
export function requireMethods(context: SuiteContext, ...methods: OptionalStoreMethod[]): void {
  before(function () {
    if (!methods.every((method) => context.implements(method))) this.skip();
  });
}

/** Closes the harness's store and opens a new instance on the same location (persistent stores only). */
export async function reopenStore(harness: StoreHarness): Promise<RecordStore> {
  expect(harness.reopen, 'a persistent store needs a harness with reopen()').to.be.a('function');
  await harness.store.close();
  const store = await harness.reopen!();
  expect(store.status).to.equal('open');
  return store;
}

/** A fresh harness for every test of the enclosing describe. */
export function freshStorePerTest(context: SuiteContext): () => StoreHarness {
  let harness: StoreHarness | undefined;
  beforeEach(async () => {
    harness = await context.options.factory();
  });
  afterEach(async () => {
    await harness?.cleanup();
    harness = undefined;
  });
  return () => {
    if (!harness) throw new Error('no store: the factory did not run');
    return harness;
  };
}

/** One harness shared by every test of the enclosing describe (for read-only groups). */
export function sharedStore(context: SuiteContext, seed?: (store: RecordStore) => Promise<void>): () => StoreHarness {
  let harness: StoreHarness | undefined;
  before(async () => {
    harness = await context.options.factory();
    if (seed) await seed(harness.store);
  });
  after(async () => {
    await harness?.cleanup();
    harness = undefined;
  });
  return () => {
    if (!harness) throw new Error('no store: the factory did not run');
    return harness;
  };
}

/** Asserts the promise rejects with a LoomError-style `code` (never the message). */
export async function expectRejectedWithCode(promise: Promise<unknown>, code: string): Promise<void> {
  let settled: { ok: true; value: unknown } | { ok: false; error: unknown };
  try {
    settled = { ok: true, value: await promise };
  } catch (error) {
    settled = { ok: false, error };
  }
  expect(settled.ok, 'expected a rejection').to.equal(false);
  if (!settled.ok) expect((settled.error as { code?: unknown })?.code).to.equal(code);
}

/** Appends one by one (awaiting each), expecting every record to be new. */
export async function insertAll(store: RecordStore, prepared: readonly PreparedRecord[]): Promise<StoredRecord[]> {
  const stored: StoredRecord[] = [];
  for (const each of prepared) {
    const outcome = await store.append(each);
    expect(outcome.status, `append of ${each.record.id}`).to.equal('inserted');
    if (outcome.status === 'inserted') stored.push(outcome.stored);
  }
  return stored;
}

/** Appends all at once through appendMany, expecting every record to be new. */
export async function insertMany(store: RecordStore, prepared: readonly PreparedRecord[]): Promise<StoredRecord[]> {
  const outcomes = await store.appendMany(prepared);
  return outcomes.map((outcome, i) => {
    expect(outcome.status, `append of ${prepared[i]!.record.id}`).to.equal('inserted');
    return (outcome as { stored: StoredRecord }).stored;
  });
}

/** Every stored record, via the changes feed. */
export async function readAll(store: RecordStore): Promise<StoredRecord[]> {
  const all: StoredRecord[] = [];
  let after = 0;
  for (;;) {
    const batch = await store.changesSince(after, 1000);
    if (batch.length === 0) return all;
    all.push(...batch);
    after = batch[batch.length - 1]!.sequence;
  }
}

export function idsOf(records: readonly StoredRecord[]): string[] {
  return records.map((stored) => stored.record.id);
}

/** Asserts a stored record holds exactly the prepared record and its receipt time. */
export function expectSameRecord(stored: StoredRecord | undefined, prepared: PreparedRecord): void {
  expect(stored, `record ${prepared.record.id}`).to.not.equal(undefined);
  expect({ ...stored!.record }).to.deep.equal({ ...prepared.record });
  expect(stored!.createdAt).to.equal(prepared.createdAt);
  expect(Number.isInteger(stored!.sequence) && stored!.sequence > 0, 'sequence is a positive integer').to.equal(true);
}
