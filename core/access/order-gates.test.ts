import { expect } from 'chai';
import type { IngestGate } from './ingest-gate.js';
import { GateOrderError, orderGates } from './order-gates.js';

const gate = (name: string, order: { before?: string[]; after?: string[] } = {}): IngestGate => ({ name, ...order, check() {} });
const names = (gates: IngestGate[]) => gates.map((g) => g.name);

describe('ingest gate order', () => {
  it('keeps contribution order when nothing says otherwise', () => {
    expect(names(orderGates([gate('a.one'), gate('a.two'), gate('b.one')]))).to.deep.equal(['a.one', 'a.two', 'b.one']);
  });

  it('honours before and after', () => {
    expect(names(orderGates([gate('a.slow'), gate('b.cheap', { before: ['a.slow'] })]))).to.deep.equal(['b.cheap', 'a.slow']);
    expect(names(orderGates([gate('a.first', { after: ['b.second'] }), gate('b.second')]))).to.deep.equal(['b.second', 'a.first']);
  });

  it('refuses cycles, unknown names, duplicates and malformed names at startup', () => {
    expect(() => orderGates([gate('a.x', { before: ['b.y'] }), gate('b.y', { before: ['a.x'] })])).to.throw(GateOrderError, /cycle/);
    expect(() => orderGates([gate('a.x', { after: ['c.absent'] })])).to.throw(GateOrderError, /c\.absent/);
    expect(() => orderGates([gate('a.x'), gate('a.x')])).to.throw(GateOrderError, /twice/);
    expect(() => orderGates([gate('nodot')])).to.throw(GateOrderError, /<plugin>\.<check>/);
  });
});
