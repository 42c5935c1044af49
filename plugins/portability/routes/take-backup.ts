import { rm } from 'node:fs/promises';
import { LoomError } from '../../../core/errors/loom-error.js';
import { Reply } from '../../../core/plugin/reply.js';
import { defineRoute } from '../../../core/plugin/route.js';
import { backupArchive, stageBackup } from '../online-backup.js';
import { PortabilityToken } from '../portability-service.js';

export const takeBackup = defineRoute({
  operationId: 'takeBackup',
  method: 'POST',
  path: '/v1/backup',
  summary: 'Take an online backup',
  description:
    'A consistent copy of the log taken while the server keeps serving and ingesting (SQLite: VACUUM INTO; LevelDB: one snapshot; PostgreSQL: pg_dump of the schema from one exported snapshot), with the plugin state that is not derived from the log ' +
    '(the instance key, pairing secrets, data-plane file bytes), streamed as a .tar.gz. Every record acknowledged before the request is in it; ' +
    'the X-Loom-Backup-Watermark header gives the last sequence it holds. `loom restore` brings it back. Admin only. 501 BACKUP_NOT_SUPPORTED without a data directory, or on PostgreSQL when the server has no pg_dump (Debian: postgresql-client).',
  tags: ['portability'],
  auth: { scope: 'admin' },
  responses: { 200: { description: 'The backup archive (tar, gzip).', contentType: 'application/gzip', binary: true } },
  errors: ['BACKUP_NOT_SUPPORTED'],
  inject: { portability: PortabilityToken },
  handler: async (_input, { portability }) => {
    if (portability.dataDir === null) throw new LoomError('BACKUP_NOT_SUPPORTED', 'this server keeps no data directory (an in-memory store): there is nothing to back up');
    const { directory, manifest } = await stageBackup({
      store: portability.log,
      dataDir: portability.dataDir,
      state: portability.backupState.list(),
      loomVersion: portability.loomVersion,
      instance: portability.instance,
    });
    const archive = await backupArchive(directory);
    // The staged copy goes once the archive is sent, or the client went away.
    archive.once('close', () => void rm(directory, { recursive: true, force: true }));
    archive.once('end', () => void rm(directory, { recursive: true, force: true }));
    const stamp = manifest.created_at.replace(/[:.]/g, '-');
    return Reply.stream(archive, {
      'content-type': 'application/gzip',
      'content-disposition': `attachment; filename="loom-backup-${stamp}.tar.gz"`,
      'cache-control': 'no-store',
      'x-loom-backup-watermark': String(manifest.watermark),
    });
  },
});
