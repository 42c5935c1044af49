import { expect } from 'chai';
import type { LoomError } from '../../core/errors/loom-error.js';
import { refusalOfSync } from '../../core/errors/refusal-of.js';
import { ancestorsOf, isWithin, joinPath, MAX_DEPTH, MAX_PATH_BYTES, MAX_SEGMENT_BYTES, nameOf, parentOf, parseDataPath, ROOT } from './data-path.js';

/** The INVALID_PATH refusal `parseDataPath(raw)` throws. */
function refusal(raw: unknown, field?: string): LoomError {
  return refusalOfSync(() => parseDataPath(raw, field));
}

const segment = (length: number, char = 'a') => char.repeat(length);

describe('data path grammar', () => {
  describe('accepts', () => {
    it('the root and plain absolute paths, unchanged', () => {
      expect(parseDataPath('/')).to.equal(ROOT);
      expect(parseDataPath('/reports')).to.equal('/reports');
      expect(parseDataPath('/reports/2025/q3.final.pdf')).to.equal('/reports/2025/q3.final.pdf');
      expect(parseDataPath('/.hidden/..dots/a.')).to.equal('/.hidden/..dots/a.');
      expect(parseDataPath('/with space/and-dash_underscore~')).to.equal('/with space/and-dash_underscore~');
    });

    it('unicode names, including astral characters and a no-break space (U+00A0 is past the C1 block)', () => {
      expect(parseDataPath('/données/日本語/🎉.txt')).to.equal('/données/日本語/🎉.txt');
      expect(parseDataPath('/a\u00a0b')).to.equal('/a\u00a0b');
    });

    it('normalises to NFC, so an NFD name (macOS) and its NFC form (Linux) are one path', () => {
      const nfd = '/cafe\u0301/re\u0301sume\u0301.txt';
      const nfc = '/caf\u00e9/r\u00e9sum\u00e9.txt';
      expect(nfd).to.not.equal(nfc);
      expect(parseDataPath(nfd)).to.equal(nfc);
      expect(parseDataPath(nfc)).to.equal(nfc);
    });

    it(`a segment of exactly ${MAX_SEGMENT_BYTES} UTF-8 bytes, counted in bytes of the NFC form`, () => {
      expect(MAX_SEGMENT_BYTES).to.equal(255);
      expect(parseDataPath('/' + segment(255))).to.equal('/' + segment(255));
      // 127 two-byte characters + one byte = 255 bytes in 128 characters.
      const twoByte = segment(127, 'é') + 'a';
      expect(parseDataPath('/' + twoByte)).to.equal('/' + twoByte);
      // NFD "é" is 3 bytes, NFC 2: 100 of them are 300 bytes as sent but 200 once normalised.
      expect(parseDataPath('/' + segment(100, 'e\u0301'))).to.equal('/' + segment(100, '\u00e9'));
    });

    it(`a path of exactly ${MAX_PATH_BYTES} bytes`, () => {
      expect(MAX_PATH_BYTES).to.equal(4096);
      // 16 segments of "/" + 255 bytes.
      const path = Array.from({ length: 16 }, () => '/' + segment(255)).join('');
      expect(Buffer.byteLength(path)).to.equal(4096);
      expect(parseDataPath(path)).to.equal(path);
    });

    it(`a path ${MAX_DEPTH} segments deep`, () => {
      expect(MAX_DEPTH).to.equal(64);
      const path = '/d'.repeat(64);
      expect(parseDataPath(path)).to.equal(path);
    });
  });

  describe('refuses with INVALID_PATH and says why', () => {
    const cases: Array<[string, unknown, RegExp]> = [
      ['a ".." segment', '/a/../b', /"\.\." segment/],
      ['a top-level ".."', '/..', /"\.\." segment/],
      ['a "." segment', '/a/./b', /"\." segment/],
      ['a trailing "."', '/a/.', /"\." segment/],
      ['an empty segment', '/a//b', /empty segment/],
      ['a leading "//"', '//a', /empty segment/],
      ['a trailing slash', '/a/b/', /ends with "\/"/],
      ['a relative path', 'a/b', /must start with "\/"/],
      ['a bare name', 'report.pdf', /must start with "\/"/],
      ['the empty string', '', /is empty/],
      ['NUL', '/a\u0000b', /control character U\+0000/],
      ['a tab (C0)', '/a\tb', /control character U\+0009/],
      ['a newline (C0)', '/a\nb', /control character U\+000A/],
      ['U+001F (last C0)', '/a\u001fb', /control character U\+001F/],
      ['DEL', '/a\u007fb', /control character U\+007F/],
      ['U+0080 (first C1)', '/a\u0080b', /control character U\+0080/],
      ['NEL (C1)', '/a\u0085b', /control character U\+0085/],
      ['U+009F (last C1)', '/a\u009fb', /control character U\+009F/],
      ['a backslash', '/a\\b', /backslash/],
      ['a lone high surrogate', '/a\ud800b', /unpaired surrogate/],
      ['a lone low surrogate', '/a\udc00', /unpaired surrogate/],
      ['U+FFFD', '/bad\ufffdbytes', /U\+FFFD/],
      ['a path over 4096 bytes', '/' + Array.from({ length: 15 }, () => segment(255)).join('/') + '/' + segment(127) + '/' + segment(128), /longer than 4096 bytes/],
      ['a segment over 255 bytes', '/' + segment(256), /segment longer than 255 bytes/],
      ['a segment of 128 two-byte characters (256 bytes)', '/x/' + segment(128, 'é'), /segment longer than 255 bytes/],
      ['a path 65 segments deep', '/d'.repeat(65), /deeper than 64 segments/],
      ['a number', 42, /must be a string/],
      ['null', null, /must be a string/],
      ['undefined', undefined, /must be a string/],
      ['an array', ['/a'], /must be a string/],
      ['an object', { path: '/a' }, /must be a string/],
    ];
    for (const [name, raw, why] of cases) {
      it(name, () => {
        const error = refusal(raw);
        expect(error.code).to.equal('INVALID_PATH');
        expect(error.status).to.equal(400);
        expect(error.message).to.match(why);
      });
    }

    it('the 4097-byte case is just over the limit (the test above is not vacuous)', () => {
      const path = '/' + Array.from({ length: 15 }, () => segment(255)).join('/') + '/' + segment(127) + '/' + segment(128);
      expect(Buffer.byteLength(path)).to.equal(4097);
      expect(parseDataPath(path.slice(0, -1))).to.have.length(4096);
    });

    it('names the field it was given (from, to …) and shows the value', () => {
      const error = refusal('/a/../b', 'from');
      expect(error.message).to.match(/^from "\/a\/\.\.\/b" /);
      expect(refusal(7, 'to').message).to.match(/^to must be a string/);
    });

    it('cuts a very long value short in the message', () => {
      const error = refusal('/' + segment(5000));
      expect(error.message.length).to.be.below(300);
      expect(error.message).to.include('…');
    });
  });

  describe('helpers', () => {
    it('parentOf', () => {
      expect(parentOf('/')).to.equal(null);
      expect(parentOf('/a')).to.equal('/');
      expect(parentOf('/a/b')).to.equal('/a');
      expect(parentOf('/a/b/c.txt')).to.equal('/a/b');
    });

    it('nameOf', () => {
      expect(nameOf('/')).to.equal('');
      expect(nameOf('/a')).to.equal('a');
      expect(nameOf('/a/b/c.txt')).to.equal('c.txt');
    });

    it('joinPath', () => {
      expect(joinPath('/', 'a')).to.equal('/a');
      expect(joinPath('/a', 'b')).to.equal('/a/b');
      expect(joinPath(parentOf('/x/y')!, nameOf('/x/y'))).to.equal('/x/y');
    });

    it('isWithin: the path itself and its descendants, not a sibling sharing a prefix', () => {
      expect(isWithin('/a', '/a')).to.equal(true);
      expect(isWithin('/a/b', '/a')).to.equal(true);
      expect(isWithin('/a/b/c', '/a')).to.equal(true);
      expect(isWithin('/ab', '/a')).to.equal(false);
      expect(isWithin('/a', '/a/b')).to.equal(false);
      expect(isWithin('/b', '/a')).to.equal(false);
      expect(isWithin('/anything/at/all', '/')).to.equal(true);
      expect(isWithin('/', '/')).to.equal(true);
    });

    it('ancestorsOf: proper ancestors, outermost first, without the root', () => {
      expect(ancestorsOf('/')).to.deep.equal([]);
      expect(ancestorsOf('/a')).to.deep.equal([]);
      expect(ancestorsOf('/a/b')).to.deep.equal(['/a']);
      expect(ancestorsOf('/a/b/c/d')).to.deep.equal(['/a', '/a/b', '/a/b/c']);
    });
  });
});
