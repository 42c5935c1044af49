/**
 * The data-plane plugin (spec §4.5, §2.10): a filesystem per namespace whose
 * nodes are records (the `data_fs` fold), a content-addressed SHA-256 blob
 * store, resumable chunked uploads, compare-and-swap writes, signed read
 * URLs and quotas (configuration topic `data_quota`). State on disk lives in
 * `<dataDir>/plugins/data-plane/`: `blobs/`, `uploads/`, `url-secret`.
 */
import { randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resolve } from '../../core/di/token.js';
import { LogCriticalSectionToken } from '../../core/engine/log-critical-section.js';
import { IngestorToken } from '../../core/engine/ingest.js';
import { RecordReaderToken } from '../../core/engine/record-reader.js';
import { RecordWriterToken } from '../../core/engine/record-writer.js';
import { Config } from '../../core/folds/config/config-topic.js';
import { ClockToken } from '../../core/engine/clock.js';
import { definePlugin } from '../../core/plugin/plugin.js';
import { BlobStore } from './blob-store.js';
import { DataPlaneOptions } from './config.js';
import { dataFold } from './data-fold.js';
import { DATA_PLANE_PLUGIN, DataPlane } from './data-plane.js';
import { DataPlaneToken } from './data-plane-token.js';
import { nodeRecordsGate } from './node-records-gate.js';
import { dataQuotaTopic } from './quota-topic.js';
import { abortDataUpload } from './routes/abort-data-upload.js';
import { completeDataWrite } from './routes/complete-data-write.js';
import { createDataReadUrl } from './routes/create-data-read-url.js';
import { getBlob } from './routes/get-blob.js';
import { getDataCapabilities } from './routes/get-data-capabilities.js';
import { getDataNode } from './routes/get-data-node.js';
import { getDataUpload } from './routes/get-data-upload.js';
import { getDataUsage } from './routes/get-data-usage.js';
import { initDataWrite } from './routes/init-data-write.js';
import { listDataDirectory } from './routes/list-data-directory.js';
import { listDataProvenance } from './routes/list-data-provenance.js';
import { makeDataDirectory } from './routes/make-data-directory.js';
import { moveDataNode } from './routes/move-data-node.js';
import { publishDataFile } from './routes/publish-data-file.js';
import { removeDataNode } from './routes/remove-data-node.js';
import { searchDataMaterials } from './routes/search-data-materials.js';
import { statDataNode } from './routes/stat-data-node.js';
import { uploadDataChunk } from './routes/upload-data-chunk.js';
import { UploadStore } from './upload-store.js';

export { DataPlaneToken } from './data-plane-token.js';
export { DataPlane, DATA_PLANE_PLUGIN, uploadOwner } from './data-plane.js';
export { DATA_FOLD, dataFold, type DataState, type DataFoldValue } from './data-fold.js';
export { dataThreadId, NODE_KIND } from './node-records.js';
export { parseDataPath, MAX_PATH_BYTES, MAX_SEGMENT_BYTES, MAX_DEPTH } from './data-path.js';
export { dataQuotaTopic } from './quota-topic.js';
export { DataPlaneOptions } from './config.js';
export type { DataNode } from './namespace-tree.js';

export const DATA_ROUTES = [
  listDataDirectory,
  statDataNode,
  getDataNode,
  searchDataMaterials,
  makeDataDirectory,
  moveDataNode,
  removeDataNode,
  initDataWrite,
  uploadDataChunk,
  getDataUpload,
  abortDataUpload,
  completeDataWrite,
  createDataReadUrl,
  getBlob,
  publishDataFile,
  getDataUsage,
  getDataCapabilities,
  listDataProvenance,
] as const;

export const dataPlanePlugin = definePlugin({
  name: DATA_PLANE_PLUGIN,
  tags: { data: 'The data plane: namespaced file trees, resumable chunked uploads, content-addressed blobs and signed read URLs.' },
  version: '1.0.0',
  dependencies: ['ledger'],
  options: DataPlaneOptions,
  register(scope, options) {
    const now = resolve(scope.container, ClockToken);
    scope.fold(dataFold);
    scope.configTopic(dataQuotaTopic);
    scope.ingestGate(nodeRecordsGate);
    // File bytes (blobs reach their name only by rename) and the signed-URL secret; uploads in progress are not kept.
    scope.backupState(['blobs', 'url-secret']);
    for (const route of DATA_ROUTES) scope.route(route);

    // Without a persistent data directory (an in-memory store) the bytes live in a temporary folder removed at stop.
    const scratch = scope.dataDir === null ? join(tmpdir(), `loom-data-plane-${randomBytes(8).toString('hex')}`) : null;
    const dir = scope.dataDir ?? scratch!;
    const service = new DataPlane({
      ingestor: resolve(scope.container, IngestorToken),
      writer: resolve(scope.container, RecordWriterToken),
      sections: resolve(scope.container, LogCriticalSectionToken),
      reader: resolve(scope.container, RecordReaderToken),
      config: resolve(scope.container, Config),
      blobs: new BlobStore(join(dir, 'blobs')),
      uploads: new UploadStore(join(dir, 'uploads'), { ttlMs: options.uploadTtlSeconds * 1000, minFreeBytes: options.minFreeBytes, now }),
      options,
      now,
    });
    scope.expose(DataPlaneToken, service);

    let sweeper: NodeJS.Timeout | null = null;
    scope.onStart(async () => {
      const { resumed, removed } = await service.open(scratch === null ? join(dir, 'url-secret') : null);
      if (resumed > 0 || removed > 0) scope.log.log('info', 'data plane uploads', { resumed, expired_or_unreadable_removed: removed });
      sweeper = setInterval(() => {
        service.sweepUploads().then(
          (count) => count > 0 && scope.log.log('info', 'data plane uploads expired', { removed: count }),
          (error: unknown) => scope.log.log('warn', 'data plane upload sweep failed', { error: (error as Error).message }),
        );
      }, options.sweepIntervalSeconds * 1000);
      sweeper.unref();
    });
    scope.onStop(async () => {
      if (sweeper) clearInterval(sweeper);
      if (scratch) await rm(scratch, { recursive: true, force: true });
    });

    scope.describe('manifest', 'conventions.data_plane', () => ({ version: 1, chunk_size: options.chunkSizeBytes, content_hash: 'sha256', capabilities_path: '/v1/data/capabilities' }));
    scope.capability('data.filesystem', true);
    scope.capability('data.resumable_uploads', true);
    scope.capability('data.signed_urls', true);
    scope.capability('data.range_reads', true);
    scope.capability('data.quotas', true);
  },
});
