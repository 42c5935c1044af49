/**
 * A thread belongs to one namespace: the namespace of its first record.
 * Every later record on it must land in the same namespace, whoever writes
 * it. Without this, a credential holding only `thread:<id>:write` for a
 * thread of `beta` could write records whose `body.namespace` is `acme`
 * onto it, and `acme`'s readers would see them: grains for the thread and
 * for the namespace would say different things about one write. The kernel's
 * reserved threads (configuration, registries) are instance-wide and exempt,
 * and so are replays (an admin's import of exported history), so a log
 * written before this rule restores as it was.
 *
 * A thread's namespace never changes once its first record is stored, so
 * what is learned is cached for good (bounded; an evicted thread is read
 * again from the store). An empty thread has no namespace yet: concurrent
 * first writes to it claim it while their append is in flight, so two
 * writers cannot give one new thread two namespaces.
 */
import { LoomError } from '../errors/loom-error.js';
import { isReservedThread } from '../records/reserved-threads.js';
import type { IngestContext } from '../access/ingest-gate.js';
import type { PreparedRecord } from '../../storage/contract/stored-record.js';

/** Threads whose namespace is kept in memory; past it, the older half is forgotten. */
const CACHE_CAPACITY = 100_000;

export class ThreadNamespaces {
  private readonly known = new Map<string, string>();
  private readonly claims = new Map<string, { namespace: string; holders: number }>();

  /** `firstNamespace` reads the namespace of a thread's first stored record, undefined when it has none. */
  constructor(private readonly firstNamespace: (thread: string) => Promise<string | undefined>) {}

  /**
   * Refuses a record whose namespace differs from its thread's. Synchronous
   * when the thread's namespace is cached or the thread is reserved.
   */
  check(prepared: PreparedRecord, context: IngestContext): void | Promise<void> {
    const thread = prepared.record.thread;
    if (isReservedThread(thread) || context.via === 'replay') return;
    const cached = this.known.get(thread);
    if (cached !== undefined) return refuseMismatch(thread, cached, prepared.namespace);
    return this.firstNamespace(thread).then((namespace) => {
      if (namespace === undefined) return;
      this.learn(thread, namespace);
      refuseMismatch(thread, namespace, prepared.namespace);
    });
  }

  /**
   * Claims the record's thread for its namespace until `release` is called
   * (once the append has settled). Refuses when the thread's namespace, or a
   * first write in flight, says otherwise. Synchronous, so check-and-claim
   * cannot interleave with another request's.
   */
  claim(prepared: PreparedRecord, context: IngestContext): () => void {
    const thread = prepared.record.thread;
    if (isReservedThread(thread) || context.via === 'replay') return noop;
    const cached = this.known.get(thread);
    if (cached !== undefined) {
      refuseMismatch(thread, cached, prepared.namespace);
      return noop;
    }
    const claim = this.claims.get(thread);
    if (claim) {
      refuseMismatch(thread, claim.namespace, prepared.namespace);
      claim.holders++;
    } else {
      this.claims.set(thread, { namespace: prepared.namespace, holders: 1 });
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const current = this.claims.get(thread);
      if (current && --current.holders === 0) this.claims.delete(thread);
    };
  }

  /** The namespace of `thread` (its first record's), or undefined while it has none; cached once known. */
  async of(thread: string): Promise<string | undefined> {
    const cached = this.known.get(thread);
    if (cached !== undefined) return cached;
    const namespace = await this.firstNamespace(thread);
    if (namespace !== undefined) this.learn(thread, namespace);
    return namespace;
  }

  /** Records that a thread's first record is stored in `namespace`. */
  learn(thread: string, namespace: string): void {
    if (isReservedThread(thread) || this.known.has(thread)) return;
    if (this.known.size >= CACHE_CAPACITY) {
      let drop = CACHE_CAPACITY / 2;
      for (const key of this.known.keys()) {
        this.known.delete(key);
        if (--drop === 0) break;
      }
    }
    this.known.set(thread, namespace);
  }
}

function noop(): void {}

function refuseMismatch(thread: string, owner: string, namespace: string): void {
  if (owner === namespace) return;
  // The owner's namespace is not named: the caller may be unable to read the thread.
  throw new LoomError(
    'NAMESPACE_REJECTED',
    `thread ${thread} holds records of another namespace than this record's (${namespace}); a thread holds records of one namespace, its first record's: write records of ${namespace} on a thread of ${namespace}`,
  );
}
