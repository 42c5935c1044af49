import { expect } from 'chai';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLoom, silentLogger, type Loom, PluginError } from '../../core/index.js';
import { wordCountPlugin } from './word-count-plugin.js';
import { SqliteRecordStore } from '../../storage/sqlite/index.js';
import { ledgerPlugin } from '../../plugins/ledger/index.js';

const storeIn = (dir: string) => new SqliteRecordStore({ path: join(dir, 'loom.sqlite') });

describe('example: custom plugin (one route, one fold)', () => {
  let dir: string;
  let loom: Loom;
  let url: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'loom-plugin-'));
    loom = await createLoom({ store: storeIn(dir), dataDir: dir, port: 0, logger: silentLogger, plugins: [ledgerPlugin, { plugin: wordCountPlugin, options: { minLength: 3 } }] });
    url = await loom.start();
  });
  after(async () => {
    await loom.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('serves its route from its fold, kept current as records land', async () => {
    const thread = 'th_' + 'c'.repeat(64);
    const post = (clock: number, text: string) =>
      fetch(`${url}/v1/records`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ thread, actor: 'did:sync:user:alice', act: 'KNOW', body: { observation: text }, clock, data_type: 'SCALAR' }),
      });
    expect((await post(0, 'the quick brown fox')).status).to.equal(201);
    let count = (await (await fetch(`${url}/v1/word-count/${thread}`)).json()) as { words: number; records: number };
    expect(count).to.include({ words: 4, records: 1 });
    await post(1, 'a b jumps over');
    count = (await (await fetch(`${url}/v1/word-count/${thread}`)).json()) as { words: number; records: number };
    expect(count).to.include({ words: 6, records: 2 });
    const generic = (await (await fetch(`${url}/v1/folds/word_count/${thread}`)).json()) as { value: { words: number } };
    expect(generic.value.words).to.equal(6);
  });

  it('is listed in the capabilities and in the OpenAPI route catalogue', async () => {
    const manifest = (await (await fetch(`${url}/v1/capabilities`)).json()) as { capabilities: Record<string, boolean> };
    expect(manifest.capabilities['word_count']).to.equal(true);
    expect(loom.catalog.all().some((entry) => entry.route.operationId === 'getWordCount')).to.equal(true);
  });

  it('has its options validated at registration, with both plugin names in dependency errors', async () => {
    try {
      await createLoom({ store: storeIn(dir), dataDir: dir, logger: silentLogger, plugins: [ledgerPlugin, { plugin: wordCountPlugin, options: { minLength: 0 } }] });
      expect.fail('expected invalid options to be refused');
    } catch (error) {
      expect(error).to.be.instanceOf(PluginError);
    }
    try {
      await createLoom({ store: storeIn(dir), dataDir: dir, logger: silentLogger, plugins: [ledgerPlugin, { ...wordCountPlugin, name: 'needs-more', dependencies: ['absent'] }] });
      expect.fail('expected a missing dependency to be refused');
    } catch (error) {
      expect((error as Error).message).to.contain('needs-more').and.to.contain('absent');
    }
  });
});
