import { expect } from 'chai';
import { nearestName } from './nearest-name.js';

describe('nearestName', () => {
  const known = ['thread', 'emit', 'export', 'import', 'backup', 'restore', 'sa', 'sync', 'search', 'serve'];
  for (const [typed, expected] of [
    ['thraed', 'thread'],
    ['threads', 'thread'],
    ['exprot', 'export'],
    ['bakcup', 'backup'],
    ['rest', 'restore'],
    ['Emit', 'emit'],
    ['zzzzzz', null],
    ['s', null],
  ] as const) {
    it(`${typed} → ${expected}`, () => expect(nearestName(typed, known)).to.equal(expected));
  }
});
