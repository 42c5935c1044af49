import { expect } from 'chai';
import { PairError } from './pair-error.js';
import { parsePeerJson } from './peer-json.js';

describe('parsePeerJson', () => {
  const refusal = (text: string): PairError => {
    try {
      parsePeerJson(text, 'the page');
    } catch (error) {
      if (error instanceof PairError) return error;
      throw error;
    }
    throw new Error('expected a refusal');
  };

  it('reads a well-formed page', () => {
    expect(parsePeerJson('{"records":[{"body":{"n":9007199254740991}}],"has_more":false}', 'the page')).to.deep.equal({ records: [{ body: { n: 9007199254740991 } }], has_more: false });
  });

  it('refuses a number JSON would round, naming where it is: the record would be stored with other content than the peer signed', () => {
    const error = refusal('{"records":[{"record":{"body":{"amount":9007199254740993}}}]}');
    expect(error.code).to.equal('PARSE_ERROR');
    expect(error.message).to.contain('amount').and.to.contain('9007199254740993');
  });

  it('refuses a member named twice and text that is not JSON', () => {
    expect(refusal('{"records":[],"records":[{"id":"x"}]}').message).to.contain('"records" twice');
    expect(refusal('{"records":').code).to.equal('PARSE_ERROR');
  });
});
