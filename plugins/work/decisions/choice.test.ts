import { expect } from 'chai';
import { LoomError } from '../../../core/errors/loom-error.js';
import { APPROVE_REJECT, resolveChoice, termsOf, type AskTerms, type DecideInput } from './choice.js';
import { askFields } from './decision-request.js';

const terms = (over: Partial<AskTerms> = {}): AskTerms => ({
  options: [
    { id: 'a', label: 'Blue', description: 'Paint it blue.', recommended: true },
    { id: 'b', label: 'Red', description: 'Paint it red.', recommended: false },
  ],
  allow_other: false,
  multi: false,
  ...over,
});

const code = (fn: () => unknown): string => {
  try {
    fn();
  } catch (error) {
    if (error instanceof LoomError) return error.code;
    throw error;
  }
  return 'no refusal';
};

describe('decision choice rules (spec §4.9)', () => {
  it('an option id resolves to its label and description, never the id', () => {
    const choice = resolveChoice(terms(), { decision: 'b' });
    expect(choice).to.deep.include({ chosen: ['b'], other: null, approved: null, words: 'Red: Paint it red.' });
    expect(choice.words).to.not.contain('b:');
  });

  it('the reason follows the words', () => {
    expect(resolveChoice(terms(), { decision: 'a', reason: 'brand colour' }).words).to.equal('Blue: Paint it blue.\nReason: brand colour');
  });

  it('refuses an id the ask does not offer: BAD_OPTION', () => {
    expect(code(() => resolveChoice(terms(), { decision: 'c' }))).to.equal('BAD_OPTION');
    expect(code(() => resolveChoice(terms({ multi: true }), { decision: 'a', decisions: ['a', 'zz'] }))).to.equal('BAD_OPTION');
  });

  it('other: needs allow_other (OTHER_NOT_ALLOWED) and a non-blank provided_value (PROVIDED_VALUE_REQUIRED)', () => {
    expect(code(() => resolveChoice(terms(), { decision: 'other', provided_value: 'green' }))).to.equal('OTHER_NOT_ALLOWED');
    expect(code(() => resolveChoice(terms({ allow_other: true }), { decision: 'other' }))).to.equal('PROVIDED_VALUE_REQUIRED');
    expect(code(() => resolveChoice(terms({ allow_other: true }), { decision: 'other', provided_value: '   ' }))).to.equal('PROVIDED_VALUE_REQUIRED');
    expect(resolveChoice(terms({ allow_other: true }), { decision: 'other', provided_value: ' Green, like the logo. ' })).to.deep.include({ other: 'Green, like the logo.', words: 'Green, like the logo.' });
  });

  it('several choices need multi (MULTI_NOT_ALLOWED); with it, each resolves in order', () => {
    expect(code(() => resolveChoice(terms(), { decision: 'a', decisions: ['b'] }))).to.equal('MULTI_NOT_ALLOWED');
    // The same id twice is one choice.
    expect(resolveChoice(terms(), { decision: 'a', decisions: ['a'] }).chosen).to.deep.equal(['a']);
    expect(resolveChoice(terms({ multi: true }), { decision: 'a', decisions: ['b'] }).words).to.equal('Blue: Paint it blue.\nRed: Paint it red.');
  });

  it('an older ask (no options) takes approve or reject, and says which', () => {
    const older = termsOf({ question: 'Go?' });
    expect(older.options).to.deep.equal(APPROVE_REJECT);
    expect(resolveChoice(older, { decision: 'approve' }).approved).to.equal(true);
    expect(resolveChoice(older, { decision: 'reject', reason: 'not now' }).approved).to.equal(false);
    expect(code(() => resolveChoice(older, { decision: 'maybe' } as DecideInput))).to.equal('BAD_OPTION');
  });

  it('the ask tool: options get ids when the model gives none, descriptions one line; other is reserved; a question needs options or allow_other', () => {
    const fields = askFields({ question: 'Which?', options: [{ label: 'One', description: 'first\nline' }, { label: 'Two', recommended: true }] });
    expect(fields).to.deep.include({ about: 'ask', allow_other: false, multi: false });
    expect((fields as { options: unknown }).options).to.deep.equal([
      { id: 'option_1', label: 'One', description: 'first line', recommended: false },
      { id: 'option_2', label: 'Two', description: '', recommended: true },
    ]);
    expect(askFields({ question: 'Anything?' })).to.deep.include({ allow_other: true, options: [] });
    expect(askFields({ question: 'x', options: [], allow_other: false })).to.have.property('invalid');
    expect(askFields({ question: 'x', options: [{ id: 'other', label: 'O' }] })).to.have.property('invalid');
    expect(askFields({ question: 'x', options: [{ id: 'a', label: 'A' }, { id: 'a', label: 'B' }] })).to.have.property('invalid');
    expect(askFields({ question: '' })).to.have.property('invalid');
  });
});
