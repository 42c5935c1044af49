/**
 * The search plugin (spec §4.2 search and embed, §4.3 blended find, §2.9
 * `embedding_provider`):
 * - semantic search through a local embedding server speaking Ollama's API
 *   (semantic-search.ts), vectors kept per model in
 *   `<dataDir>/plugins/search/vectors/`;
 * - blended BM25 find over conversations and, when the data-plane plugin is
 *   loaded, its files (find-service.ts), held in memory and rebuilt from the
 *   log at start.
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

export { SearchOptions } from './config.js';
export { embeddingProviderTopic, DEFAULT_MODEL, DEFAULT_ENDPOINT, PROVIDER_KIND } from './embedding-provider-topic.js';
export { FindServiceToken, SemanticSearchToken } from './search-token.js';
export { OllamaEmbedClient, EmbedderError } from './ollama-client.js';
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
    const semantic = new SemanticSearch({
      reader,
      config: resolve(scope.container, Config),
      dir: scope.dataDir === null ? null : join(scope.dataDir, 'vectors'),
      options,
      log: scope.log,
      now,
    });
    scope.expose(SemanticSearchToken, semantic);
    semantic.attach(scope.consume(semantic));
    const finder = new FindService({ reader, options, log: scope.log, now });
    finder.attach(scope.consume(finder));
    scope.expose(FindServiceToken, finder);
    scope.onStart(() => {
      // The data plane is optional: without it find searches conversations only.
      finder.useDataPlane(scope.container.isRegistered(DataPlaneToken, true) ? resolve(scope.container, DataPlaneToken) : null);
    });
    scope.describe('manifest', 'semantic_search.enabled', () => semantic.enabled);
    scope.describe('manifest', 'semantic_search.embedder', () => semantic.embedder);
    scope.describe('manifest', 'semantic_search.provider_kinds', () => [PROVIDER_KIND]);
    scope.describe('manifest', 'semantic_search.default_model', () => DEFAULT_MODEL);
    scope.describe('health', 'search', () => ({ semantic: semantic.enabled ? semantic.embedder : 'off' }));
    scope.capability('records.semantic_search', true);
    scope.capability('search.find', true);
    scope.capability('search.find.materials', true);
  },
});
