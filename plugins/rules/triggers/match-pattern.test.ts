import { expect } from 'chai';
import { makeRecord } from '../../../core/records/record.js';
import { matchesPattern, parseMatchPattern, type MatchPattern } from './match-pattern.js';

const record = makeRecord('a'.repeat(64), {
  parents: [],
  thread: 'th_' + 'b'.repeat(64),
  actor: 'did:sync:agent:alice',
  act: 'KNOW',
  body: { topic: 'task_completion', priority: 3, urgent: true, nested: { level: 'high' }, list: [1] },
  clock: 0,
  data_type: 'SCALAR',
  judged_by: null,
});

function pattern(source: string): MatchPattern {
  const parsed = parseMatchPattern(source);
  if (typeof parsed === 'string') throw new Error(parsed);
  return parsed;
}

describe('event trigger match patterns', () => {
  it('ANDs clauses over top-level fields and body paths', () => {
    expect(matchesPattern(pattern('act=KNOW,body.topic=task_completion'), record, 'default')).to.equal(true);
    expect(matchesPattern(pattern('act=KNOW, body.topic=other'), record, 'default')).to.equal(false);
    expect(matchesPattern(pattern('actor=did:sync:agent:alice'), record, 'default')).to.equal(true);
    expect(matchesPattern(pattern('body.nested.level=high'), record, 'default')).to.equal(true);
  });

  it('compares numbers and booleans by their JSON spelling, never objects', () => {
    expect(matchesPattern(pattern('body.priority=3'), record, 'default')).to.equal(true);
    expect(matchesPattern(pattern('body.priority=3.0'), record, 'default')).to.equal(false);
    expect(matchesPattern(pattern('body.urgent=true'), record, 'default')).to.equal(true);
    expect(matchesPattern(pattern('body.nested=*'), record, 'default')).to.equal(true);
    expect(matchesPattern(pattern('body.list=1'), record, 'default')).to.equal(false);
  });

  it('supports != and the presence wildcard', () => {
    expect(matchesPattern(pattern('act!=DO'), record, 'default')).to.equal(true);
    expect(matchesPattern(pattern('act!=KNOW'), record, 'default')).to.equal(false);
    expect(matchesPattern(pattern('body.missing!=*'), record, 'default')).to.equal(true);
    expect(matchesPattern(pattern('body.topic!=*'), record, 'default')).to.equal(false);
  });

  it('matches the namespace the record belongs to', () => {
    expect(matchesPattern(pattern('namespace=acme/prod'), record, 'acme/prod')).to.equal(true);
    expect(matchesPattern(pattern('namespace=acme'), record, 'acme/prod')).to.equal(false);
  });

  it('refuses malformed patterns with a message', () => {
    for (const bad of ['', 'act', '=KNOW', 'act=', 'topic=x', 'body=x', 'body..x=1', 'body.a b=1']) {
      expect(parseMatchPattern(bad), bad).to.be.a('string');
    }
  });
});
