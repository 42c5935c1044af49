import { expect } from 'chai';
import { LoomError } from '../errors/loom-error.js';
import { FoldLoadingError, whenFoldsLoaded } from './fold-loading-error.js';

describe('whenFoldsLoaded', () => {
  it('runs the work again once the fold it waited for has loaded, as often as a fold was loading', async () => {
    let loadA!: () => void;
    let loadB!: () => void;
    const a = new Promise<void>((resolve) => (loadA = resolve));
    const b = new Promise<void>((resolve) => (loadB = resolve));
    const loaded = new Set<string>();
    let runs = 0;
    const answer = whenFoldsLoaded(() => {
      runs++;
      if (!loaded.has('a')) throw new FoldLoadingError('a', a);
      if (!loaded.has('b')) throw new FoldLoadingError('b', b);
      return 'answered';
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(runs).to.equal(1);
    loaded.add('a');
    loadA();
    await new Promise((resolve) => setImmediate(resolve));
    expect(runs).to.equal(2);
    loaded.add('b');
    loadB();
    expect(await answer).to.equal('answered');
    expect(runs).to.equal(3);
  });

  it('passes any other error on at once, and a stop while waiting as its SERVICE_UNAVAILABLE', async () => {
    let runs = 0;
    const other = await whenFoldsLoaded(() => {
      runs++;
      throw new LoomError('NOT_FOUND', 'no such thing');
    }).catch((error: unknown) => error);
    expect(other).to.include({ code: 'NOT_FOUND' });
    expect(runs).to.equal(1);
    const stopped = await whenFoldsLoaded(() => {
      throw new FoldLoadingError('a', Promise.reject(new LoomError('SERVICE_UNAVAILABLE', 'the server is stopping')));
    }).catch((error: unknown) => error);
    expect(stopped).to.include({ code: 'SERVICE_UNAVAILABLE', message: 'the server is stopping' });
  });
});
