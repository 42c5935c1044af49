import { expect } from 'chai';
import { untilAborted } from './until-aborted.js';

describe('untilAborted', () => {
  const never = () => new Promise<string>(() => undefined);

  it('rejects as soon as the signal aborts, though the work never settles', async () => {
    const controller = new AbortController();
    const waiting = untilAborted(never(), controller.signal);
    setTimeout(() => controller.abort(), 10);
    const error = await waiting.then(() => null, (failure: unknown) => failure);
    expect((error as Error)?.name).to.equal('AbortError');
  });

  it('rejects at once for a signal already aborted, with its reason (a timeout)', async () => {
    const signal = AbortSignal.timeout(1);
    await new Promise((done) => setTimeout(done, 20));
    const error = await untilAborted(never(), signal).then(() => null, (failure: unknown) => failure);
    expect((error as Error)?.name).to.equal('TimeoutError');
  });

  it("passes the work's value or error through, and a later abort changes nothing", async () => {
    const controller = new AbortController();
    expect(await untilAborted(Promise.resolve('answer'), controller.signal)).to.equal('answer');
    const error = await untilAborted(Promise.reject(new Error('refused')), controller.signal).then(() => null, (failure: unknown) => failure);
    expect((error as Error).message).to.equal('refused');
    controller.abort();
  });
});
