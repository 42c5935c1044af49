/**
 * Changes to a namespace's tree (mkdir, move, remove, publish, and the write
 * an upload completes with), each checked against the whole tree and written
 * as a node record by the caller, one at a time per namespace.
 */
import type { Caller } from '../../core/access/caller.js';
import { token } from '../../core/di/token.js';
import type { LogCriticalSection } from '../../core/engine/log-critical-section.js';
import type { RecordWriter } from '../../core/engine/record-writer.js';
import type { StoredRecord } from '../../storage/contract/stored-record.js';
import type { DataAccess } from './data-access.js';
import { DATA_PLANE_PLUGIN } from './data-plane-plugin-name.js';
import { isWithin } from './data-path.js';
import { nodeAt, problemWith, type NamespaceTree } from './namespace-tree.js';
import { dataThreadId, nodeRecordBody, type NodeChange } from './node-records.js';
import { pathProblem } from './path-problem.js';

export class TreeChanges {
  constructor(
    private readonly access: DataAccess,
    /** Compare-and-swap changes of one namespace run one at a time, across every server of a shared log. */
    private readonly sections: LogCriticalSection,
    private readonly writer: RecordWriter,
  ) {}

  /** Checks and writes one change under the namespace's lock; `check` runs against the whole tree first. */
  async change(caller: Caller, namespace: string, change: NodeChange, check?: (tree: NamespaceTree) => void, beforeWrite?: () => Promise<void>): Promise<StoredRecord> {
    await this.access.checkMayWrite(caller, namespace);
    return this.sections.run(`data-plane:${namespace}`, async () => {
      const tree = await this.access.wholeTree(namespace);
      pathProblem(problemWith(tree, change));
      check?.(tree);
      await beforeWrite?.();
      const { stored } = await this.writer.appendAs(caller, {
        thread: dataThreadId(namespace),
        act: 'KNOW',
        body: nodeRecordBody(namespace, change) as never,
        plugin: DATA_PLANE_PLUGIN,
      });
      return stored;
    });
  }

  async mkdir(caller: Caller, namespace: string, path: string): Promise<{ created: boolean; record: StoredRecord | null }> {
    await this.access.checkMayWrite(caller, namespace);
    const existing = nodeAt(await this.access.wholeTree(namespace), path);
    if (existing === 'root' || existing?.kind === 'directory') return { created: false, record: null };
    return { created: true, record: await this.change(caller, namespace, { op: 'mkdir', path }) };
  }

  async move(caller: Caller, namespace: string, from: string, to: string): Promise<StoredRecord | null> {
    if (from === to) {
      await this.access.checkMayWrite(caller, namespace);
      pathProblem(problemWith(await this.access.wholeTree(namespace), { op: 'move', from, to }));
      return null;
    }
    return this.change(caller, namespace, { op: 'move', from, to });
  }

  async remove(caller: Caller, namespace: string, path: string, recursive: boolean): Promise<{ record: StoredRecord; removed: number }> {
    let removed = 0;
    const record = await this.change(caller, namespace, { op: 'remove', path, recursive }, (tree) => {
      for (const node of tree.nodes.values()) if (isWithin(node.path, path)) removed++;
    });
    return { record, removed };
  }

  async publish(caller: Caller, namespace: string, path: string, storageClass: string): Promise<StoredRecord> {
    return this.change(caller, namespace, { op: 'publish', path, storage_class: storageClass });
  }
}

export const TreeChangesToken = token<TreeChanges>('data-plane.TreeChanges');
