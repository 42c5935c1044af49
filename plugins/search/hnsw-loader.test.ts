/**
 * hnswlib-node is optional (it compiles C++ on install): with it missing,
 * simulated by an importer that fails as Node does, semantic search stays
 * exact and correct, and the plugin says how to enable the index.
 */
import { expect } from 'chai';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Config } from '../../core/folds/config/config-topic.js';
import type { Logger, LogLevel } from '../../core/plugin/logger.js';
import { HNSW_PACKAGE, loadVectorIndexLibrary, VECTOR_INDEX_HINT, type ModuleImporter } from './hnsw-loader.js';
import { SemanticSearch, type SemanticSearchDeps } from './semantic-search.js';
import { VectorIndex } from './vector-index.js';
import { dot, unit, VectorStore, type SlotMeta } from './vector-store.js';

const meta = (sequence: number): SlotMeta => ({ sequence, id: sequence.toString(16).padStart(64, '0'), thread: `th_${sequence % 7}`, actor: 'did:sync:user:a', kind: null, clock: sequence });

/** Fails the way `import('hnswlib-node')` fails when the package is not installed. */
const missing: ModuleImporter = async (specifier) => {
  throw Object.assign(new Error(`Cannot find package '${specifier}' imported from here`), { code: 'ERR_MODULE_NOT_FOUND' });
};

function seeded(seed: number): () => number {
  let state = seed;
  return () => ((state = (state * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31);
}

describe('optional vector index (hnswlib-node)', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'loom-hnsw-optional-'));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('loads the installed package through the dynamic import', async () => {
    const library = await loadVectorIndexLibrary();
    expect(library.available).to.equal(true);
  });

  it('reports the package missing, with the import error code, instead of throwing', async () => {
    const library = await loadVectorIndexLibrary(missing);
    expect(library).to.deep.equal({ available: false, reason: 'ERR_MODULE_NOT_FOUND' });
    expect(VECTOR_INDEX_HINT).to.contain('semantic search vector index unavailable');
    expect(VECTOR_INDEX_HINT).to.contain(`npm install ${HNSW_PACKAGE}`);
  });

  it('without the package, search past the graph threshold is an exact scan with the right answers', async () => {
    const store = await VectorStore.open(dir, 'ollama', 'm');
    const random = seeded(7);
    const vectors = Array.from({ length: 300 }, () => Array.from({ length: 16 }, () => random() - 0.5));
    await store.append(vectors.map((vector, i) => ({ meta: meta(i + 1), vector })), vectors.length);
    const index = new VectorIndex(store, { minVectors: 50, m: 16, efConstruction: 100, efSearch: 100 }, null);
    await index.open();
    expect(index.indexSome(1_000)).to.equal(0);
    expect(index.kind).to.equal('exact');
    expect(index.pending).to.equal(0);
    await index.save();

    const query = unit(vectors[42]!);
    const { hits, exhaustive } = index.nearest(query, 5, (slot) => slot % 2 === 0);
    const expected = vectors
      .map((_, slot) => ({ slot, score: dot(store.vectors, slot * 16, query, 0, 16) }))
      .filter(({ slot }) => slot % 2 === 0)
      .sort((a, b) => b.score - a.score)
      .slice(0, 5)
      .map(({ slot }) => slot);
    expect(hits.map((hit) => hit.slot)).to.deep.equal(expected);
    expect(hits[0]!.slot).to.equal(42);
    expect(exhaustive).to.equal(true);
  });

  it('with the package, the same store builds the graph (the loader feeds VectorIndex)', async () => {
    const library = await loadVectorIndexLibrary();
    if (!library.available) throw new Error(library.reason);
    const store = await VectorStore.open(dir, 'ollama', 'm');
    const random = seeded(9);
    await store.append(Array.from({ length: 80 }, (_, i) => ({ meta: meta(i + 1), vector: Array.from({ length: 8 }, () => random() - 0.5) })), 80);
    const index = new VectorIndex(store, { minVectors: 50, m: 16, efConstruction: 100, efSearch: 100 }, library.lib);
    while (index.indexSome(1_000) > 0);
    expect(index.kind).to.equal('hnsw');
    expect(index.indexed).to.equal(80);
  });

  it('the search plugin logs how to enable the index when semantic search is on and the package is missing', async () => {
    const lines: Array<{ level: LogLevel; message: string; fields?: Record<string, unknown> }> = [];
    const log: Logger = { log: (level, message, fields) => lines.push({ level, message, fields }), child: () => log };
    const provider = { kind: 'ollama', model: 'm', endpoint: 'http://127.0.0.1:1' };
    const deps = {
      reader: { position: 0 },
      config: { single: () => ({ provider }) } as unknown as Config,
      dir: null,
      options: { embedBatchSize: 4, embedBusyShare: 1, embedBackoffMs: 5, maxBackoffMs: 50 },
      log,
      now: () => 0,
      vectorIndex: loadVectorIndexLibrary(missing),
    } as unknown as SemanticSearchDeps;
    const semantic = new SemanticSearch(deps);
    await semantic.loadVectorIndex();
    await semantic.loadVectorIndex();
    expect(semantic.vectorIndex).to.deep.equal({ available: false, hint: VECTOR_INDEX_HINT });
    expect(lines).to.deep.equal([{ level: 'warn', message: VECTOR_INDEX_HINT, fields: { reason: 'ERR_MODULE_NOT_FOUND' } }]);
  });
});
