/**
 * One namespace's tree of nodes, as the data fold holds it, and the rules a
 * change must satisfy. `problemWith` is shared by the service (which turns a
 * problem into the refusal) and the fold (which skips a record with that
 * problem and keeps a warning), so what the API refuses and what the fold
 * ignores are one rule.
 */
import type { ErrorCode } from '../../core/errors/codes.js';
import { ancestorsOf, isWithin, joinPath, nameOf, parentOf, ROOT } from './data-path.js';
import type { NodeChange } from './node-records.js';

export type PinState = 'unpinned' | 'pinned';

export interface NodeProvenance {
  /** The DID that made this content (the write record's actor). */
  actor: string;
  record_id: string;
  clock: number;
  sequence: number;
  content_hash: string;
  work_thread: string | null;
  goal_summary: string | null;
}

export interface DataNode {
  kind: 'file' | 'directory';
  path: string;
  size_bytes: number;
  content_hash: string | null;
  content_type: string | null;
  pin_state: PinState;
  storage_class: string | null;
  /** Receipt time of the record that created / last changed the node (ISO 8601), when the store recorded one. */
  created_at: string | null;
  modified_at: string | null;
  /** How many writes this file has had (0 for directories). */
  version: number;
  /** The record of the last change. */
  record_id: string;
  sequence: number;
  provenance: NodeProvenance | null;
}

export interface NamespaceTree {
  nodes: Map<string, DataNode>;
  /** Directory path → names of its children. */
  children: Map<string, Set<string>>;
  /** Content hash → size and how many files of this namespace hold it. */
  contents: Map<string, { size: number; refs: number }>;
  /** Distinct content bytes held (what the namespace costs the blob store). */
  stored_bytes: number;
  /** Sum of file sizes. */
  logical_bytes: number;
  files: number;
  directories: number;
}

export interface ChangeMeta {
  readonly actor: string;
  readonly record_id: string;
  readonly clock: number;
  readonly sequence: number;
  readonly at: string | null;
}

export interface Problem {
  readonly code: ErrorCode;
  readonly message: string;
}

export function emptyTree(): NamespaceTree {
  return { nodes: new Map(), children: new Map([[ROOT, new Set()]]), contents: new Map(), stored_bytes: 0, logical_bytes: 0, files: 0, directories: 0 };
}

export function nodeAt(tree: NamespaceTree, path: string): DataNode | 'root' | undefined {
  return path === ROOT ? 'root' : tree.nodes.get(path);
}

/** The files and directories directly under `directory`, by name. */
export function childrenOf(tree: NamespaceTree, directory: string): DataNode[] {
  const names = [...(tree.children.get(directory) ?? [])].sort();
  return names.map((name) => tree.nodes.get(joinPath(directory, name))!).filter(Boolean);
}

/** Missing ancestors may be created; an existing one must be a directory. */
function ancestorProblem(tree: NamespaceTree, path: string): Problem | null {
  for (const ancestor of ancestorsOf(path)) {
    const node = tree.nodes.get(ancestor);
    if (node && node.kind !== 'directory') return { code: 'NOT_A_DIRECTORY', message: `${ancestor} is a file, so ${path} cannot be created beneath it` };
  }
  return null;
}

export function problemWith(tree: NamespaceTree, change: NodeChange): Problem | null {
  switch (change.op) {
    case 'write': {
      if (change.path === ROOT) return { code: 'IS_A_DIRECTORY', message: 'the root "/" is a directory; name a file inside it' };
      const existing = tree.nodes.get(change.path);
      if (existing?.kind === 'directory') return { code: 'IS_A_DIRECTORY', message: `${change.path} is a directory` };
      return ancestorProblem(tree, change.path);
    }
    case 'mkdir': {
      if (change.path === ROOT) return null;
      const existing = tree.nodes.get(change.path);
      if (existing?.kind === 'file') return { code: 'PATH_EXISTS', message: `${change.path} exists and is a file` };
      return ancestorProblem(tree, change.path);
    }
    case 'move': {
      if (change.from === ROOT) return { code: 'INVALID_PATH', message: 'the root "/" cannot be moved' };
      if (change.to === ROOT) return { code: 'PATH_EXISTS', message: 'the root "/" exists' };
      if (!tree.nodes.has(change.from)) return { code: 'PATH_NOT_FOUND', message: `${change.from} does not exist` };
      if (change.to === change.from) return null;
      if (change.to !== change.from && isWithin(change.to, change.from)) {
        return { code: 'MOVE_INTO_ITSELF', message: `cannot move ${change.from} into its own subtree (${change.to})` };
      }
      if (tree.nodes.has(change.to)) return { code: 'PATH_EXISTS', message: `${change.to} exists; remove it first or choose another name` };
      return ancestorProblem(tree, change.to);
    }
    case 'remove': {
      if (change.path === ROOT) return { code: 'INVALID_PATH', message: 'the root "/" cannot be removed' };
      const existing = tree.nodes.get(change.path);
      if (!existing) return { code: 'PATH_NOT_FOUND', message: `${change.path} does not exist` };
      if (existing.kind === 'directory' && !change.recursive && (tree.children.get(change.path)?.size ?? 0) > 0) {
        return { code: 'DIRECTORY_NOT_EMPTY', message: `${change.path} is not empty: remove it with recursive: true (loom data rm -r)` };
      }
      return null;
    }
    case 'publish': {
      const existing = nodeAt(tree, change.path);
      if (!existing) return { code: 'PATH_NOT_FOUND', message: `${change.path} does not exist` };
      if (existing === 'root' || existing.kind === 'directory') return { code: 'IS_A_DIRECTORY', message: `${change.path} is a directory; publish files` };
      return null;
    }
  }
}

