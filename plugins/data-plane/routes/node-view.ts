/** A node as the routes answer it. */
import { nameOf } from '../data-path.js';
import type { DataNode } from '../namespace-tree.js';

export function nodeView(namespace: string, node: DataNode) {
  return { object: 'data_node' as const, namespace, ...node, name: nameOf(node.path), provenance: node.provenance ? { ...node.provenance } : null };
}
