import { expect } from 'chai';
import { didSyntaxError } from '../../core/records/did-syntax.js';
import { memberDid } from './member-did.js';

describe('memberDid', () => {
  it('is the same for the same owner and label, and differs across owners', () => {
    const a = memberDid('did:sync:user:alice', 'Code Reviewer');
    expect(a).to.equal(memberDid('did:sync:user:alice', 'Code Reviewer'));
    expect(a).to.not.equal(memberDid('did:sync:user:bob', 'Code Reviewer'));
    expect(a).to.match(/^did:sync:agent:code-reviewer-[0-9a-f]{16}$/);
  });

  it('is a valid DID for any label', () => {
    for (const label of ['  ', 'Ünïcödé ✓', 'x'.repeat(300), '../..', '日本語']) expect(didSyntaxError(memberDid('did:sync:user:alice', label)), label).to.equal(null);
  });
});