function link(tree: NamespaceTree, node: DataNode): void {
  tree.nodes.set(node.path, node);
  const parent = parentOf(node.path)!;
  let names = tree.children.get(parent);
  if (!names) tree.children.set(parent, (names = new Set()));
  names.add(nameOf(node.path));
  if (node.kind === 'directory') {
    tree.directories++;
    if (!tree.children.has(node.path)) tree.children.set(node.path, new Set());
  } else {
    tree.files++;
    holdContent(tree, node.content_hash!, node.size_bytes);
  }
}

function unlink(tree: NamespaceTree, node: DataNode): void {
  tree.nodes.delete(node.path);
  tree.children.get(parentOf(node.path)!)?.delete(nameOf(node.path));
  if (node.kind === 'directory') {
    tree.directories--;
    tree.children.delete(node.path);
  } else {
    tree.files--;
    releaseContent(tree, node.content_hash!, node.size_bytes);
  }
}

function holdContent(tree: NamespaceTree, hash: string, size: number): void {
  tree.logical_bytes += size;
  const held = tree.contents.get(hash);
  if (held) held.refs++;
  else {
    tree.contents.set(hash, { size, refs: 1 });
    tree.stored_bytes += size;
  }
}

function releaseContent(tree: NamespaceTree, hash: string, size: number): void {
  tree.logical_bytes -= size;
  const held = tree.contents.get(hash);
  if (!held) return;
  if (--held.refs === 0) {
    tree.contents.delete(hash);
    tree.stored_bytes -= held.size;
  }
}

function directory(path: string, meta: ChangeMeta): DataNode {
  return {
    kind: 'directory',
    path,
    size_bytes: 0,
    content_hash: null,
    content_type: null,
    pin_state: 'unpinned',
    storage_class: null,
    created_at: meta.at,
    modified_at: meta.at,
    version: 0,
    record_id: meta.record_id,
    sequence: meta.sequence,
    provenance: null,
  };
}

function ensureAncestors(tree: NamespaceTree, path: string, meta: ChangeMeta): void {
  for (const ancestor of ancestorsOf(path)) if (!tree.nodes.has(ancestor)) link(tree, directory(ancestor, meta));
}

/** The whole subtree under `path` (itself included), deepest first. */
function subtree(tree: NamespaceTree, path: string): DataNode[] {
  const out: DataNode[] = [];
  const visit = (at: string) => {
    const node = tree.nodes.get(at);
    if (!node) return;
    if (node.kind === 'directory') for (const name of tree.children.get(at) ?? []) visit(joinPath(at, name));
    out.push(node);
  };
  visit(path);
  return out;
}

/** Applies a change that passed `problemWith`. */
export function applyChange(tree: NamespaceTree, change: NodeChange, meta: ChangeMeta): void {
  switch (change.op) {
    case 'write': {
      ensureAncestors(tree, change.path, meta);
      const previous = tree.nodes.get(change.path);
      if (previous) unlink(tree, previous);
      link(tree, {
        kind: 'file',
        path: change.path,
        size_bytes: change.size_bytes,
        content_hash: change.content_hash,
        content_type: change.content_type,
        // New content is not the published artifact: publishing pins one version.
        pin_state: 'unpinned',
        storage_class: null,
        created_at: previous?.created_at ?? meta.at,
        modified_at: meta.at,
        version: (previous?.version ?? 0) + 1,
        record_id: meta.record_id,
        sequence: meta.sequence,
        provenance: {
          actor: meta.actor,
          record_id: meta.record_id,
          clock: meta.clock,
          sequence: meta.sequence,
          content_hash: change.content_hash,
          work_thread: change.provenance?.work_thread ?? null,
          goal_summary: change.provenance?.goal_summary ?? null,
        },
      });
      return;
    }
    case 'mkdir':
      if (change.path === ROOT || tree.nodes.has(change.path)) return;
      ensureAncestors(tree, change.path, meta);
      link(tree, directory(change.path, meta));
      return;
    case 'move': {
      if (change.from === change.to) return;
      ensureAncestors(tree, change.to, meta);
      const moved = subtree(tree, change.from);
      for (const node of moved) unlink(tree, node);
      // Parents before children, so every directory exists when its children are linked.
      for (const node of moved.reverse()) {
        const path = change.to + node.path.slice(change.from.length);
        link(tree, { ...node, path, modified_at: node.path === change.from ? meta.at : node.modified_at, record_id: meta.record_id, sequence: meta.sequence });
      }
      return;
    }
    case 'remove':
      for (const node of subtree(tree, change.path)) unlink(tree, node);
      return;
    case 'publish': {
      const node = tree.nodes.get(change.path)!;
      node.pin_state = 'pinned';
      node.storage_class = change.storage_class;
      node.modified_at = meta.at;
      node.record_id = meta.record_id;
      node.sequence = meta.sequence;
      return;
    }
  }
}

/** A tree as plain JSON (checkpoints) and back; the indexes are rebuilt on load. */
export function saveTree(tree: NamespaceTree): DataNode[] {
  // Path order, so a checkpoint of equal trees is equal bytes whatever the history.
  return [...tree.nodes.values()].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

export function loadTree(nodes: readonly DataNode[]): NamespaceTree {
  const tree = emptyTree();
  // Shallow paths first, so parents are linked before their children.
  for (const node of [...nodes].sort((a, b) => a.path.split('/').length - b.path.split('/').length)) link(tree, { ...node });
  return tree;
}
