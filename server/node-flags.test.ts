import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import { SERVER_NODE_FLAGS } from './node-flags.js';

const repoFile = (path: string) => new URL(`../../${path}`, import.meta.url);

describe('server node flags', () => {
  it('npm start passes them to node', () => {
    const { scripts } = JSON.parse(readFileSync(repoFile('package.json'), 'utf8')) as { scripts: Record<string, string> };
    expect(scripts['start']).to.equal(`node ${SERVER_NODE_FLAGS.join(' ')} dist/bin/loom.js serve`);
  });

  it('the loom command carries them in its shebang', () => {
    const firstLine = readFileSync(new URL('../bin/loom.js', import.meta.url), 'utf8').split('\n', 1)[0];
    expect(firstLine).to.equal(`#!/usr/bin/env -S node ${SERVER_NODE_FLAGS.join(' ')}`);
  });
});
