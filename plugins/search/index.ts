/**
 * The search plugin (spec §4.2 search and embed, §4.3 blended find, §2.9
 * `embedding_provider`):
 * - semantic search through a local embedding server speaking Ollama's API
 *   (semantic-search.ts), vectors kept per model in
 *   `<dataDir>/plugins/search/vectors/`;
 * - blended BM25 find over conversations and, when the data-plane plugin is
 *   loaded, its files (find-service.ts), held in memory, restored at start
 *   from a snapshot in the plugin's data directory plus the log after it
 *   (find-snapshot.ts), or rebuilt from the whole log without one.
 * On a shared log only the leader calls the embedding provider; every server
 * loads the vectors from the shared store (vector-follower.ts).
 * Every answer passes through the caller's read view.
 */
import { join } from 'node:path';
import { resolve } from '../../core/di/token.js';
import { RecordReaderToken } from '../../core/engine/record-reader.js';
import { Config } from '../../core/folds/config/config-topic.js';
import { ClockToken } from '../../core/engine/clock.js';
import { definePlugin } from '../../core/plugin/plugin.js';
import { DataPlaneToken } from '../data-plane/index.js';
import { SearchOptions } from './config.js';
import { DEFAULT_MODEL, embeddingProviderTopic, PROVIDER_KIND } from './embedding-provider-topic.js';
import { FindService } from './find-service.js';
import { embedRecords } from './routes/embed-records.js';
import { find } from './routes/find.js';
import { getSearchStats, rebuildSearch } from './routes/search-admin.js';
import { searchRecords } from './routes/search-records.js';
import { FindServiceToken, SemanticSearchToken } from './search-token.js';
import { SemanticSearch } from './semantic-search.js';
import { VectorFollower } from './vector-follower.js';
import { RecordStore } from '../../storage/contract/record-store.js';
import { VECTOR_INDEX_HINT } from './hnsw-loader.js';

export { SearchOptions } from './config.js';
export { embeddingProviderTopic, DEFAULT_MODEL, DEFAULT_ENDPOINT, PROVIDER_KIND } from './embedding-provider-topic.js';
export { FindServiceToken, SemanticSearchToken } from './search-token.js';
export { OllamaEmbedClient, EmbedderError } from './ollama-client.js';
export { VECTOR_INDEX_HINT, loadVectorIndexLibrary, type VectorIndexLibrary } from './hnsw-loader.js';
export type { SemanticSearch } from './semantic-search.js';
export type { FindService } from './find-service.js';

export const SEARCH_PLUGIN = 'search';
export const SEARCH_ROUTES = [searchRecords, embedRecords, find, getSearchStats, rebuildSearch] as const;

export const searchPlugin = definePlugin({
  name: SEARCH_PLUGIN,
  tags: { search: 'Search: semantic search through a local embedding server, and BM25 find over conversations and files.' },
  version: '1.0.0',
  dependencies: ['ledger'],
  optionalDependencies: ['data-plane'],
  options: SearchOptions,
  register(scope, options) {
    const now = resolve(scope.container, ClockToken);
    scope.configTopic(embeddingProviderTopic);
    for (const route of SEARCH_ROUTES) scope.route(route);
    const reader = resolve(scope.container, RecordReaderToken);
    // Servers sharing a log share one embedder: the leader embeds, every server loads its vectors (semantic-search.ts).
    const store = resolve(scope.container, RecordStore);
    const shared = store.capabilities.sharedLog === true ? (store.sharedVectors ?? null) : null;
    const semantic = new SemanticSearch({
      reader,
      config: resolve(scope.container, Config),
      dir: scope.dataDir === null ? null : join(scope.dataDir, 'vectors'),
      options,
      log: scope.log,
      now,
      shared,
    });
    scope.expose(SemanticSearchToken, semantic);
    semantic.attach(scope.consume(semantic));
    if (shared !== null) scope.consume(new VectorFollower(semantic, options.vectorPollMs));
    const finder = new FindService({ reader, options, log: scope.log, now, dir: scope.dataDir });
    finder.attach(scope.consume(finder));
    scope.expose(FindServiceToken, finder);
    scope.onStart(async () => {
      // hnswlib-node is optional: without it semantic search is exact (and the log says how to enable the index).
      const library = await semantic.loadVectorIndex();
      if (!library.available && !semantic.enabled) scope.log.log('info', VECTOR_INDEX_HINT, { reason: library.reason });
      // The data plane is optional: without it find searches conversations only.
      finder.useDataPlane(scope.container.isRegistered(DataPlaneToken, true) ? resolve(scope.container, DataPlaneToken) : null);
    });
    scope.describe('manifest', 'semantic_search.enabled', () => semantic.enabled);
    scope.describe('manifest', 'semantic_search.embedder', () => semantic.embedder);
    scope.describe('manifest', 'semantic_search.provider_kinds', () => [PROVIDER_KIND]);
    scope.describe('manifest', 'semantic_search.default_model', () => DEFAULT_MODEL);
    scope.describe('manifest', 'semantic_search.vector_index', () => semantic.vectorIndex);
    scope.describe('health', 'search', () => ({
      semantic: semantic.enabled ? semantic.embedder : 'off',
      embedder: semantic.role,
      vector_index: semantic.vectorIndex === null ? 'loading' : semantic.vectorIndex.available ? 'hnsw' : 'unavailable',
    }));
    scope.capability('records.semantic_search', true);
    scope.capability('search.find', true);
    scope.capability('search.find.materials', true);
  },
});
