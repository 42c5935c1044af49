import { expect } from 'chai';
import {
  DEFAULT_NAMESPACE,
  NAMESPACE_LEVELS,
  NAMESPACE_MAX_LENGTH,
  NAMESPACE_SEGMENT_MAX_LENGTH,
  namespaceChain,
  namespaceLevel,
  namespaceSyntaxError,
} from './namespace-path.js';

describe('namespace paths', () => {
  describe('namespaceSyntaxError', () => {
    const good = [
      DEFAULT_NAMESPACE,
      'acme',
      'acme/web',
      'acme/web/prod',
      'acme/web/prod/nightly-build',
      '0',
      'a-b_c/d9',
      'x'.repeat(NAMESPACE_SEGMENT_MAX_LENGTH),
    ];
    for (const id of good) {
      it(`accepts ${JSON.stringify(id.length > 40 ? id.slice(0, 20) + '…' : id)}`, () => {
        expect(namespaceSyntaxError(id)).to.equal(null);
      });
    }

    const bad: Array<[string, string]> = [
      ['empty', ''],
      ['five segments (deeper than JOB)', 'a/b/c/d/e'],
      ['a leading slash', '/acme'],
      ['a trailing slash', 'acme/'],
      ['an empty segment', 'acme//web'],
      ['uppercase', 'Acme'],
      ['a segment starting with "-"', 'acme/-web'],
      ['a segment starting with "_"', '_acme'],
      ['a dot', 'acme.io'],
      ['a space', 'acme web'],
      ['non-ASCII', 'acmé'],
      ['a segment over the maximum length', 'x'.repeat(NAMESPACE_SEGMENT_MAX_LENGTH + 1)],
      ['an id over the maximum length', 'a'.repeat(NAMESPACE_MAX_LENGTH + 1)],
      ['a trailing newline', 'acme\n'],
    ];
    for (const [what, id] of bad) {
      it(`refuses ${what}`, () => {
        expect(namespaceSyntaxError(id)).to.be.a('string');
      });
    }

    it('accepts the longest possible id: four segments of the maximum length', () => {
      const longest = ['a', 'b', 'c', 'd'].map((c) => c.repeat(NAMESPACE_SEGMENT_MAX_LENGTH)).join('/');
      expect(longest.length).to.be.at.most(NAMESPACE_MAX_LENGTH);
      expect(namespaceSyntaxError(longest)).to.equal(null);
      expect(namespaceSyntaxError(longest + 'd')).to.be.a('string');
    });
  });

  describe('namespaceLevel', () => {
    const cases: Array<[string, string]> = [
      [DEFAULT_NAMESPACE, 'DEFAULT'],
      ['acme', 'ORG'],
      ['acme/web', 'PROJECT'],
      ['acme/web/prod', 'ENV'],
      ['acme/web/prod/nightly', 'JOB'],
    ];
    for (const [id, level] of cases) {
      it(`${id} → ${level}`, () => {
        expect(namespaceLevel(id)).to.equal(level);
      });
    }

    it('has the five levels of spec §2.2 in order', () => {
      expect(NAMESPACE_LEVELS).to.deep.equal(['DEFAULT', 'ORG', 'PROJECT', 'ENV', 'JOB']);
    });
  });

  describe('namespaceChain', () => {
    it('walks from the top ancestor down to the namespace itself', () => {
      expect(namespaceChain('acme')).to.deep.equal(['acme']);
      expect(namespaceChain('acme/web/prod/nightly')).to.deep.equal(['acme', 'acme/web', 'acme/web/prod', 'acme/web/prod/nightly']);
    });

    it('is empty for the default namespace (always accepted)', () => {
      expect(namespaceChain(DEFAULT_NAMESPACE)).to.deep.equal([]);
    });

    it('the i-th ancestor of a valid id is at level i+1 and is itself valid', () => {
      for (const id of ['acme', 'acme/web', 'acme/web/prod', 'acme/web/prod/nightly']) {
        namespaceChain(id).forEach((ancestor, i) => {
          expect(namespaceSyntaxError(ancestor)).to.equal(null);
          expect(namespaceLevel(ancestor)).to.equal(NAMESPACE_LEVELS[i + 1]);
        });
      }
    });

    // "default" is the DEFAULT namespace, which has no children: as a first segment it would
    // give a chain that starts at level DEFAULT and could never be declared.
    it('refuses "default" as the first segment of a namespace id', () => {
      expect(namespaceSyntaxError('default/web')).to.be.a('string');
      expect(namespaceSyntaxError('acme/default')).to.equal(null);
    });
  });
});
