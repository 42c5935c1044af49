/** For tests: every part of a tree, in an order that does not depend on insertion order. */
import type { NamespaceTree } from '../../plugins/data-plane/namespace-tree.js';

export function treeSnapshot(tree: NamespaceTree) {
  return {
    nodes: [...tree.nodes.values()].sort((a, b) => (a.path < b.path ? -1 : 1)),
    children: Object.fromEntries([...tree.children].sort(([a], [b]) => (a < b ? -1 : 1)).map(([dir, names]) => [dir, [...names].sort()])),
    contents: Object.fromEntries([...tree.contents].sort(([a], [b]) => (a < b ? -1 : 1))),
    stored_bytes: tree.stored_bytes,
    logical_bytes: tree.logical_bytes,
    files: tree.files,
    directories: tree.directories,
  };
}
