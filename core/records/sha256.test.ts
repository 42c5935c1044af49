import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import fc from 'fast-check';
import { nodeSha256Hex } from '../engine/native-hash.js';
import { vectorsPath } from './fixtures/vectors-path.js';
import { nobleSha256Hex, sha256HexOfBytes } from './sha256.js';

interface KnownAnswer {
  source: string;
  name: string;
  messageHex: string | null;
  messageUtf8: string | null;
  repeat: number;
  sha256: string;
}

const KNOWN_ANSWERS: KnownAnswer[] = JSON.parse(readFileSync(vectorsPath('04-sha256', 'sha256-known-answers.json'), 'utf8'));

/** The message bytes as the README defines them: messageHex when non-null, else messageUtf8 as UTF-8, repeated. */
function messageBytes(answer: KnownAnswer): Uint8Array {
  const once = answer.messageHex !== null ? Buffer.from(answer.messageHex, 'hex') : Buffer.from(answer.messageUtf8!, 'utf8');
  return Buffer.concat(Array.from({ length: answer.repeat }, () => once));
}

describe('sha256', () => {
  it('has the 8 known answers of vectors/04-sha256', () => {
    expect(KNOWN_ANSWERS).to.have.length(8);
  });

  describe('sha256HexOfBytes (@noble/hashes) on the message bytes', () => {
    for (const answer of KNOWN_ANSWERS) {
      it(answer.name, () => {
        expect(sha256HexOfBytes(messageBytes(answer))).to.equal(answer.sha256);
      });
    }
  });

  describe('text cases through both string hashers (nobleSha256Hex, nodeSha256Hex)', () => {
    for (const answer of KNOWN_ANSWERS.filter((a) => a.messageUtf8 !== null)) {
      const text = answer.messageUtf8!.repeat(answer.repeat);
      it(`${answer.name}: nobleSha256Hex`, () => {
        expect(nobleSha256Hex(text)).to.equal(answer.sha256);
      });
      it(`${answer.name}: nodeSha256Hex`, () => {
        expect(nodeSha256Hex(text)).to.equal(answer.sha256);
      });
    }

    it('the empty string through both', () => {
      const empty = KNOWN_ANSWERS.find((a) => a.messageHex === '' && a.repeat === 1)!;
      expect(nobleSha256Hex('')).to.equal(empty.sha256);
      expect(nodeSha256Hex('')).to.equal(empty.sha256);
    });
  });

  describe('UTF-8 (no vector above is non-ASCII)', () => {
    it('hashes the UTF-8 bytes of the text, not UTF-16 code units', () => {
      const text = 'é€😂\u2028';
      const expected = createHash('sha256').update(Buffer.from(text, 'utf8')).digest('hex');
      expect(nobleSha256Hex(text)).to.equal(expected);
      expect(nodeSha256Hex(text)).to.equal(expected);
      expect(sha256HexOfBytes(new TextEncoder().encode(text))).to.equal(expected);
    });

    it('noble and node agree on arbitrary well-formed Unicode text', () => {
      fc.assert(
        fc.property(fc.string({ unit: 'binary', maxLength: 200 }), (text) => {
          expect(nobleSha256Hex(text)).to.equal(nodeSha256Hex(text));
        }),
        { numRuns: 300 },
      );
    });

    it('outputs 64 lowercase hex', () => {
      expect(nobleSha256Hex('abc')).to.match(/^[0-9a-f]{64}$/);
      expect(nodeSha256Hex('abc')).to.match(/^[0-9a-f]{64}$/);
    });
  });
});
