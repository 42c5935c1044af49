import { expect } from 'chai';
import { LoomError } from '../../../core/errors/loom-error.js';
import { parseRecordQuery } from './parse-query.js';

function refusal(raw: unknown): LoomError {
  try {
    parseRecordQuery(raw);
  } catch (error) {
    expect(error).to.be.instanceOf(LoomError);
    return error as LoomError;
  }
  throw new Error(`expected ${JSON.stringify(raw)} to be refused`);
}

describe('parseRecordQuery', () => {
  it('applies defaults and clamps the limit to 1000', () => {
    expect(parseRecordQuery({})).to.include({ limit: 100, offset: 0, explain: false });
    expect(parseRecordQuery({ limit: 5000 }).limit).to.equal(1000);
  });

  it('turns the thread shorthand into a thread equality', () => {
    const q = parseRecordQuery({ thread: 'th_x', filter: { act: 'DO' } });
    expect(JSON.stringify(q.filter)).to.contain('"column":"thread"').and.to.contain('th_x');
  });

  for (const [name, raw] of [
    ['unknown operator', { filter: { act: { $foo: 1 } } }],
    ['unknown path', { filter: { kind: 'x' } }],
    ['bare body', { filter: { body: 1 } }],
    ['type mismatch on a column', { filter: { clock: 'x' } }],
    ['unknown act', { filter: { act: 'SHOUT' } }],
    ['object equality', { filter: { 'body.a': { b: 1 } } }],
    ['array equality', { filter: { 'body.a': [1] } }],
    ['$in not an array', { filter: { act: { $in: 'DO' } } }],
    ['ordered null', { filter: { 'body.a': { $gt: null } } }],
    ['invalid regex', { filter: { 'body.a': { $regex: '(' } } }],
    ['regex backreference', { filter: { 'body.a': { $regex: '^(a+)\\1$' } } }],
    ['regex lookahead', { filter: { 'body.a': { $regex: 'a(?=b)' } } }],
    ['regex repeat beyond 1000', { filter: { 'body.a': { $regex: 'a{1001}' } } }],
    ['bad regex options', { filter: { 'body.a': { $regex: 'a', $options: 'g' } } }],
    ['$options alone', { filter: { 'body.a': { $options: 'i' } } }],
    ['empty $or', { filter: { $or: [] } }],
    ['too deep', { filter: { $not: { $not: { $not: { $not: { $not: { $not: { $not: { $not: { $not: { $not: { act: 'DO' } } } } } } } } } } } }],
    ['two sort keys', { sort: { clock: 1, act: 1 } }],
    ['bad sort direction', { sort: { clock: 2 } }],
    ['negative offset', { offset: -1 }],
    ['offset beyond 2^53', { offset: 2 ** 63 }],
    ['fractional limit', { limit: 1.5 }],
    ['unknown query field', { where: {} }],
    ['not an object', []],
  ] as const) {
    it(`refuses ${name} with INVALID_QUERY`, () => expect(refusal(raw).code).to.equal('INVALID_QUERY'));
  }

  it('names the field and the reason when a regex cannot run in linear time', () => {
    const error = refusal({ filter: { 'body.summary': { $regex: '(a)\\1' } } });
    expect(error.message).to.contain('filter.body.summary.$regex').and.to.contain('backreference');
  });

  it('accepts nested quantifiers and overlapping alternatives: they run in linear time', () => {
    parseRecordQuery({ filter: { 'body.a': { $regex: '^(a+)+$' }, 'body.b': { $regex: '^deployed (\\w|\\w)*$' } } });
  });

  it('accepts safe regular expressions and every documented operator', () => {
    parseRecordQuery({
      filter: {
        $and: [{ act: { $in: ['DO', 'KNOW'] } }, { act: { $nin: ['GET'] } }],
        $or: [{ clock: { $gte: 1, $lt: 9 } }, { clock: { $gt: 10, $lte: 20 } }, { clock: { $ne: 5 } }],
        $not: { 'body.kind': { $like: 'x.%' } },
        'body.title': { $ilike: '%RELEASE%' },
        'body.tag': { $regex: '^v[0-9]+$', $options: 'i' },
        'body._refs.track.id': { $exists: true },
        created_at: { $gte: '2026-01-01T00:00:00Z' },
        judged_by: null,
      },
      sort: { 'body.priority': -1 },
    });
  });
});
