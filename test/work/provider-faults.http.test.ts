/**
 * Provider faults inside a run, over real HTTP, on each vendor's fake (issue
 * 33): every scripted fault (HTTP errors with and without retry-after,
 * overload, an in-stream error, a reset, a stall past the idle timeout, a
 * slow drip, malformed JSON, bytes split at arbitrary offsets) ends the run
 * either in a retried success (one `core.work.provider_error.v1` with
 * `final: false` per failed attempt, then the outcome `completed`) or in a
 * recorded failure (`final: true`, outcome `failed`), never in a hung run:
 * every wait is bounded by `world.ended(thread, timeout)`.
 */
import { expect } from 'chai';
import { VENDORS, type VendorUnderTest } from '../fakes/provider-harness.js';
import { script, type ScriptedResponse } from '../fakes/script.js';
import { loopWorld, type LoopWorld } from './loop-harness.js';

/** The adapters' idle timeout here: a stall longer than this is a `stream_stalled` attempt. */
const IDLE_MS = 400;
/** A stall that outlasts the idle timeout several times over. */
const STALL_MS = 4_000;
/** No run may take longer than this to end, whatever the fault. */
const BOUND_MS = 15_000;
const ANSWER = 'The answer, after the fault.';

const PROVIDER_ERROR = 'core.work.provider_error.v1';
const OUTCOME = 'core.work.loop_outcome.v1';

interface Settled {
  readonly row: any;
  readonly records: any[];
  readonly errors: any[];
  readonly retried: any[];
  readonly final: any | undefined;
  readonly requests: number;
}

