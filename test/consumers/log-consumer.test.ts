/**
 * The log-consumer compliance suite, in process (core/engine/log-consumer.ts):
 * resume after a restart, a failed batch retried whole, the one system-thread
 * rule, back-pressure under an ingest burst, and the consumer's lag and
 * state on /health and /metrics. The kill -9 and shared-log leadership cases
 * run real processes (log-consumer.process.test.ts).
 */
import { expect } from 'chai';
import { rm } from 'node:fs/promises';
import { isReservedThread } from '../../core/records/reserved-threads.js';
import { probePlugin } from '../helpers/consumer-probe.js';
import { get, mapLimit, newThread, postJson, recordInput, request, startServer, type StartedServer } from '../helpers/http-server.js';

async function until(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

const seen_ = (entry: { probe: { handled: Array<{ record: { thread: string } }> } }) => entry.probe.handled.map((stored) => stored.record);

async function write(url: string, count: number, thread = newThread('consumer')): Promise<string[]> {
  return mapLimit([...Array(count).keys()], 8, async (i) => {
    const answer = await postJson(url, '/v1/records', recordInput({ thread, actor: `did:sync:agent:w${i}`, body: { i } }));
    expect(answer.status, answer.text).to.equal(201);
    return answer.json.id as string;
  });
}

describe('log consumers (kernel compliance, in process)', function () {
  this.timeout(60_000);

  for (const storage of ['sqlite', 'level'] as const) {
    it(`resumes after a restart where its checkpoint stopped: nothing handled twice, nothing skipped (${storage})`, async () => {
      let { plugin, probe } = probePlugin({ batchSize: 7 });
      let server = await startServer({ storage, keepDataDir: true, plugins: [{ plugin }] });
      const dataDir = server.dataDir;
      try {
        const first = await write(server.url, 40);
        await probe.handle!.caughtUp();
        const before = probe.handled.map((stored) => stored.record.id);
        await server.stop();
        ({ plugin, probe } = probePlugin({ batchSize: 7 }));
        server = await startServer({ storage, dataDir, keepDataDir: true, plugins: [{ plugin }] });
        const second = await write(server.url, 30);
        await probe.handle!.caughtUp();
        const after = probe.handled.map((stored) => stored.record.id);
        expect(after.filter((id) => before.includes(id)), 'handled again after the restart').to.deep.equal([]);
        for (const id of [...first, ...second]) expect([...before, ...after]).to.include(id);
        const sequences = [...probe.handled.map((stored) => stored.sequence)];
        expect(sequences).to.deep.equal([...sequences].sort((a, b) => a - b));
      } finally {
        await server.stop();
        await rm(dataDir, { recursive: true, force: true });
      }
    });
  }

  describe('on one server', () => {
    let server: StartedServer;
    const declared = newThread('declared-control');
    const skipping = probePlugin({ name: 'skipping', declares: [declared] });
    const including = probePlugin({ name: 'including', systemThreads: 'include' });
    const failing = probePlugin({ name: 'failing', failures: 2, batchSize: 5 });
    const probes = [skipping, including, failing].map(({ probe }) => probe);
    before(async () => {
      // Three consumers of one plugin each: the probe plugin is instantiated per consumer under one name, so compose them as distinct plugins.
      const plugins = [skipping, including, failing].map(({ plugin }, i) => ({ plugin: { ...plugin, name: `probe${i}` } }));
      server = await startServer({ plugins });
    });
    after(async () => server?.stop());

    it('skips system threads by the one rule (reserved and plugin-declared), unless a consumer opts in', async () => {
      const normal = await write(server.url, 3);
      const control = await write(server.url, 2, declared);
      const config = await request(server.url, 'POST', '/v1/config/embedding_provider', { json: { provider: null } });
      expect([201, 404]).to.include(config.status);
      await Promise.all(probes.map((probe) => probe.handle!.caughtUp()));
      const skipped = skipping.probe.handled.map((stored) => stored.record);
      expect(skipped.map((record) => record.id)).to.include.members(normal);
      expect(skipped.filter((record) => record.thread === declared || isReservedThread(record.thread))).to.deep.equal([]);
      expect(seen_(including).some((record) => isReservedThread(record.thread)), 'the reserved config thread, seen when opted in').to.equal(true);
      const seen = including.probe.handled.map((stored) => stored.record);
      expect(seen.map((record) => record.id)).to.include.members([...normal, ...control]);
      // Folds use the same rule (the reader answers from the kernel's SystemThreads).
      const folds = (await get(server.url, '/v1/folds')).json;
      expect(folds.system_threads).to.include(declared);
    });

    it('retries a failed batch whole after a backoff, and reports the failure until a batch succeeds', async () => {
      await write(server.url, 4);
      await failing.probe.handle!.caughtUp();
      const [one, two, three] = failing.probe.attempts;
      expect(one!.ok).to.equal(false);
      expect(two).to.deep.include({ after: one!.after, through: one!.through, ok: false });
      expect(three).to.deep.include({ after: one!.after, through: one!.through, ok: true });
      const status = failing.probe.handle!.status();
      expect(status.consecutive_failures).to.equal(0);
      expect(status.last_error?.message).to.equal('probe: failing on purpose');
    });

    it('reports every consumer on /health and /metrics: lag, state, last error', async () => {
      await write(server.url, 2);
      await Promise.all(probes.map((probe) => probe.handle!.caughtUp()));
      const health = (await get(server.url, '/health')).json;
      const names = health.consumers.map((c: { name: string }) => c.name);
      expect(names).to.include.members(['probe0.skipping', 'probe1.including', 'probe2.failing', 'rules.reconcile', 'search.find', 'search.embed']);
      const failingStatus = health.consumers.find((c: { name: string }) => c.name === 'probe2.failing');
      expect(failingStatus).to.include({ lag: 0, state: 'caught_up', leader_only: false });
      expect(failingStatus.last_error.message).to.equal('probe: failing on purpose');
      const metrics = (await request(server.url, 'GET', '/metrics')).text;
      expect(metrics).to.match(/loom_consumer_lag_records\{consumer="probe2.failing"\} 0/);
      expect(metrics).to.match(/loom_consumer_running\{consumer="rules.reconcile"\} 1/);
    });
  });

  it('hands over only the records a consumer wants; a caught-up one is not even woken for the others, and its cursor follows the log', async () => {
    const { plugin, probe } = probePlugin({ name: 'picky', wants: (record) => record.body['kind'] === 'wanted.v1' });
    const server = await startServer({ plugins: [{ plugin }] });
    try {
      const thread = newThread('picky');
      await write(server.url, 5);
      await probe.handle!.caughtUp();
      const batchesBefore = probe.attempts.length;
      // Plain records only: no batch at all, yet the cursor moves to the head.
      await write(server.url, 20);
      await probe.handle!.caughtUp();
      expect(probe.attempts.length, 'batches for records the consumer does not want').to.equal(batchesBefore);
      const status = () => probe.handle!.status();
      expect(status().cursor).to.equal(status().head);
      expect(status().lag).to.equal(0);
      // A wanted record among plain ones is handed over, alone.
      const wanted = await postJson(server.url, '/v1/records', recordInput({ thread, actor: 'did:sync:agent:picky', body: { kind: 'wanted.v1' } }));
      expect(wanted.status, wanted.text).to.equal(201);
      await write(server.url, 3);
      await probe.handle!.caughtUp();
      expect(probe.handled.map((stored) => stored.record.id)).to.deep.equal([wanted.json.id]);
      expect(status().cursor).to.equal(status().head);
    } finally {
      await server.stop();
    }
  });

  it('hands over records published while a caught-up idle was awaiting, without sleeping through them', async () => {
    const { plugin, probe } = probePlugin({ name: 'idling', idleMs: 400 });
    const server = await startServer({ plugins: [{ plugin }] });
    try {
      const [first] = await write(server.url, 1);
      await until('the first record', () => probe.handled.some((stored) => stored.record.id === first));
      await new Promise((resolve) => setTimeout(resolve, 100)); // idle is awaiting its timer now
      const [second] = await write(server.url, 1);
      const started = Date.now();
      await until('the second record', () => probe.handled.some((stored) => stored.record.id === second), 5_000);
      expect(Date.now() - started).to.be.lessThan(2_000);
    } finally {
      await server.stop();
    }
  });

  it('takes at most its busy share of the time during an ingest burst, and catches up after it', async () => {
    const { plugin, probe } = probePlugin({ batchSize: 1, batchMs: 8, spin: true, busyShare: 0.2 });
    const server = await startServer({ plugins: [{ plugin }] });
    try {
      const started = performance.now();
      const ids = await write(server.url, 400);
      const ended = performance.now();
      const during = probe.busy.filter((span) => span.start >= started && span.end <= ended).reduce((sum, span) => sum + span.end - span.start, 0);
      const share = during / (ended - started);
      expect(share, `share of the burst spent in the consumer (${Math.round(share * 100)}%)`).to.be.at.most(0.3);
      expect(probe.handled.length, 'behind during the burst').to.be.below(ids.length);
      await until('the consumer catches up', () => probe.handle!.status().lag === 0, 20_000);
      expect(probe.handled.map((stored) => stored.record.id)).to.include.members(ids);
    } finally {
      await server.stop();
    }
  });
});
