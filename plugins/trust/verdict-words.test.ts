/**
 * Verdict words: the two sets (one list, in core/folds/verdict-outcome.ts),
 * matching, and agreement with the task fold: a task is approved exactly when
 * its verdict is success evidence, rejected exactly when it is failure evidence.
 */
import { expect } from 'chai';
import { verdictOutcome } from '../../core/folds/verdict-outcome.js';
import { FAILURE, FAILURE_WORDS, NO_EVIDENCE, outcomeOfWord, SUCCESS, SUCCESS_WORDS } from './verdict-words.js';

describe('trust: verdict words', () => {
  it('reads success and failure words ignoring case and surrounding spaces; anything else is no evidence', () => {
    for (const word of SUCCESS_WORDS) for (const form of [word, word.toUpperCase(), ` ${word}\t`]) expect(outcomeOfWord(form), form).to.equal(SUCCESS);
    for (const word of FAILURE_WORDS) for (const form of [word, word.toUpperCase(), ` ${word} `]) expect(outcomeOfWord(form), form).to.equal(FAILURE);
    for (const word of ['', 'maybe', 'needs_changes', 'accept!', 'not accepted', 'acceptable']) expect(outcomeOfWord(word), word).to.equal(NO_EVIDENCE);
  });

  it('the sets do not overlap', () => {
    expect(SUCCESS_WORDS.filter((w) => FAILURE_WORDS.includes(w))).to.deep.equal([]);
  });

  it('agrees word for word with the task fold’s reading of verdicts', () => {
    for (const word of SUCCESS_WORDS) expect(verdictOutcome(word), word).to.equal('approved');
    for (const word of FAILURE_WORDS) expect(verdictOutcome(word), word).to.equal('rejected');
    for (const word of ['maybe', 'needs_changes', 'ok', 'lgtm', 'cancelled']) expect([verdictOutcome(word), outcomeOfWord(word)], word).to.deep.equal([null, NO_EVIDENCE]);
  });
});
