/**
 * `data_fs` (global, checkpointed): every namespace's tree of nodes, folded
 * from the node records (node-records.ts). A record that breaks a rule of
 * namespace-tree.ts (a federated or hand-made one: the API refuses them
 * before writing) changes nothing and leaves a warning, so replaying the log
 * always gives the tree the API answered from.
 */
import type { Fold } from '../../core/folds/fold.js';
import { DEFAULT_NAMESPACE } from '../../core/records/namespace-path.js';
import { parseDataPath } from './data-path.js';
import { applyChange, emptyTree, loadTree, problemWith, saveTree, type DataNode, type NamespaceTree } from './namespace-tree.js';
import { dataThreadId, NODE_KIND, SHA256_HEX, type NodeChange } from './node-records.js';

export const DATA_FOLD = 'data_fs';
const MAX_WARNINGS = 100;
const STORAGE_CLASS = /^[a-z][a-z0-9_-]{0,31}$/;

export interface DataWarning {
  record_id: string;
  sequence: number;
  namespace: string;
  message: string;
}

export interface DataState {
  namespaces: Map<string, NamespaceTree>;
  warnings: DataWarning[];
}

export interface DataFoldValue {
  namespaces: Record<string, { files: number; directories: number; logical_bytes: number; stored_bytes: number }>;
  warnings: DataWarning[];
}

function text(value: unknown, max: number): string | undefined {
  return typeof value === 'string' && value.length <= max ? value : undefined;
}

/** The change a node record's body describes, or why it describes none. */
export function readChange(body: Record<string, unknown>): NodeChange | string {
  try {
    switch (body['op']) {
      case 'write': {
        const hash = body['content_hash'];
        const size = body['size_bytes'];
        if (typeof hash !== 'string' || !SHA256_HEX.test(hash)) return 'write needs content_hash (64 lowercase hex)';
        if (typeof size !== 'number' || !Number.isSafeInteger(size) || size < 0) return 'write needs size_bytes (a non-negative integer)';
        const provenance = body['provenance'] as Record<string, unknown> | undefined;
        const workThread = text(provenance?.['work_thread'], 80);
        const goal = text(provenance?.['goal_summary'], 500);
        return {
          op: 'write',
          path: parseDataPath(body['path']),
          content_hash: hash,
          size_bytes: size,
          content_type: text(body['content_type'], 255) ?? 'application/octet-stream',
          ...(workThread !== undefined || goal !== undefined ? { provenance: { ...(workThread ? { work_thread: workThread } : {}), ...(goal ? { goal_summary: goal } : {}) } } : {}),
        };
      }
      case 'mkdir':
        return { op: 'mkdir', path: parseDataPath(body['path']) };
      case 'move':
        return { op: 'move', from: parseDataPath(body['from'], 'from'), to: parseDataPath(body['to'], 'to') };
      case 'remove':
        return { op: 'remove', path: parseDataPath(body['path']), recursive: body['recursive'] === true };
      case 'publish': {
        const storageClass = body['storage_class'];
        if (typeof storageClass !== 'string' || !STORAGE_CLASS.test(storageClass)) return 'publish needs a storage_class such as "durable"';
        return { op: 'publish', path: parseDataPath(body['path']), storage_class: storageClass };
      }
      default:
        return `unknown op ${JSON.stringify(body['op'])}`;
    }
  } catch (error) {
    return (error as Error).message;
  }
}

export function treeOf(state: DataState, namespace: string): NamespaceTree | undefined {
  return state.namespaces.get(namespace);
}

export const dataFold: Fold<DataState, DataFoldValue> = {
  name: DATA_FOLD,
  scope: 'global',
  description: "The data plane's filesystems: each namespace's files and directories, folded from core.data.node.v1 records on its data thread.",
  // Node records live on data threads only: a reader hidden just the control threads is served the shared tree.
  ignoresSystemThreads: true,
  kinds: [NODE_KIND],
  initial: () => ({ namespaces: new Map(), warnings: [] }),
  apply(state, { sequence, record, createdAt }) {
    if (record.body['kind'] !== NODE_KIND) return state;
    const rawNamespace = record.body['namespace'];
    const namespace = typeof rawNamespace === 'string' ? rawNamespace : DEFAULT_NAMESPACE;
    const warn = (message: string) => {
      state.warnings.push({ record_id: record.id, sequence, namespace, message });
      if (state.warnings.length > MAX_WARNINGS) state.warnings.shift();
      return state;
    };
    // Only the namespace's own data thread holds its tree: a node record elsewhere names nothing.
    if (record.thread !== dataThreadId(namespace)) return warn(`node record on ${record.thread}, not on the data thread of ${namespace}`);
    const change = readChange(record.body);
    if (typeof change === 'string') return warn(change);
    let tree = state.namespaces.get(namespace);
    if (!tree) state.namespaces.set(namespace, (tree = emptyTree()));
    const problem = problemWith(tree, change);
    if (problem) return warn(`${change.op}: ${problem.message}`);
    applyChange(tree, change, {
      actor: record.actor,
      record_id: record.id,
      clock: record.clock,
      sequence,
      at: createdAt === undefined ? null : new Date(createdAt).toISOString(),
    });
    return state;
  },
  value(state) {
    const namespaces: DataFoldValue['namespaces'] = {};
    for (const [name, tree] of [...state.namespaces].sort(([a], [b]) => (a < b ? -1 : 1))) {
      namespaces[name] = { files: tree.files, directories: tree.directories, logical_bytes: tree.logical_bytes, stored_bytes: tree.stored_bytes };
    }
    return { namespaces, warnings: [...state.warnings] };
  },
  checkpoint: {
    version: 1,
    save: (state) => ({ namespaces: [...state.namespaces].map(([name, tree]) => [name, saveTree(tree)]), warnings: [...state.warnings] }),
    load: (saved) => {
      const { namespaces, warnings } = saved as { namespaces: Array<[string, DataNode[]]>; warnings: DataWarning[] };
      return { namespaces: new Map(namespaces.map(([name, nodes]) => [name, loadTree(nodes)])), warnings: [...warnings] };
    },
  },
};
