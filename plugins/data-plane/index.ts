/**
 * The data-plane plugin (spec §4.5, §2.10): a filesystem per namespace whose
 * nodes are records (the `data_fs` fold), a content-addressed SHA-256 blob
 * store, resumable chunked uploads, compare-and-swap writes, signed read
 * URLs and quotas (configuration topic `data_quota`). State on disk lives in
 * `<dataDir>/plugins/data-plane/`: `blobs/`, `uploads/`, `url-secret`,
 * `blob-gc.json` (when unreferenced content was first seen, blob-collector.ts).
 * On PostgreSQL, blobs live in the database (storage/postgres/postgres-blob-store.ts)
 * and, since the log is shared, so do upload sessions, the collector's state
 * and the URL secret (slots): any request may go to any server.
 */
import { randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bindValue, resolve } from '../../core/di/token.js';
import { LogCriticalSectionToken } from '../../core/engine/log-critical-section.js';
import { IngestorToken } from '../../core/engine/ingest.js';
import { RecordReaderToken } from '../../core/engine/record-reader.js';
import { RecordWriterToken } from '../../core/engine/record-writer.js';
import { ClockToken } from '../../core/engine/clock.js';
import { IntervalLoop } from '../../core/engine/interval-loop.js';
import { Config } from '../../core/folds/config/config-topic.js';
import { definePlugin } from '../../core/plugin/plugin.js';
import { RecordBusToken } from '../../core/engine/broadcast.js';
import { RecordStore } from '../../storage/contract/record-store.js';
import { BlobCollector, BlobCollectorToken, isReferenced } from './blob-collector.js';
import { FilesystemBlobStore } from './filesystem-blob-store.js';
import { DataPlaneOptions } from './config.js';
import { dataFold } from './data-fold.js';
import { BlobReads, BlobReadsToken } from './blob-reads.js';
import { DataAccess, DataAccessToken } from './data-access.js';
import { DataFiles, DataFilesToken } from './data-files.js';
import { DATA_PLANE_PLUGIN, type DataPlane } from './data-plane.js';
import { DataPlaneOptionsToken, DataPlaneToken } from './data-plane-token.js';
import { DataQuotas, DataQuotasToken } from './data-quotas.js';
import { DataUploads, DataUploadsToken } from './data-uploads.js';
import { TreeChanges, TreeChangesToken } from './tree-changes.js';
import { TreeReads, TreeReadsToken } from './tree-reads.js';
import { nodeRecordsGate } from './node-records-gate.js';
import { dataQuotaTopic } from './quota-topic.js';
import { abortDataUpload } from './routes/abort-data-upload.js';
import { collectDataBlobs } from './routes/collect-data-blobs.js';
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
import type { UploadSessions } from './upload-sessions.js';
import { SharedUploadStore, type SharedSlots } from './shared-upload-store.js';

export { DataPlaneToken } from './data-plane-token.js';
export { DataFilesToken, type DataFiles, type FileHead, type FileWrite } from './data-files.js';
export { type DataPlane, DATA_PLANE_PLUGIN } from './data-plane.js';
export { uploadOwner } from './data-uploads.js';
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
  collectDataBlobs,
] as const;

