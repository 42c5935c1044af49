/**
 * The portability plugin: the log as a portable file (export and import,
 * between servers and between storage drivers) and online backups of a
 * running server. Admin only. Import goes through the normal ingest path as
 * `via: 'replay'`; a backup is the store's consistent copy plus the plugin
 * state other plugins name with `scope.backupState`.
 */
import { resolve } from '../../core/di/token.js';
import { IngestorToken } from '../../core/engine/ingest.js';
import { RecordReaderToken } from '../../core/engine/record-reader.js';
import { BackupStateToken } from '../../core/plugin/backup-state.js';
import { definePlugin } from '../../core/plugin/plugin.js';
import { ServerInfo } from '../../core/server/server-info.js';
import { RecordStore } from '../../storage/contract/record-store.js';
import { removeStaleStaging } from './online-backup.js';
import { PortabilityToken, portableLog } from './portability-service.js';
import { exportLog } from './routes/export-log.js';
import { importLog } from './routes/import-log.js';
import { takeBackup } from './routes/take-backup.js';

export { PortabilityToken, type Portability } from './portability-service.js';
export { EXPORT_FORMAT, type ExportHeader, type ExportTrailer, type ExportScope } from './export-format.js';
export { exportLines } from './log-export.js';
export { LogImporter, importLines, type ImportResult, type ImportProgress } from './log-import.js';
export { checkExportFile, type ExportFileCheck } from './check-export-file.js';
export { BACKUP_MANIFEST, BACKUP_FORMAT, type BackupManifest } from './online-backup.js';

export const portabilityPlugin = definePlugin({
  name: 'portability',
  tags: {
    portability: 'The log as a portable NDJSON file (export, import) and online backups (admin).',
  },
  version: '1.0.0',
  dependencies: ['ledger'],
  register(scope) {
    const info = resolve(scope.container, ServerInfo);
    const store = resolve(scope.container, RecordStore);
    const reader = resolve(scope.container, RecordReaderToken);
    const dataDir = info.dataDir !== null && store.capabilities.persistent ? info.dataDir : null;
    scope.expose(PortabilityToken, {
      log: portableLog(store),
      ingestor: resolve(scope.container, IngestorToken),
      isSystemThread: (thread) => reader.isSystemThread(thread),
      dataDir,
      backupState: resolve(scope.container, BackupStateToken),
      loomVersion: info.version,
      instance: info.instanceDid,
    });
    scope.capability('portability.export', true);
    scope.capability('portability.online_backup', store.capabilities.onlineBackup === true && dataDir !== null);
    for (const route of [exportLog, importLog, takeBackup]) scope.route(route);
    scope.onStart(async () => {
      if (dataDir !== null) await removeStaleStaging(dataDir);
    });
  },
});
