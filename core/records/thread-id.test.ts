import { createHash } from 'node:crypto';
import { expect } from 'chai';
import fc from 'fast-check';
import { nodeSha256Hex } from '../engine/native-hash.js';
import { canonicalJson } from './canonical-json.js';
import { RESERVED_THREADS } from './reserved-threads.js';
import { dispatchThreadId, isDerivedThreadId, isThreadId, memberThreadId, newThreadNonce, taskThreadId, THREAD_ID_PATTERN } from './thread-id.js';

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');
const PARENT = 'th_' + '5e'.repeat(32);
const AGENT = 'did:sync:agent:builder';

/** Runs `fn` with the process time zone set to `tz` (Node re-reads TZ on assignment). */
function inTimeZone<T>(tz: string, fn: () => T): T {
  const saved = process.env['TZ'];
  process.env['TZ'] = tz;
  try {
    return fn();
  } finally {
    if (saved === undefined) delete process.env['TZ'];
    else process.env['TZ'] = saved;
  }
}

describe('thread ids', () => {
  describe('taskThreadId', () => {
    it("equals 'th_' + sha256(canonicalJson(['task', alias, nonce]))", () => {
      fc.assert(
        fc.property(fc.string({ unit: 'binary', minLength: 1 }), fc.string({ unit: 'binary', minLength: 1 }), (alias, nonce) => {
          const id = taskThreadId(alias, nonce);
          expect(id).to.equal('th_' + sha256(canonicalJson(['task', alias, nonce])));
          expect(id).to.match(/^th_[0-9a-f]{64}$/);
          expect(taskThreadId(alias, nonce, nodeSha256Hex)).to.equal(id);
        }),
        { numRuns: 200 },
      );
    });

    it('pins one value (the seed is the canonical text ["task","fix-login","0011…"])', () => {
      const nonce = '00112233445566778899aabbccddeeff';
      expect(canonicalJson(['task', 'fix-login', nonce])).to.equal(`["task","fix-login","${nonce}"]`);
      expect(taskThreadId('fix-login', nonce)).to.equal('th_' + sha256(`["task","fix-login","${nonce}"]`));
    });

    it('is deterministic', () => {
      expect(taskThreadId('fix-login', 'n1')).to.equal(taskThreadId('fix-login', 'n1'));
    });

    it('differs by nonce and by alias', () => {
      expect(taskThreadId('fix-login', 'n1')).not.to.equal(taskThreadId('fix-login', 'n2'));
      expect(taskThreadId('fix-login', 'n1')).not.to.equal(taskThreadId('fix-logout', 'n1'));
    });

    it('does not confuse alias and nonce boundaries (tagged array, not concatenation)', () => {
      expect(taskThreadId('ab', 'c')).not.to.equal(taskThreadId('a', 'bc'));
      expect(taskThreadId('a', 'b')).not.to.equal(taskThreadId('b', 'a'));
    });

    it('refuses an empty or non-string alias or nonce', () => {
      expect(() => taskThreadId('', 'n')).to.throw(TypeError);
      expect(() => taskThreadId('a', '')).to.throw(TypeError);
      expect(() => taskThreadId(undefined as unknown as string, 'n')).to.throw(TypeError);
      expect(() => taskThreadId('a', 7 as unknown as string)).to.throw(TypeError);
    });

    it('is accepted by isThreadId', () => {
      expect(isThreadId(taskThreadId('a', 'b'))).to.equal(true);
    });
  });

  describe('memberThreadId', () => {
    const MEMBER = 'did:sync:agent:reviewer-0123456789abcdef';

    it("equals 'th_' + sha256(canonicalJson(['member', did, facet])), natively hashed alike", () => {
      expect(memberThreadId(MEMBER, 'memory')).to.equal('th_' + sha256(`["member","${MEMBER}","memory"]`));
      expect(memberThreadId(MEMBER, 'memory', nodeSha256Hex)).to.equal(memberThreadId(MEMBER, 'memory'));
    });

    it('differs by member and by facet, and refuses empty parts', () => {
      expect(memberThreadId(MEMBER, 'memory')).not.to.equal(memberThreadId(MEMBER, 'trust'));
      expect(memberThreadId(MEMBER, 'memory')).not.to.equal(memberThreadId(MEMBER + '0', 'memory'));
      expect(() => memberThreadId('', 'memory')).to.throw(TypeError);
      expect(() => memberThreadId(MEMBER, '')).to.throw(TypeError);
    });
  });

  describe('dispatchThreadId', () => {
    const at = '2024-05-01T12:34:56.789Z';

    it("equals 'th_' + sha256(canonicalJson(['dispatch', parent, actor, ISO-8601 UTC]))", () => {
      expect(dispatchThreadId(PARENT, AGENT, at)).to.equal('th_' + sha256(canonicalJson(['dispatch', PARENT, AGENT, at])));
      expect(dispatchThreadId(PARENT, AGENT, at, nodeSha256Hex)).to.equal(dispatchThreadId(PARENT, AGENT, at));
    });

    it('normalises a Date and its ISO string to the same id', () => {
      expect(dispatchThreadId(PARENT, AGENT, new Date(at))).to.equal(dispatchThreadId(PARENT, AGENT, at));
    });

    it('normalises equivalent ISO strings (offset, missing milliseconds) to the same id', () => {
      expect(dispatchThreadId(PARENT, AGENT, '2024-05-01T14:34:56.789+02:00')).to.equal(dispatchThreadId(PARENT, AGENT, at));
      expect(dispatchThreadId(PARENT, AGENT, '2024-05-01T12:34:56Z')).to.equal(dispatchThreadId(PARENT, AGENT, '2024-05-01T12:34:56.000Z'));
    });

    it('differs by parent, by target actor and by timestamp', () => {
      const id = dispatchThreadId(PARENT, AGENT, at);
      expect(dispatchThreadId('th_' + '5f'.repeat(32), AGENT, at)).not.to.equal(id);
      expect(dispatchThreadId(PARENT, 'did:sync:agent:reviewer', at)).not.to.equal(id);
      expect(dispatchThreadId(PARENT, AGENT, '2024-05-01T12:34:56.790Z')).not.to.equal(id);
    });

    it('accepts a reserved thread as parent', () => {
      expect(dispatchThreadId('th_fleet_control', AGENT, at)).to.match(THREAD_ID_PATTERN);
    });

    it('refuses invalid timestamps', () => {
      for (const bad of ['', 'not a date', '2024-13-01T00:00:00Z', '2024-05-01T25:00:00Z']) {
        expect(() => dispatchThreadId(PARENT, AGENT, bad), JSON.stringify(bad)).to.throw(TypeError);
      }
      expect(() => dispatchThreadId(PARENT, AGENT, new Date(Number.NaN))).to.throw(TypeError);
    });

    it('refuses a parent that is not a thread id', () => {
      for (const bad of ['', 'th_' + 'A'.repeat(64), 'th_' + 'a'.repeat(63), 'a'.repeat(64), 'th_unknown', AGENT]) {
        expect(() => dispatchThreadId(bad, AGENT, at), JSON.stringify(bad)).to.throw(TypeError);
      }
    });

    // A timestamp without an offset would be read as local time, so the derived id would
    // depend on the machine's time zone: such timestamps are refused.
    it('refuses an offset-less timestamp string', () => {
      expect(() => dispatchThreadId(PARENT, AGENT, '2024-05-01T12:34:56')).to.throw(TypeError);
    });

    it('a timestamp with an explicit offset gives the same id in every time zone', () => {
      const utc = inTimeZone('UTC', () => dispatchThreadId(PARENT, AGENT, at));
      const tokyo = inTimeZone('Asia/Tokyo', () => dispatchThreadId(PARENT, AGENT, at));
      expect(tokyo).to.equal(utc);
    });
  });

  describe('isThreadId / isDerivedThreadId', () => {
    for (const reserved of RESERVED_THREADS) {
      it(`accepts the reserved thread ${reserved} (not a derived id)`, () => {
        expect(isThreadId(reserved)).to.equal(true);
        expect(isDerivedThreadId(reserved)).to.equal(false);
      });
    }
    const cases: Array<[unknown, boolean]> = [
      ['th_' + '0'.repeat(64), true],
      ['th_' + 'f'.repeat(64), true],
      ['th_' + 'F'.repeat(64), false],
      ['th_' + 'f'.repeat(63), false],
      ['th_' + 'f'.repeat(64) + '\n', false],
      ['th_engine_config_x', false],
      ['', false],
      [null, false],
      [42, false],
    ];
    for (const [value, expected] of cases) {
      it(`isThreadId(${JSON.stringify(value)?.slice(0, 24)}) → ${expected}`, () => {
        expect(isThreadId(value)).to.equal(expected);
      });
    }
  });

  describe('newThreadNonce', () => {
    it('is 32 lowercase hex (128 bits)', () => {
      for (let i = 0; i < 50; i++) expect(newThreadNonce()).to.match(/^[0-9a-f]{32}$/);
    });

    it('is random: 1,000 nonces are distinct and use every hex digit', () => {
      const nonces = Array.from({ length: 1000 }, () => newThreadNonce());
      expect(new Set(nonces).size).to.equal(1000);
      expect(new Set(nonces.join('')).size).to.equal(16);
    });

    it('gives distinct task threads for one alias', () => {
      expect(taskThreadId('fix-login', newThreadNonce())).not.to.equal(taskThreadId('fix-login', newThreadNonce()));
    });
  });
});