for (const vendor of VENDORS) {
  describe(`provider faults in a run (${vendor.provider})`, function () {
    this.timeout(60_000);
    let world: LoopWorld;
    /** The vendor with a short idle timeout, so a stall is found in milliseconds. */
    const impatient: VendorUnderTest = { ...vendor, config: (fake, overrides = {}) => vendor.config(fake, { idleTimeoutMs: IDLE_MS, ...overrides }) };

    /** Runs a goal against `responses` and waits (bounded) for its end; checks the invariant every fault must keep. */
    const runThrough = async (...responses: ScriptedResponse[]): Promise<Settled> => {
      expect(world.fake.pending(), 'the script is empty before the run').to.equal(0);
      world.fake.enqueue(...responses);
      const before = world.fake.requests.length;
      const thread = await world.run({ goal: 'answer despite the fault' });
      const row = await world.ended(thread, BOUND_MS);
      const records = await world.records(thread);
      const errors = records.filter((record) => record.body.kind === PROVIDER_ERROR).map((record) => record.body);
      const retried = errors.filter((error) => error.final === false);
      const finals = errors.filter((error) => error.final === true);
      const settled: Settled = { row, records, errors, retried, final: finals[0], requests: world.fake.requests.length - before };
      const label = JSON.stringify({ outcome: row.outcome, errors }, null, 1);
      expect(records.at(-1).body.kind, label).to.equal(OUTCOME);
      expect(['completed', 'failed'], label).to.include(row.outcome);
      expect(finals.length, label).to.be.at.most(1);
      if (row.outcome === 'completed') {
        expect(finals, label).to.have.length(0);
        // One model call per failed attempt, plus the one that answered.
        expect(settled.requests, label).to.equal(retried.length + 1);
      } else {
        expect(row.state, label).to.equal('stopped');
        expect(settled.final, label).to.be.an('object');
        expect(settled.final.provider, label).to.equal(vendor.provider);
        expect(settled.requests, label).to.equal(retried.length + 1);
      }
      expect(retried.map((error) => error.attempt), label).to.deep.equal(retried.map((_, i) => i + 1));
      for (const error of errors) expect(error.provider, label).to.equal(vendor.provider);
      return settled;
    };
    const completedAfterOneRetry = (settled: Settled, type?: string) => {
      expect(settled.row.outcome).to.equal('completed');
      expect(settled.row.summary).to.equal(ANSWER);
      expect(settled.retried).to.have.length(1);
      if (type !== undefined) expect(settled.retried[0].type).to.equal(type);
      expect(settled.retried[0].retry_in_ms).to.be.a('number');
    };
    const answer = () => script.text(ANSWER);

    before(async () => {
      world = await loopWorld(impatient);
    });
    afterEach(async () => {
      // A test that failed may leave responses queued; they must not answer the next test's run.
      while (world.fake.pending() > 0) await drainOne(world);
    });
    after(async () => world?.stop());

    it('429 with retry-after: the wait asked for, then a retried success', async () => {
      const settled = await runThrough(script.error(429, { retryAfter: '1' }), answer());
      completedAfterOneRetry(settled);
      expect(settled.retried[0].status).to.equal(429);
      expect(settled.retried[0].retry_after_ms).to.equal(1_000);
      expect(settled.retried[0].retry_in_ms).to.equal(1_000);
    });

    it(`overload (${vendor.overloadStatus}) and a plain 500: each retried`, async () => {
      const settled = await runThrough(script.error(vendor.overloadStatus), script.error(500), answer());
      expect(settled.row.outcome).to.equal('completed');
      expect(settled.retried.map((error) => error.status)).to.deep.equal([vendor.overloadStatus, 500]);
    });

    it('retries exhausted: a recorded failure, one provider_error per attempt, the last final', async () => {
      const settled = await runThrough(script.error(vendor.overloadStatus), script.error(vendor.overloadStatus), script.error(vendor.overloadStatus));
      expect(settled.row.outcome).to.equal('failed');
      expect(settled.requests).to.equal(3);
      expect(settled.retried).to.have.length(2);
      expect(settled.final.status).to.equal(vendor.overloadStatus);
      expect(settled.final.attempt, 'the final provider_error names the attempt that failed last (see /work/notes/doors33.md, bug 2)').to.equal(3);
    });

    it('a retry-after longer than the policy waits out is not waited: a recorded failure after one request', async () => {
      const settled = await runThrough(script.error(429, { retryAfter: '60' }));
      expect(settled.row.outcome).to.equal('failed');
      expect(settled.requests).to.equal(1);
      expect(settled.final.status).to.equal(429);
      expect(settled.final.retry_after_ms).to.equal(60_000);
    });

    it('a 400 invalid_request_error is not retried: one request, outcome failed', async () => {
      const settled = await runThrough(script.error(400, vendor.provider === 'ollama' ? {} : { type: 'invalid_request_error', message: 'bad request' }));
      expect(settled.row.outcome).to.equal('failed');
      expect(settled.requests).to.equal(1);
      expect(settled.retried).to.have.length(0);
      expect(settled.final.status).to.equal(400);
    });

    it('an error event mid-stream (after the 200): retried', async () => {
      const settled = await runThrough(
        script.text('half an answer that will be dropped', { faults: { errorAfterFrames: { frames: vendor.framesBeforeContent + 1, type: vendor.streamError.scripted, message: 'overloaded, mid-answer' } } }),
        answer(),
      );
      completedAfterOneRetry(settled, vendor.streamError.reported);
      // The failed attempt's words are void: only the answer is on record.
      const turns = settled.records.filter((record) => record.body.kind === 'core.work.turn.v1');
      expect(turns.map((turn) => turn.body.text)).to.deep.equal([ANSWER]);
    });

    it('a reset after some frames: retried', async () => {
      completedAfterOneRetry(await runThrough(script.text('cut off mid-answer', { faults: { resetAfterFrames: vendor.framesBeforeContent + 1 } }), answer()), 'connection_error');
    });

    it('a reset before the headers: retried', async () => {
      completedAfterOneRetry(await runThrough(script.text('never sent', { faults: { resetBeforeHeaders: true } }), answer()), 'connection_error');
    });

    it('an error answer reset before its headers: retried', async () => {
      completedAfterOneRetry(await runThrough(script.error(500, { faults: { resetBeforeHeaders: true } }), answer()), 'connection_error');
    });

    it('a stall mid-stream past the idle timeout: stream_stalled, retried', async () => {
      completedAfterOneRetry(await runThrough(script.text('stalls mid-answer', { faults: { stallAfterFrames: { frames: vendor.framesBeforeContent + 1, ms: STALL_MS } } }), answer()), 'stream_stalled');
    });

    it('a stall before the headers past the idle timeout: stream_stalled, retried', async () => {
      completedAfterOneRetry(await runThrough(script.text('never starts', { faults: { stallBeforeHeadersMs: STALL_MS } }), answer()), 'stream_stalled');
    });

    it('a slow drip (a byte every few ms, each gap well under the idle timeout) is no fault: completed, no provider_error', async () => {
      const settled = await runThrough(script.text(ANSWER, { faults: { dripMs: 3 } }));
      expect(settled.row.outcome).to.equal('completed');
      expect(settled.errors).to.have.length(0);
    });

    it('a stall shorter than the idle timeout is no fault', async () => {
      const settled = await runThrough(script.text(ANSWER, { faults: { stallAfterFrames: { frames: vendor.framesBeforeContent + 1, ms: IDLE_MS / 4 } } }));
      expect(settled.row.outcome).to.equal('completed');
      expect(settled.errors).to.have.length(0);
    });

    for (const split of [{ pieceBytes: 1 }, { pieceBytes: 7 }, [1, 2, 3, 17, 18, 40, 41, 42, 99, 100, 180, 181, 250]] as const) {
      it(`bytes split at arbitrary offsets (${JSON.stringify(split)}), inside characters and data lines: the exact answer, no provider_error`, async () => {
        const words = 'Grüße — 日本語 ✓ split everywhere';
        const settled = await runThrough(script.text([words.slice(0, 9), words.slice(9)], { faults: { split } }));
        expect(settled.row.outcome).to.equal('completed');
        expect(settled.errors).to.have.length(0);
        const turns = settled.records.filter((record) => record.body.kind === 'core.work.turn.v1');
        expect(turns.map((turn) => turn.body.text)).to.deep.equal([words]);
      });
    }

    it('a malformed JSON frame: a recorded failure (malformed_response is not retried), one request', async () => {
      const settled = await runThrough(script.text('this frame will be cut', { faults: { malformedFrame: vendor.framesBeforeContent + 1 } }));
      expect(settled.row.outcome).to.equal('failed');
      expect(settled.requests).to.equal(1);
      expect(settled.final.type).to.equal('malformed_response');
    });

    it('a stream without its terminator ends, one way or the other, never hung', async () => {
      const settled = await runThrough(script.text(ANSWER, { faults: { omitTerminator: true } }), answer(), answer());
      expect(['completed', 'failed']).to.include(settled.row.outcome);
    });
  });
}

/** Consumes one queued scripted response with a request of the run's own kind, answered and discarded. */
async function drainOne(world: LoopWorld): Promise<void> {
  const last = world.fake.requests.at(-1);
  if (!last) return;
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(last.headers)) if (typeof value === 'string' && !['host', 'content-length', 'connection'].includes(name)) headers[name] = value;
  const answer = await fetch(world.fake.url + last.path, { method: last.method, headers, body: last.rawBody }).catch(() => null);
  await answer?.text().catch(() => undefined);
}
