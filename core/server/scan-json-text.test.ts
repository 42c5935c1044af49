import { expect } from 'chai';
import { isExactNumber, scanJsonText } from './scan-json-text.js';

describe('scanJsonText', () => {
  for (const text of ['0', '-0', '1', '1.5', '0.1', '1e21', '1E-7', '5e-324', '9007199254740991', '-9007199254740991', '9007199254740992', '0.30000000000000004', '1.7976931348623157e308', '120.50', '0.0', '1e0', '123456789012345680'])
    it(`accepts the exact number ${text}`, () => expect(isExactNumber(text)).to.equal(true));

  for (const text of ['9007199254740993', '-9007199254740993', '1.00000000000000000001', '1e400', '-1e400', '1e-400', '123456789012345678', '0.1000000000000000055511151231257827'])
    it(`refuses the inexact number ${text}`, () => expect(isExactNumber(text)).to.equal(false));

  it('names the path of an inexact number', () => {
    expect(scanJsonText('[{"a":1},{"body":{"n":[1,9007199254740993]}}]')).to.deep.include({ kind: 'number', path: '[1].body.n[1]', text: '9007199254740993' });
  });

  it('names the path of a duplicate member, escapes decoded', () => {
    expect(scanJsonText('{"a":{"x":1,"\\u0078":2}}')).to.deep.include({ kind: 'duplicate', path: 'a.x', key: 'x' });
    expect(scanJsonText('{"a":"\\"","b":{"a":1}}')).to.equal(null);
  });

  it('refuses depth, members and values past the limits', () => {
    const limits = { maxDepth: 3, maxMembers: 2, maxValues: 10 };
    expect(scanJsonText('[[[[1]]]]', limits)).to.deep.include({ kind: 'limit', path: '[0][0][0]' });
    expect(scanJsonText('{"a":{"x":1,"y":2,"z":3}}', limits)).to.deep.include({ kind: 'limit', path: 'a' });
    expect(scanJsonText('[1,2,3,4,5,6,7,8,9,10]', limits)?.kind).to.equal('limit');
    expect(scanJsonText('[1,2,3,4,5,6,7,8,9]', limits)).to.equal(null);
  });

  it('stops on malformed text without throwing', () => {
    for (const text of ['{"a', '{"a":', '[1,', '"\\', '{"\\x":1,"\\x":2}', '-', '1.2.3', '}}]]']) expect(() => scanJsonText(text)).not.to.throw();
  });

  it('scans a 50,000-key object and a deep 1 MiB batch in linear time', () => {
    const keys = `{${Array.from({ length: 9_999 }, (_, i) => `"k${i}":${i}`).join(',')}}`;
    const batch = JSON.stringify(Array.from({ length: 3_000 }, (_, i) => ({ i, body: { a: { b: { c: [1, 2, 3] } } } })));
    const started = performance.now();
    expect(scanJsonText(keys)).to.equal(null);
    expect(scanJsonText(batch)).to.equal(null);
    expect(performance.now() - started).to.be.below(500);
  });
  it('strings with quotes and runs of backslashes end where JSON says: duplicates found exactly, values never read as keys', () => {
    // Keys and values full of the characters that end or escape a string; a value that looked like a closing quote
    // followed by a member would make the scan see a key that is not there.
    const pieces = ['a', '"', '\\', '\\"', 'a\\', '"\\', 'x":1,"y', '\\\\"', ''];
    let seed = 7;
    const next = (n: number) => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % n;
    const text = (k: number) => Array.from({ length: 1 + next(k) }, () => pieces[next(pieces.length)]!).join('');
    for (let round = 0; round < 500; round++) {
      const entries: Array<[string, string]> = Array.from({ length: 1 + next(6) }, () => [text(3), text(4)]);
      const written = '{' + entries.map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`).join(',') + '}';
      const keys = entries.map(([k]) => k);
      const duplicate = keys.find((k, i) => keys.indexOf(k) !== i);
      const finding = scanJsonText(`{"outer":${written},"after":"\\\\"}`);
      if (duplicate === undefined) expect(finding, written).to.equal(null);
      else expect(finding, written).to.deep.include({ kind: 'duplicate', key: duplicate });
      if (duplicate !== undefined) continue;
      // Every key was read as written: naming the last one again is found, under its own name.
      const again = written.slice(0, -1) + `,${JSON.stringify(keys.at(-1))}:0}`;
      expect(scanJsonText(again), again).to.deep.include({ kind: 'duplicate', key: keys.at(-1) });
    }
  });
});
