/**
 * Reading a namespace's tree as the caller may see it: stat, directory
 * listings, the materials search and the made-by (provenance) feed.
 */
import type { Caller } from '../../core/access/caller.js';
import { token } from '../../core/di/token.js';
import type { RecordReader } from '../../core/engine/record-reader.js';
import { LoomError } from '../../core/errors/loom-error.js';
import type { StoredRecord } from '../../storage/contract/stored-record.js';
import type { DataAccess } from './data-access.js';
import { readChange } from './data-fold.js';
import { isWithin, ROOT } from './data-path.js';
import { childrenOf, nodeAt, type DataNode } from './namespace-tree.js';
import { dataThreadId, NODE_KIND } from './node-records.js';

export class TreeReads {
  constructor(
    private readonly access: DataAccess,
    private readonly reader: RecordReader,
  ) {}

  async stat(caller: Caller, namespace: string, path: string): Promise<DataNode> {
    const { tree } = await this.access.treeFor(caller, namespace);
    const node = nodeAt(tree, path);
    if (!node) throw new LoomError('PATH_NOT_FOUND', `${path} does not exist in namespace ${namespace}`);
    return node === 'root' ? rootNode() : node;
  }

  async list(caller: Caller, namespace: string, path: string, after: string | undefined, limit: number): Promise<{ entries: DataNode[]; next: string | null; watermark: number }> {
    const { tree, watermark } = await this.access.treeFor(caller, namespace);
    const node = nodeAt(tree, path);
    if (!node) throw new LoomError('PATH_NOT_FOUND', `${path} does not exist in namespace ${namespace}`);
    if (node !== 'root' && node.kind !== 'directory') throw new LoomError('NOT_A_DIRECTORY', `${path} is a file: stat it, or list its directory`);
    const children = childrenOf(tree, path);
    const start = after === undefined ? 0 : children.findIndex((child) => child.path > after);
    const from = start < 0 ? children.length : start;
    const entries = children.slice(from, from + limit);
    return { entries, next: from + limit < children.length ? entries[entries.length - 1]!.path : null, watermark };
  }

  /** Files whose path, content type or goal summary contain every word of `q`, newest change first. */
  async materials(caller: Caller, namespace: string, q: string | undefined, limit: number): Promise<DataNode[]> {
    const { tree } = await this.access.treeFor(caller, namespace);
    const words = (q ?? '').toLowerCase().split(/\s+/).filter(Boolean);
    const out: DataNode[] = [];
    for (const node of tree.nodes.values()) {
      if (node.kind !== 'file') continue;
      const text = `${node.path}\n${node.content_type ?? ''}\n${node.provenance?.goal_summary ?? ''}\n${node.storage_class ?? ''}`.toLowerCase();
      if (words.every((word) => text.includes(word))) out.push(node);
    }
    return out.sort((a, b) => b.sequence - a.sequence || (a.path < b.path ? -1 : 1)).slice(0, limit);
  }

  /** The clock-ordered made-by feed: writes and publications of the namespace (under `path`), oldest first. */
  async provenance(caller: Caller, namespace: string, path: string, after: number, limit: number) {
    const entries: Array<Record<string, unknown>> = [];
    const answer = (next: number | null) => ({ object: 'list' as const, namespace, path, data: entries, next_cursor: next === null ? null : String(next), has_more: next !== null });
    let cursor = after;
    let pages = 0;
    for await (const { items, nextAfter } of this.reader.pages(caller, dataThreadId(namespace), { after })) {
      for (const stored of items) {
        cursor = stored.sequence;
        const entry = provenanceEntry(stored, path);
        if (entry) entries.push(entry);
        if (entries.length >= limit) return answer(cursor);
      }
      if (nextAfter === null) break;
      cursor = Math.max(cursor, nextAfter);
      // Bounded work per request: a sparse match answers a cursor to continue from.
      if (++pages === 20) return answer(cursor);
    }
    return answer(null);
  }
}

export const TreeReadsToken = token<TreeReads>('data-plane.TreeReads');

export function rootNode(): DataNode {
  return { kind: 'directory', path: ROOT, size_bytes: 0, content_hash: null, content_type: null, pin_state: 'unpinned', storage_class: null, created_at: null, modified_at: null, version: 0, record_id: '', sequence: 0, provenance: null };
}

function provenanceEntry(stored: StoredRecord, under: string): Record<string, unknown> | null {
  const { record } = stored;
  if (record.body['kind'] !== NODE_KIND) return null;
  const change = readChange(record.body);
  if (typeof change === 'string' || (change.op !== 'write' && change.op !== 'publish')) return null;
  if (!isWithin(change.path, under)) return null;
  return {
    op: change.op,
    path: change.path,
    actor: record.actor,
    clock: record.clock,
    sequence: stored.sequence,
    record_id: record.id,
    at: new Date(stored.createdAt).toISOString(),
    ...(change.op === 'write'
      ? { content_hash: change.content_hash, size_bytes: change.size_bytes, content_type: change.content_type, work_thread: change.provenance?.work_thread ?? null, goal_summary: change.provenance?.goal_summary ?? null }
      : { storage_class: change.storage_class }),
  };
}
