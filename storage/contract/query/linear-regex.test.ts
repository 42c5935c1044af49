import { expect } from 'chai';
import { compileLinearRegex, UnboundedPatternError } from './linear-regex.js';
import { likeMatcher } from './like-pattern.js';
import { CATASTROPHIC_PATTERNS } from '../../compliance/redos-patterns.js';


const SAMPLES = ['', 'a', 'ab', 'A', 'é', 'É', '😀', 'a\nb', 'a\rb', 'x\u2028y', ' \t\u00a0\u3000', 'did:key:z6Mk', 'abc123', '[x]', 'a-b', '\u0000', 'ﬀ', 'ſ', 'K', 'deployed abc to prod', 'Ω', '-', '^$'];

const PATTERNS: Array<[string, string]> = [
  ['^a', ''], ['a$', ''], ['^[ab]+$', 'i'], ['^.$', ''], ['^.$', 's'], ['^a.b$', ''], ['^a.b$', 's'], ['\\s', ''], ['^\\S+$', ''], ['[\\s]', ''], ['[^\\s]', ''],
  ['^\\w+$', ''], ['\\W', ''], ['\\d', ''], ['\\bab', ''], ['\\Bb', ''], ['[\\b]', ''], ['\\u{1F600}', ''], ['\\uD83D\\uDE00', ''], ['\\u00e9', 'i'], ['\\x41', 'i'],
  ['\\cJ', ''], ['\\0', ''], ['[^]', ''], ['^[]', ''], ['[a-c-e]', ''], ['[-a]', ''], ['[a-]', ''], ['\\[x\\]', ''], ['\\^\\$', ''], ['\\/', ''], ['[\\-]', ''], ['\\p{L}', ''],
  ['\\p{Script=Greek}', ''], ['\\P{Lu}', ''], ['^b$', 'm'], ['^a$', 'm'], ['(?:ab)+', ''], ['(?<n>a)b', ''], ['a{2,}', ''], ['^.{2}', ''], ['a+?b', ''], ['ω', 'i'], ['É', 'i'],
  ['p-|j', ''], ['^b$', 'ms'], ['x$', 'm'], ['%', ''], ['_', ''], ['^did:', ''], ['[^a-z]', ''], ['\\\\', ''], ['\\n', ''], ['\\t|\\v|\\f|\\r', ''], ['[\\u2028]', ''], ['^$', ''], ['^(a|b)*c?$', ''],
];

describe('compileLinearRegex', () => {
  for (const [source, flags] of PATTERNS) {
    it(`matches /${source}/${flags}u exactly like RegExp`, () => {
      const reference = new RegExp(source, flags + 'u');
      const linear = compileLinearRegex(source, flags);
      // Documented difference: with m, only \n ends a line for ^ and $.
      const samples = flags.includes('m') ? SAMPLES.filter((s) => !/[\r\u2028\u2029]/.test(s)) : SAMPLES;
      for (const sample of samples) expect(linear.test(sample), JSON.stringify(sample)).to.equal(reference.test(sample));
    });
  }

  for (const [source, why] of [
    ['(a)\\1', /backreference/],
    ['(?<x>a)\\k<x>', /backreference/],
    ['a(?=b)', /lookaround/],
    ['a(?!b)', /lookaround/],
    ['(?<=a)b', /lookaround/],
    ['(?<!a)b', /lookaround/],
    ['a{1001}', /1001/],
    ['\\p{ASCII}', /linear-time/],
  ] as const) {
    it(`refuses ${source} with a reason`, () => {
      expect(() => compileLinearRegex(source, '')).to.throw(UnboundedPatternError, why);
    });
  }

  it('ends lines only at \\n under m (the one documented difference from RegExp)', () => {
    expect(compileLinearRegex('^b$', 'm').test('a\nb')).to.equal(true);
    expect(compileLinearRegex('^b$', 'm').test('a\rb')).to.equal(false);
  });

  it('refuses what is not an ECMAScript regular expression with a SyntaxError', () => {
    expect(() => compileLinearRegex('(', '')).to.throw(SyntaxError);
    expect(() => compileLinearRegex('\\z', '')).to.throw(SyntaxError);
  });

  it('decides catastrophic patterns over long inputs in linear time', () => {
    const inputs = ['deployed ' + 'a1'.repeat(14) + ' to prod', 'a'.repeat(50_000) + '!', 'x'.repeat(50_000)];
    for (const source of CATASTROPHIC_PATTERNS) {
      const linear = compileLinearRegex(source, '');
      const started = performance.now();
      for (const input of inputs) linear.test(input);
      expect(performance.now() - started, source).to.be.below(500);
    }
  });
});

describe('likeMatcher', () => {
  it('matches % runs and _ code points', () => {
    expect(likeMatcher('a%').test('abc')).to.equal(true);
    expect(likeMatcher('a_c').test('a😀c')).to.equal(true);
    expect(likeMatcher('a\\%').test('a%')).to.equal(true);
    expect(likeMatcher('a\\%').test('ab')).to.equal(false);
    expect(likeMatcher('%').test('a\nb')).to.equal(true);
    expect(likeMatcher('a.b').test('axb')).to.equal(false);
  });

  it('decides a pattern of many % over a long text in linear time', () => {
    const matcher = likeMatcher('%a%a%a%a%a%a%a%a%a%a%b');
    const started = performance.now();
    expect(matcher.test('a'.repeat(100_000))).to.equal(false);
    expect(performance.now() - started).to.be.below(500);
  });
});
