/**
 * Namespace quotas (the data_quota topic, else the default): the check every
 * upload makes, and the usage report.
 */
import type { Caller } from '../../core/access/caller.js';
import { token } from '../../core/di/token.js';
import { LoomError } from '../../core/errors/loom-error.js';
import type { Config } from '../../core/folds/config/config-topic.js';
import type { DataPlaneOptions } from './config.js';
import type { DataAccess } from './data-access.js';
import type { NamespaceTree } from './namespace-tree.js';
import { dataQuotaTopic } from './quota-topic.js';
import type { UploadSessions } from './upload-sessions.js';

export class DataQuotas {
  constructor(
    private readonly access: DataAccess,
    private readonly config: Config,
    private readonly uploads: UploadSessions,
    private readonly options: DataPlaneOptions,
  ) {}

  quotaOf(namespace: string): number | null {
    const entry = this.config.keyed(dataQuotaTopic)[namespace];
    return entry ? entry.quota_bytes : this.options.defaultQuotaBytes;
  }

  /** Refuses a change that would take the namespace over its quota (open uploads count, except `exceptUpload`). */
  check(namespace: string, tree: NamespaceTree, additional: number, exceptUpload?: string): void {
    const quota = this.quotaOf(namespace);
    if (quota === null) return;
    const reserved = this.uploads.reservedBytes(namespace, exceptUpload);
    if (tree.stored_bytes + reserved + additional > quota) {
      throw new LoomError(
        'QUOTA_EXCEEDED',
        `namespace ${namespace} would hold ${tree.stored_bytes + reserved + additional} bytes, over its quota of ${quota} (${tree.stored_bytes} stored, ${reserved} in open uploads, ${additional} more): free space with loom data rm, or raise the data_quota configuration`,
        { quota_bytes: quota, used_bytes: tree.stored_bytes, reserved_bytes: reserved, requested_bytes: additional },
      );
    }
  }

  async usage(caller: Caller, namespace: string) {
    // Open uploads and quotas are not in the caller's view of the tree: they are shown only for a namespace it may read.
    if (!this.access.mayRead(caller, namespace)) throw new LoomError('SCOPE_FORBIDDEN', `this credential cannot read namespace ${namespace}`);
    const { tree } = await this.access.treeFor(caller, namespace);
    await this.uploads.refresh();
    const quota = this.quotaOf(namespace);
    const reserved = this.uploads.reservedBytes(namespace);
    return {
      object: 'data_usage' as const,
      namespace,
      used_bytes: tree.stored_bytes,
      quota_bytes: quota,
      available_bytes: quota === null ? null : Math.max(0, quota - tree.stored_bytes - reserved),
      logical_bytes: tree.logical_bytes,
      files: tree.files,
      directories: tree.directories,
      uploads: { open: this.uploads.openCount(namespace), reserved_bytes: reserved },
    };
  }
}

export const DataQuotasToken = token<DataQuotas>('data-plane.DataQuotas');
