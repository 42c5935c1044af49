import { expect } from 'chai';
import { snippet } from './snippet.js';

describe('snippet', () => {
  it('marks each matched word by its offsets, case-insensitively, whatever the punctuation', () => {
    const s = snippet('The Budget, and the budget-plan.', new Set(['budget']));
    expect(s.text).to.equal('The Budget, and the budget-plan.');
    expect(s.offsets.map(([a, b]) => s.text.slice(a, b))).to.deep.equal(['Budget', 'budget']);
  });

  it('cuts a long text around the first match, with ellipses, and keeps offsets right', () => {
    const text = 'filler '.repeat(100) + 'the needle is here ' + 'tail '.repeat(100);
    const s = snippet(text, new Set(['needle']), 80);
    expect(s.text.startsWith('…')).to.equal(true);
    expect(s.text.endsWith('…')).to.equal(true);
    expect(s.text.length).to.be.at.most(82);
    expect(s.offsets).to.have.length(1);
    expect(s.text.slice(...s.offsets[0]!)).to.equal('needle');
  });

  it('counts offsets in UTF-16 code units', () => {
    const s = snippet('😀 café budget', new Set(['budget', 'café']));
    expect(s.offsets.map(([a, b]) => s.text.slice(a, b))).to.deep.equal(['café', 'budget']);
  });
});
