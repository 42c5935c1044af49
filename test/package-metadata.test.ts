/**
 * What the npm registry and a new user read about the package: a scoped name
 * (`loom` is taken), where the code, the issues and the private security
 * reports live (one repository, named consistently), which Node versions are
 * supported, and that the C++ vector index is optional.
 */
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { LOOM_PACKAGE_NAME } from '../core/server/version.js';

const ROOT = resolve(fileURLToPath(new URL('.', import.meta.url)), '../..');

describe('package metadata', () => {
  it('names the scoped package, its repository, issues, author and supported Node; hnswlib-node is optional', async () => {
    const pkg = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8'));
    expect(pkg.name).to.equal(LOOM_PACKAGE_NAME).and.match(/^@[a-z0-9-]+\/[a-z0-9-]+$/);
    expect(pkg.bin).to.have.property('loom');
    const repo = /^git\+(https:\/\/github\.com\/[\w.-]+\/[\w.-]+)\.git$/.exec(pkg.repository.url)?.[1];
    expect(repo, 'repository.url').to.be.a('string');
    expect(pkg.bugs.url).to.equal(`${repo}/issues`);
    expect(pkg.author).to.be.a('string').that.is.not.empty;
    expect(pkg.engines.node).to.equal('>=20.11');
    expect(pkg.dependencies).not.to.have.property('hnswlib-node');
    expect(pkg.optionalDependencies).to.have.property('hnswlib-node');
    const security = await readFile(join(ROOT, 'SECURITY.md'), 'utf8');
    expect(security).to.contain(`${repo}/security/advisories/new`);
  });

  it('every dependency that runs an install script is allowed by name, and only those', async () => {
    const lock = JSON.parse(await readFile(join(ROOT, 'package-lock.json'), 'utf8'));
    const pkg = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8'));
    const runtime = Object.entries(lock.packages as Record<string, { hasInstallScript?: boolean; dev?: boolean }>)
      .filter(([path, entry]) => path !== '' && entry.hasInstallScript && !entry.dev)
      .map(([path]) => path.replace(/^.*node_modules\//, ''))
      .sort();
    expect(runtime).to.deep.equal(Object.keys(pkg.allowScripts).sort());
  });
});
