/**
 * What other plugins read of the data plane (search indexes file names and
 * contents): namespaces' trees as a caller may see them, and blob bytes. The
 * data plane's own routes inject its rooms instead: access (data-access.ts),
 * tree reads and changes, quotas, uploads and blob reads.
 */
import type { Readable } from 'node:stream';
import type { Caller } from '../../core/access/caller.js';
import type { NamespaceTree } from './namespace-tree.js';

export { DATA_PLANE_PLUGIN } from './data-plane-plugin-name.js';

export interface DataPlane {
  /** The namespace's tree as `caller` may see it. */
  treeFor(caller: Caller, namespace: string): Promise<{ tree: NamespaceTree; watermark: number }>;
  /** Whether `caller` may read the namespace's data thread. */
  mayRead(caller: Caller, namespace: string): boolean;
  openBlob(hash: string, start: number, end: number): Readable;
}
