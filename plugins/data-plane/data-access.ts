/**
 * Who may do what in a namespace, and its tree as a caller may see it: the
 * checks every other room of the data plane makes first.
 */
import { SYSTEM, type Caller } from '../../core/access/caller.js';
import { grainsFor } from '../../core/access/scopes.js';
import { token } from '../../core/di/token.js';
import type { Ingestor } from '../../core/engine/ingest.js';
import type { RecordReader } from '../../core/engine/record-reader.js';
import { LoomError } from '../../core/errors/loom-error.js';
import { DEFAULT_NAMESPACE, namespaceSyntaxError } from '../../core/records/namespace-path.js';
import { makeRecord } from '../../core/records/record.js';
import { actingDid } from '../../core/access/caller.js';
import { DATA_PLANE_PLUGIN } from './data-plane-plugin-name.js';
import { DATA_FOLD, type DataState } from './data-fold.js';
import { ROOT } from './data-path.js';
import { emptyTree, type NamespaceTree } from './namespace-tree.js';
import { dataThreadId, nodeRecordBody } from './node-records.js';

export class DataAccess {
  constructor(
    private readonly ingestor: Ingestor,
    private readonly reader: RecordReader,
  ) {}

  /** The namespace a call addresses: the one named, else the caller's only namespace grain, else `default`. */
  namespaceFor(caller: Caller, requested: string | undefined): string {
    if (requested !== undefined) {
      if (requested === DEFAULT_NAMESPACE) return requested;
      const problem = namespaceSyntaxError(requested);
      if (problem) throw new LoomError('INVALID_SHAPE', `namespace ${JSON.stringify(requested)} ${problem}`);
      return requested;
    }
    const grains = [...(grainsFor(caller.scopes, 'read') ?? []), ...(grainsFor(caller.scopes, 'write') ?? [])].filter((g) => g.kind === 'namespace');
    const namespaces = new Set(grains.map((g) => g.resource));
    return namespaces.size === 1 ? [...namespaces][0]! : DEFAULT_NAMESPACE;
  }

  /** The record a change of `namespace` by `caller` would be (a mkdir of the root: it names no path). */
  private probeInput(caller: Caller, namespace: string) {
    return {
      thread: dataThreadId(namespace),
      actor: actingDid(caller),
      act: 'KNOW',
      body: nodeRecordBody(namespace, { op: 'mkdir', path: ROOT }),
      clock: 0,
      data_type: 'SCALAR',
      parents: [],
      judged_by: null,
    };
  }

  /**
   * Refuses, as the write itself would be refused, a caller who may not
   * change `namespace`: the ingest gates run over a record that is never
   * stored. Done before anything else looks at the namespace, so a refused
   * caller learns nothing of another tenant's paths and holds none of its quota.
   */
  async checkMayWrite(caller: Caller, namespace: string): Promise<void> {
    await this.ingestor.prepare({ caller, via: 'api', plugin: DATA_PLANE_PLUGIN }, this.probeInput(caller, namespace));
  }

  /** Whether `caller` may read the namespace's data thread. */
  mayRead(caller: Caller, namespace: string): boolean {
    const input = this.probeInput(caller, namespace);
    return this.reader.admits(caller, { sequence: 0, createdAt: 0, record: makeRecord('0'.repeat(64), input as never) });
  }

  /** The namespace's tree as `caller` may see it (a restricted caller's fold holds only records it may read). */
  async treeFor(caller: Caller, namespace: string): Promise<{ tree: NamespaceTree; watermark: number }> {
    const { state, watermark } = await this.reader.globalFoldState<DataState>(caller, DATA_FOLD);
    return { tree: state.namespaces.get(namespace) ?? emptyTree(), watermark };
  }

  /** The whole tree, for the checks writes make (under the namespace's lock). */
  async wholeTree(namespace: string): Promise<NamespaceTree> {
    return (await this.treeFor(SYSTEM, namespace)).tree;
  }
}

export const DataAccessToken = token<DataAccess>('data-plane.DataAccess');
