import { expect } from 'chai';
import { cancelledBy, correctedBody, correctionFields, mayCorrect, supersededBy } from './corrections.js';
import { ALICE, BOB, TestLog } from '../../test/helpers/test-log.js';

describe('corrections and cancellations', () => {
  const log = new TestLog();
  const original = log.add(ALICE, 'INTEND', { goal: 'old', kind: 'core.task.v1', labels: ['a'], namespace: 'acme' });

  it('a correction is a KNOW with topic correction and a record id in supersedes', () => {
    expect(supersededBy(log.add(ALICE, 'KNOW', { topic: 'correction', supersedes: original.id }))).to.equal(original.id);
    expect(supersededBy(log.add(ALICE, 'DO', { topic: 'correction', supersedes: original.id })), 'not a KNOW').to.equal(null);
    expect(supersededBy(log.add(ALICE, 'KNOW', { topic: 'note', supersedes: original.id })), 'another topic').to.equal(null);
    expect(supersededBy(log.add(ALICE, 'KNOW', { topic: 'correction', supersedes: 'abc' })), 'not a record id').to.equal(null);
  });

  it('a cancellation is a DO with a record id in cancels', () => {
    expect(cancelledBy(log.add(BOB, 'DO', { cancels: original.id }))).to.equal(original.id);
    expect(cancelledBy(log.add(BOB, 'KNOW', { cancels: original.id }))).to.equal(null);
    expect(cancelledBy(log.add(BOB, 'DO', { cancels: 42 }))).to.equal(null);
  });

  it('lays the correction less its markers over the superseded body, leaving both records untouched', () => {
    const correction = log.add(ALICE, 'KNOW', { topic: 'correction', supersedes: original.id, reason: 'typo', kind: 'x.correction.v1', _v: 2, namespace: 'other', goal: 'new', extra: true });
    expect(correctionFields(correction)).to.deep.equal({ goal: 'new', extra: true });
    expect(correctedBody(original.body, correction)).to.deep.equal({ goal: 'new', kind: 'core.task.v1', labels: ['a'], namespace: 'acme', extra: true });
    expect(original.body['goal']).to.equal('old');
  });

  it('only the superseded record\'s own actor may correct it', () => {
    const mine = log.add(ALICE, 'KNOW', { topic: 'correction', supersedes: original.id });
    const theirs = log.add(BOB, 'KNOW', { topic: 'correction', supersedes: original.id });
    expect(mayCorrect(mine, original.actor)).to.equal(true);
    expect(mayCorrect(theirs, original.actor)).to.equal(false);
  });
});
