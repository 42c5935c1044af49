import { expect } from 'chai';
import { LoomError } from '../errors/loom-error.js';
import type { IngestContext } from '../access/ingest-gate.js';
import { SYSTEM } from '../access/caller.js';
import type { PreparedRecord } from '../../storage/contract/stored-record.js';
import { ThreadNamespaces } from './thread-namespaces.js';

const API: IngestContext = { caller: SYSTEM, via: 'api' };
const REPLAY: IngestContext = { caller: SYSTEM, via: 'replay' };

function prepared(thread: string, namespace: string): PreparedRecord {
  return { record: { thread } as PreparedRecord['record'], namespace, createdAt: 0 };
}

function refusal(run: () => unknown): LoomError {
  try {
    run();
  } catch (error) {
    if (error instanceof LoomError) return error;
    throw error;
  }
  throw new Error('expected a refusal');
}

describe('ThreadNamespaces', () => {
  const T = 'th_' + 'a'.repeat(64);

  it("admits a record in its thread's namespace and refuses another, reading the store once per thread", async () => {
    let reads = 0;
    const threads = new ThreadNamespaces(async () => {
      reads++;
      return 'beta';
    });
    await threads.check(prepared(T, 'beta'), API);
    expect(threads.check(prepared(T, 'beta'), API)).to.equal(undefined, 'cached: synchronous');
    expect(refusal(() => threads.check(prepared(T, 'acme'), API)).code).to.equal('NAMESPACE_REJECTED');
    expect(reads).to.equal(1);
  });

  it('an empty thread takes the namespace of the first write claimed; a concurrent first write of another namespace is refused', async () => {
    const threads = new ThreadNamespaces(async () => undefined);
    await threads.check(prepared(T, 'acme'), API);
    await threads.check(prepared(T, 'beta'), API);
    const release = threads.claim(prepared(T, 'acme'), API);
    expect(refusal(() => threads.claim(prepared(T, 'beta'), API)).message).to.contain('another namespace');
    const second = threads.claim(prepared(T, 'acme'), API);
    release();
    expect(refusal(() => threads.claim(prepared(T, 'beta'), API)).code).to.equal('NAMESPACE_REJECTED', 'still claimed by the second writer');
    second();
    // The claim is gone with its writers: a failed first write leaves the thread free.
    threads.claim(prepared(T, 'beta'), API)();
    threads.learn(T, 'beta');
    expect(refusal(() => threads.claim(prepared(T, 'acme'), API)).code).to.equal('NAMESPACE_REJECTED');
  });

  it('reserved threads and replays are exempt', () => {
    const threads = new ThreadNamespaces(async () => 'beta');
    threads.learn(T, 'beta');
    expect(threads.check(prepared('th_engine_config', 'acme'), API)).to.equal(undefined);
    expect(threads.check(prepared(T, 'acme'), REPLAY)).to.equal(undefined);
    threads.claim(prepared(T, 'acme'), REPLAY)();
  });
});
