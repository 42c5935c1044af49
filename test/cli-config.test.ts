import { expect } from 'chai';
import { chmod, mkdir, mkdtemp, readdir, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cliConfigPath, savedServer, saveServerToken } from '../cli/kit/config.js';

describe('loom CLI config file', () => {
  let dir: string;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'loom-cli-config-'));
  });

  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('lives at LOOM_CONFIG, else under an absolute XDG_CONFIG_HOME, else ~/.config', () => {
    expect(cliConfigPath({ LOOM_CONFIG: '/x/c.json', XDG_CONFIG_HOME: '/xdg' }, '/home/u')).to.equal('/x/c.json');
    expect(cliConfigPath({ XDG_CONFIG_HOME: '/xdg' }, '/home/u')).to.equal('/xdg/loom/config.json');
    expect(cliConfigPath({ XDG_CONFIG_HOME: 'relative' }, '/home/u')).to.equal('/home/u/.config/loom/config.json');
    expect(cliConfigPath({ LOOM_CONFIG: '' }, '/home/u')).to.equal('/home/u/.config/loom/config.json');
  });

  it('a missing or empty file holds no token', async () => {
    expect(savedServer(join(dir, 'none.json'), 'http://a')).to.equal(undefined);
    await writeFile(join(dir, 'empty.json'), '');
    expect(savedServer(join(dir, 'empty.json'), 'http://a')).to.equal(undefined);
  });

  it('saves one entry per URL with mode 0600 in a 0700 directory, keeping other entries and keys, leaving no temp file', async () => {
    const path = join(dir, 'nested', 'config.json');
    await saveServerToken(path, 'http://a', 'loom_prod_sa_a_secret', 'sa_a');
    await saveServerToken(path, 'http://b', 'loom_prod_sa_b_secret', 'sa_b');
    await saveServerToken(path, 'http://a', 'loom_prod_sa_a_newer', 'sa_a');
    expect((await stat(path)).mode & 0o777).to.equal(0o600);
    expect((await stat(join(dir, 'nested'))).mode & 0o777).to.equal(0o700);
    expect(savedServer(path, 'http://a')).to.include({ token: 'loom_prod_sa_a_newer', service_account_id: 'sa_a' });
    expect(savedServer(path, 'http://b')).to.include({ token: 'loom_prod_sa_b_secret' });
    expect(await readdir(join(dir, 'nested'))).to.deep.equal(['config.json']);
  });

  it('tightens a file that was readable by others, and keeps keys it does not know', async () => {
    const path = join(dir, 'config.json');
    await writeFile(path, JSON.stringify({ note: 'mine', servers: { 'http://a': { token: 't' } } }));
    await chmod(path, 0o644);
    await saveServerToken(path, 'http://b', 'u', null);
    expect((await stat(path)).mode & 0o777).to.equal(0o600);
    const saved = JSON.parse(await readFile(path, 'utf8'));
    expect(saved.note).to.equal('mine');
    expect(Object.keys(saved.servers)).to.deep.equal(['http://a', 'http://b']);
    expect(saved.servers['http://b']).to.include({ token: 'u', service_account_id: null }).and.to.have.property('saved_at');
  });

  it('writes through a symlinked config file instead of replacing the link', async () => {
    const real = join(dir, 'real.json');
    const link = join(dir, 'link.json');
    await writeFile(real, '{}');
    await symlink(real, link);
    await saveServerToken(link, 'http://a', 't', null);
    expect(savedServer(real, 'http://a')?.token).to.equal('t');
  });

  it('refuses a malformed file, on read and on save, rather than dropping its tokens', async () => {
    const path = join(dir, 'config.json');
    await writeFile(path, '{not json');
    expect(() => savedServer(path, 'http://a')).to.throw(/not valid JSON/);
    let refused: unknown;
    await saveServerToken(path, 'http://a', 't', null).catch((error: unknown) => (refused = error));
    expect(String(refused)).to.match(/not valid JSON/);
    expect(await readFile(path, 'utf8')).to.equal('{not json');
  });

  it('reports an unwritable directory as one CLI error', async () => {
    if (process.getuid?.() === 0) return; // root writes anywhere
    const locked = join(dir, 'locked');
    await mkdir(locked, { mode: 0o500 });
    let refused: unknown;
    await saveServerToken(join(locked, 'config.json'), 'http://a', 't', null).catch((error: unknown) => (refused = error));
    expect(String(refused)).to.match(/cannot write the config file .*EACCES/);
  });
});