export const dataPlanePlugin = definePlugin({
    name: DATA_PLANE_PLUGIN,
    tags: { data: 'The data plane: namespaced file trees, resumable chunked uploads, content-addressed blobs and signed read URLs.' },
    version: '1.0.0',
    dependencies: ['ledger'],
    options: DataPlaneOptions,
    register(scope, options) {
      // The clock for upload expiry and signed URLs.
      const now = resolve(scope.container, ClockToken);
      const dataState = scope.fold(dataFold);
      scope.configTopic(dataQuotaTopic);
      scope.ingestGate(nodeRecordsGate);
      // File bytes (blobs reach their name only by rename) and the signed-URL secret; uploads in progress are not kept.
      scope.backupState(['blobs', 'url-secret']);
      for (const route of DATA_ROUTES) scope.route(route);

      // Without a persistent data directory (an in-memory store) the bytes live in a temporary folder removed at stop.
      const scratch = scope.dataDir === null ? join(tmpdir(), `loom-data-plane-${randomBytes(8).toString('hex')}`) : null;
      const dir = scope.dataDir ?? scratch!;
      const ingestor = resolve(scope.container, IngestorToken);
      const sections = resolve(scope.container, LogCriticalSectionToken);
      const reader = resolve(scope.container, RecordReaderToken);
      const records = resolve(scope.container, RecordStore);
      // Blobs go with the records: a driver that keeps them (PostgreSQL, shared by every server of the log) is
      // used whether or not the log is shared; the others leave them to this plugin's directory.
      const blobStore = records.blobStore?.() ?? new FilesystemBlobStore(join(dir, 'blobs'));
      const bus = resolve(scope.container, RecordBusToken);
      // A shared log with a shared blob store: upload sessions, the collector's state and the URL secret are the
      // store's too, so any request may go to any server (shared-upload-store.ts).
      const shared: SharedSlots | null =
        blobStore.shared && records.capabilities.sharedLog === true && records.readSlot && records.writeSlot && records.withLock
          ? { readSlot: records.readSlot.bind(records), writeSlot: (name: string, value: string | null) => records.writeSlot!(name, value), withLock: records.withLock.bind(records) }
          : null;
      const uploadStore: UploadSessions = shared
        ? new SharedUploadStore(shared, blobStore, {
            ttlMs: options.uploadTtlSeconds * 1000,
            now,
            referenced: async (hash) => {
              await bus.caughtUp();
              return isReferenced(dataState.state(), hash);
            },
          })
        : new UploadStore(join(dir, 'uploads'), { ttlMs: options.uploadTtlSeconds * 1000, minFreeBytes: options.minFreeBytes, now });
      const access = new DataAccess(ingestor, reader);
      const reads = new TreeReads(access, reader);
      const changes = new TreeChanges(access, sections, resolve(scope.container, RecordWriterToken));
      const quotas = new DataQuotas(access, resolve(scope.container, Config), uploadStore, options);
      const uploads = new DataUploads({ access, quotas, changes, sections, store: uploadStore, blobs: blobStore, options });
      const blobs = new BlobReads({ reads, reader, blobs: blobStore, options, now });
      const collector = new BlobCollector({
        blobs: blobStore,
        dataState: () => dataState.state(),
        stateFile: join(dir, 'blob-gc.json'),
        pinned: () => uploadStore.pinned(),
        ...(shared ? { slots: shared, caughtUp: () => bus.caughtUp(), exclusive: <T>(work: () => Promise<T>) => shared.withLock('data-plane:blob-gc', work) } : {}),
        graceSeconds: options.blobGraceSeconds,
        intervalSeconds: options.blobCollectIntervalSeconds,
        now,
      });
      // Each route injects the rooms it uses; other plugins see the narrow DataPlane.
      bindValue(scope.container, DataPlaneOptionsToken, options);
      bindValue(scope.container, DataAccessToken, access);
      bindValue(scope.container, TreeReadsToken, reads);
      bindValue(scope.container, TreeChangesToken, changes);
      bindValue(scope.container, DataQuotasToken, quotas);
      bindValue(scope.container, DataUploadsToken, uploads);
      bindValue(scope.container, BlobReadsToken, blobs);
      bindValue(scope.container, BlobCollectorToken, collector);
      const plane: DataPlane = {
        treeFor: (caller, namespace) => access.treeFor(caller, namespace),
        mayRead: (caller, namespace) => access.mayRead(caller, namespace),
        openBlob: (hash, start, end) => blobs.openBlob(hash, start, end),
      };
      scope.expose(DataPlaneToken, plane);
      // Files handled for a caller by another plugin (the work plugin's file tools), through the routes' rooms.
      scope.expose(DataFilesToken, new DataFiles({ access, reads, uploads, blobs }));

      let sweeper: NodeJS.Timeout | null = null;
      scope.onStart(async () => {
        // Opens the stores (dropping what a crash left half-done) and the URL signing secret (`null`: one kept in memory).
        await blobStore.open();
        await collector.open();
        const { resumed, removed } = await uploadStore.open();
        await blobs.openSigner(shared ?? (scratch === null ? join(dir, 'url-secret') : null));
        if (resumed > 0 || removed > 0) scope.log.log('info', 'data plane uploads', { resumed, expired_or_unreadable_removed: removed });
        sweeper = setInterval(() => {
          uploads.sweep().then(
            (count) => count > 0 && scope.log.log('info', 'data plane uploads expired', { removed: count }),
            (error: unknown) => scope.log.log('warn', 'data plane upload sweep failed', { error: (error as Error).message }),
          );
        }, options.sweepIntervalSeconds * 1000);
        sweeper.unref();
      });
      // A filesystem store is collected by each server (its own directory); a shared one by the leader only
      // (blob-collector.ts). The first run, at start, starts the grace of what is already unreferenced.
      scope.loop(
        new IntervalLoop(
          'data-plane.blob-gc',
          options.blobCollectIntervalSeconds * 1000,
          async () => {
            const run = await collector.collect();
            if (run.collected_blobs > 0) scope.log.log('info', 'data plane blobs collected', { blobs: run.collected_blobs, freed_bytes: run.freed_bytes, grace_seconds: run.grace_seconds });
          },
          (context, error) => scope.log.log('warn', context, { error: (error as Error).message }),
          true,
          blobStore.shared,
        ),
      );
      scope.onStop(async () => {
        if (sweeper) clearInterval(sweeper);
        await blobStore.close();
        if (scratch) await rm(scratch, { recursive: true, force: true });
      });

      scope.describe('manifest', 'conventions.data_plane', () => ({ version: 1, chunk_size: options.chunkSizeBytes, content_hash: 'sha256', capabilities_path: '/v1/data/capabilities' }));
      scope.capability('data.filesystem', true);
      scope.capability('data.resumable_uploads', true);
      scope.capability('data.signed_urls', true);
      scope.capability('data.range_reads', true);
      scope.capability('data.quotas', true);
      scope.capability('data.blob_gc', true);
    },
});
