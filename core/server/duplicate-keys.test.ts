import { expect } from 'chai';
import { firstDuplicateKey } from './duplicate-keys.js';

describe('firstDuplicateKey', () => {
  it('finds a repeated member name at any depth, after decoding escapes', () => {
    expect(firstDuplicateKey('{"a":1,"a":2}')).to.equal('a');
    expect(firstDuplicateKey('{"x":{"b":1,"c":[{"d":1,"d":2}]}}')).to.equal('d');
    expect(firstDuplicateKey('{"\\u0061":1,"a":2}')).to.equal('a');
    expect(firstDuplicateKey('[{"a":1},{"a":1}]')).to.equal(null);
  });

  it('is not fooled by strings that look like structure', () => {
    expect(firstDuplicateKey('{"a":"{\\"a\\":1,","b":"x,\\"a\\":"}')).to.equal(null);
    expect(firstDuplicateKey('{"a":["a","a"],"b":{"a":1}}')).to.equal(null);
    expect(firstDuplicateKey('{"k\\"":1,"k":2}')).to.equal(null);
    expect(firstDuplicateKey('{"body":{"x":1},"body":{"x":1}}')).to.equal('body');
  });

  it('agrees with a reference over random documents', () => {
    let seed = 3;
    const random = () => ((seed = (seed * 16807) % 2147483647) / 2147483647);
    const keys = ['a', 'b', 'c', 'é', 'a"', '\\', ','];
    const value = (depth: number): string => {
      const r = random();
      if (depth > 3 || r < 0.3) return JSON.stringify(keys[Math.floor(random() * keys.length)]);
      if (r < 0.5) return `[${Array.from({ length: Math.floor(random() * 3) }, () => value(depth + 1)).join(',')}]`;
      const names = Array.from({ length: Math.floor(random() * 4) }, () => keys[Math.floor(random() * keys.length)]!);
      return `{${names.map((n) => `${JSON.stringify(n)}:${value(depth + 1)}`).join(',')}}`;
    };
    /** Reference: a recursive-descent reading of the (well-formed) text that compares each object's member names. */
    const hasDuplicate = (text: string): boolean => {
      let i = 0;
      let found = false;
      const ws = () => {
        while (/\s/.test(text[i] ?? '')) i++;
      };
      const str = (): string => {
        const start = i;
        i++;
        while (text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
        i++;
        return JSON.parse(text.slice(start, i)) as string;
      };
      const val = (): void => {
        ws();
        if (text[i] === '{') {
          i++;
          const seen = new Set<string>();
          ws();
          while (text[i] !== '}') {
            ws();
            const key = str();
            if (seen.has(key)) found = true;
            seen.add(key);
            ws();
            i++; // :
            val();
            ws();
            if (text[i] === ',') i++;
            ws();
          }
          i++;
        } else if (text[i] === '[') {
          i++;
          ws();
          while (text[i] !== ']') {
            val();
            ws();
            if (text[i] === ',') i++;
            ws();
          }
          i++;
        } else if (text[i] === '"') str();
        else while (i < text.length && !',]}'.includes(text[i]!)) i++;
      };
      val();
      return found;
    };
    let duplicates = 0;
    for (let i = 0; i < 500; i++) {
      const text = value(0);
      JSON.parse(text); // well formed
      const expected = hasDuplicate(text);
      expect(firstDuplicateKey(text) !== null, text).to.equal(expected);
      if (expected) duplicates++;
    }
    expect(duplicates).to.be.greaterThan(0);
  });
});
