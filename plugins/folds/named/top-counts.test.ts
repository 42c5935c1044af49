import { expect } from 'chai';
import fc from 'fast-check';
import { newTopCounts, noteCount } from './top-counts.js';

describe('top counts', () => {
  it('keeps exactly the N highest counts (ties: the first to reach the count), against a brute-force reference', () => {
    fc.assert(
      fc.property(fc.array(fc.nat(12), { maxLength: 300 }), fc.integer({ min: 1, max: 5 }), (keys, size) => {
        const top = newTopCounts(size);
        const counts = new Map<string, number>();
        const reachedAt = new Map<string, number>();
        keys.forEach((k, i) => {
          const key = `k${k}`;
          const next = (counts.get(key) ?? 0) + 1;
          counts.set(key, next);
          reachedAt.set(`${key}@${next}`, i);
          noteCount(top, key, next);
        });
        const expected = [...counts]
          .sort(([a, ca], [b, cb]) => cb - ca || reachedAt.get(`${a}@${ca}`)! - reachedAt.get(`${b}@${cb}`)!)
          .slice(0, size)
          .map(([key, count]) => ({ key, count }));
        expect(top.entries).to.deep.equal(expected);
      }),
      { numRuns: 200 },
    );
  });
});
