import { expect } from 'chai';
import { applyChange, childrenOf, emptyTree, loadTree, nodeAt, problemWith, saveTree, type ChangeMeta, type DataNode, type NamespaceTree } from './namespace-tree.js';
import type { NodeChange } from './node-records.js';
import { treeSnapshot } from '../../test/helpers/tree-snapshot.js';

const H1 = '1'.repeat(64);
const H2 = '2'.repeat(64);
const H3 = '3'.repeat(64);
const ALICE = 'did:sync:user:alice';


/** A tree and the changes made to it, each with the next sequence. */
class TreeLog {
  readonly tree = emptyTree();
  sequence = 0;

  meta(): ChangeMeta {
    this.sequence++;
    return { actor: ALICE, record_id: `rec-${this.sequence}`, clock: this.sequence - 1, sequence: this.sequence, at: new Date(Date.UTC(2025, 0, 1, 0, 0, this.sequence)).toISOString() };
  }

  /** Applies a change that must pass the rules. */
  apply(change: NodeChange): ChangeMeta {
    const problem = problemWith(this.tree, change);
    expect(problem, JSON.stringify(change)).to.equal(null);
    const meta = this.meta();
    applyChange(this.tree, change, meta);
    return meta;
  }

  /** The code the rules refuse `change` with (the tree must not change). */
  refused(change: NodeChange): string {
    const before = JSON.stringify(treeSnapshot(this.tree));
    const problem = problemWith(this.tree, change);
    expect(problem, `${JSON.stringify(change)} should be refused`).to.not.equal(null);
    expect(problem!.message).to.be.a('string').and.not.equal('');
    expect(JSON.stringify(treeSnapshot(this.tree))).to.equal(before);
    return problem!.code;
  }

  write(path: string, hash = H1, size = 100, extra: Partial<Extract<NodeChange, { op: 'write' }>> = {}): ChangeMeta {
    return this.apply({ op: 'write', path, content_hash: hash, size_bytes: size, content_type: 'text/plain', ...extra });
  }

  node(path: string): DataNode {
    const node = this.tree.nodes.get(path);
    expect(node, path).to.not.equal(undefined);
    return node!;
  }

  paths(): string[] {
    return [...this.tree.nodes.keys()].sort();
  }

  names(directory: string): string[] {
    return childrenOf(this.tree, directory).map((node) => node.path);
  }
}

const usage = (tree: NamespaceTree) => ({ files: tree.files, directories: tree.directories, logical_bytes: tree.logical_bytes, stored_bytes: tree.stored_bytes });

describe('namespace tree', () => {
  it('starts as an empty root', () => {
    const tree = emptyTree();
    expect(nodeAt(tree, '/')).to.equal('root');
    expect(nodeAt(tree, '/a')).to.equal(undefined);
    expect(childrenOf(tree, '/')).to.deep.equal([]);
    expect(usage(tree)).to.deep.equal({ files: 0, directories: 0, logical_bytes: 0, stored_bytes: 0 });
  });

  it('a write creates its missing parent directories', () => {
    const log = new TreeLog();
    const meta = log.write('/a/b/c.txt', H1, 100, { provenance: { work_thread: 'th_work', goal_summary: 'quarterly report' } });
    expect(log.paths()).to.deep.equal(['/a', '/a/b', '/a/b/c.txt']);
    expect(log.node('/a')).to.deep.include({ kind: 'directory', size_bytes: 0, content_hash: null, record_id: meta.record_id, sequence: meta.sequence, created_at: meta.at, version: 0, provenance: null });
    expect(log.node('/a/b/c.txt')).to.deep.equal({
      kind: 'file',
      path: '/a/b/c.txt',
      size_bytes: 100,
      content_hash: H1,
      content_type: 'text/plain',
      pin_state: 'unpinned',
      storage_class: null,
      created_at: meta.at,
      modified_at: meta.at,
      version: 1,
      record_id: meta.record_id,
      sequence: meta.sequence,
      provenance: { actor: ALICE, record_id: meta.record_id, clock: meta.clock, sequence: meta.sequence, content_hash: H1, work_thread: 'th_work', goal_summary: 'quarterly report' },
    });
    expect(log.names('/')).to.deep.equal(['/a']);
    expect(log.names('/a')).to.deep.equal(['/a/b']);
    expect(log.names('/a/b')).to.deep.equal(['/a/b/c.txt']);
    expect(usage(log.tree)).to.deep.equal({ files: 1, directories: 2, logical_bytes: 100, stored_bytes: 100 });
  });

  it('mkdir creates missing parents; again, or on the root, changes nothing', () => {
    const log = new TreeLog();
    log.apply({ op: 'mkdir', path: '/x/y/z' });
    expect(log.paths()).to.deep.equal(['/x', '/x/y', '/x/y/z']);
    const before = JSON.stringify(treeSnapshot(log.tree));
    log.apply({ op: 'mkdir', path: '/x/y' });
    log.apply({ op: 'mkdir', path: '/' });
    expect(JSON.stringify(treeSnapshot(log.tree))).to.equal(before);
    expect(usage(log.tree)).to.deep.include({ directories: 3, files: 0 });
  });

  it('moving a directory renames every descendant and keeps usage', () => {
    const log = new TreeLog();
    log.write('/a/b/c.txt', H1, 100);
    log.write('/a/d/e.txt', H1, 100);
    log.write('/a/d/f.txt', H2, 50);
    log.apply({ op: 'mkdir', path: '/a/empty' });
    const before = usage(log.tree);
    const file = log.node('/a/d/f.txt');
    const move = log.apply({ op: 'move', from: '/a', to: '/n/m' });
    expect(log.paths()).to.deep.equal(['/n', '/n/m', '/n/m/b', '/n/m/b/c.txt', '/n/m/d', '/n/m/d/e.txt', '/n/m/d/f.txt', '/n/m/empty']);
    expect(log.names('/')).to.deep.equal(['/n']);
    expect(log.names('/n/m')).to.deep.equal(['/n/m/b', '/n/m/d', '/n/m/empty']);
    expect(log.names('/n/m/d')).to.deep.equal(['/n/m/d/e.txt', '/n/m/d/f.txt']);
    expect(log.tree.children.has('/a')).to.equal(false);
    expect(log.tree.children.has('/a/d')).to.equal(false);
    // `/n` was created by the move; the directories moved are still counted once.
    expect(usage(log.tree)).to.deep.equal({ ...before, directories: before.directories + 1 });
    const moved = log.node('/n/m/d/f.txt');
    expect(moved).to.deep.include({ content_hash: H2, size_bytes: 50, version: 1, created_at: file.created_at, provenance: file.provenance, record_id: move.record_id, sequence: move.sequence });
    expect(log.node('/n/m').modified_at).to.equal(move.at);
  });

  it('moving a file renames just it; moving a node onto itself changes nothing', () => {
    const log = new TreeLog();
    log.write('/a/f', H1, 10);
    log.apply({ op: 'move', from: '/a/f', to: '/a/g' });
    expect(log.paths()).to.deep.equal(['/a', '/a/g']);
    const before = JSON.stringify(treeSnapshot(log.tree));
    log.apply({ op: 'move', from: '/a', to: '/a' });
    expect(JSON.stringify(treeSnapshot(log.tree))).to.equal(before);
  });

  it('refuses moves that break the tree', () => {
    const log = new TreeLog();
    log.write('/a/b/c.txt');
    log.write('/a/d/e.txt');
    expect(log.refused({ op: 'move', from: '/a', to: '/a/b/inner' })).to.equal('MOVE_INTO_ITSELF');
    expect(log.refused({ op: 'move', from: '/a/b', to: '/a/b/c' })).to.equal('MOVE_INTO_ITSELF');
    expect(log.refused({ op: 'move', from: '/missing', to: '/x' })).to.equal('PATH_NOT_FOUND');
    expect(log.refused({ op: 'move', from: '/a/b/c.txt', to: '/a/d' })).to.equal('PATH_EXISTS');
    expect(log.refused({ op: 'move', from: '/a/b/c.txt', to: '/a/d/e.txt' })).to.equal('PATH_EXISTS');
    expect(log.refused({ op: 'move', from: '/a/b', to: '/a/d/e.txt/b' })).to.equal('NOT_A_DIRECTORY');
    expect(log.refused({ op: 'move', from: '/', to: '/x' })).to.equal('INVALID_PATH');
    expect(log.refused({ op: 'move', from: '/a', to: '/' })).to.equal('PATH_EXISTS');
    // A sibling that merely shares a prefix is not inside.
    log.apply({ op: 'move', from: '/a/b', to: '/a/bb' });
  });

  it('remove: a non-empty directory needs recursive; a recursive remove frees its files', () => {
    const log = new TreeLog();
    log.write('/keep/c.txt', H1, 100);
    log.write('/d/e.txt', H1, 100);
    log.write('/d/sub/f.txt', H2, 50);
    log.apply({ op: 'mkdir', path: '/empty' });
    expect(usage(log.tree)).to.deep.equal({ files: 3, directories: 4, logical_bytes: 250, stored_bytes: 150 });

    expect(log.refused({ op: 'remove', path: '/d', recursive: false })).to.equal('DIRECTORY_NOT_EMPTY');
    expect(log.refused({ op: 'remove', path: '/missing', recursive: true })).to.equal('PATH_NOT_FOUND');
    expect(log.refused({ op: 'remove', path: '/', recursive: true })).to.equal('INVALID_PATH');
    log.apply({ op: 'remove', path: '/empty', recursive: false });

    log.apply({ op: 'remove', path: '/d', recursive: true });
    expect(log.paths()).to.deep.equal(['/keep', '/keep/c.txt']);
    expect(log.names('/')).to.deep.equal(['/keep']);
    expect([...log.tree.children.keys()].sort()).to.deep.equal(['/', '/keep']);
    // H1 is still held by /keep/c.txt; H2 had no other holder.
    expect(usage(log.tree)).to.deep.equal({ files: 1, directories: 1, logical_bytes: 100, stored_bytes: 100 });
    expect([...log.tree.contents]).to.deep.equal([[H1, { size: 100, refs: 1 }]]);

    log.apply({ op: 'remove', path: '/keep/c.txt', recursive: false });
    expect(usage(log.tree)).to.deep.equal({ files: 0, directories: 1, logical_bytes: 0, stored_bytes: 0 });
    expect(log.tree.contents.size).to.equal(0);
  });

  it('usage: stored_bytes counts each content hash once, logical_bytes every file', () => {
    const log = new TreeLog();
    log.write('/one', H1, 1000);
    log.write('/two', H1, 1000);
    log.write('/three', H2, 10);
    expect(usage(log.tree)).to.deep.include({ logical_bytes: 2010, stored_bytes: 1010 });
    expect(log.tree.contents.get(H1)).to.deep.equal({ size: 1000, refs: 2 });

    // Overwriting with the same content keeps one copy.
    log.write('/one', H1, 1000);
    expect(usage(log.tree)).to.deep.include({ files: 3, logical_bytes: 2010, stored_bytes: 1010 });
    expect(log.tree.contents.get(H1)).to.deep.equal({ size: 1000, refs: 2 });

    // Overwriting with new content releases the old reference.
    log.write('/one', H3, 1);
    expect(usage(log.tree)).to.deep.include({ files: 3, logical_bytes: 1011, stored_bytes: 1011 });
    expect(log.tree.contents.get(H1)).to.deep.equal({ size: 1000, refs: 1 });

    // Releasing the last reference frees it.
    log.apply({ op: 'remove', path: '/two', recursive: false });
    expect(log.tree.contents.has(H1)).to.equal(false);
    expect(usage(log.tree)).to.deep.include({ files: 2, logical_bytes: 11, stored_bytes: 11 });

    // Moves neither add nor drop references.
    log.apply({ op: 'move', from: '/three', to: '/dir/three' });
    expect(usage(log.tree)).to.deep.include({ files: 2, logical_bytes: 11, stored_bytes: 11 });
    expect(log.tree.contents.get(H2)).to.deep.equal({ size: 10, refs: 1 });
  });

  it('publish pins a file; a later write unpins it and counts a new version', () => {
    const log = new TreeLog();
    const first = log.write('/report.pdf', H1, 100);
    const pin = log.apply({ op: 'publish', path: '/report.pdf', storage_class: 'durable' });
    expect(log.node('/report.pdf')).to.deep.include({ pin_state: 'pinned', storage_class: 'durable', version: 1, record_id: pin.record_id, modified_at: pin.at, content_hash: H1 });
    const second = log.write('/report.pdf', H2, 200);
    expect(log.node('/report.pdf')).to.deep.include({ pin_state: 'unpinned', storage_class: null, version: 2, content_hash: H2, created_at: first.at, modified_at: second.at });

    expect(log.refused({ op: 'publish', path: '/missing', storage_class: 'durable' })).to.equal('PATH_NOT_FOUND');
    log.apply({ op: 'mkdir', path: '/dir' });
    expect(log.refused({ op: 'publish', path: '/dir', storage_class: 'durable' })).to.equal('IS_A_DIRECTORY');
    expect(log.refused({ op: 'publish', path: '/', storage_class: 'durable' })).to.equal('IS_A_DIRECTORY');
  });

  it('refuses a write over a directory (IS_A_DIRECTORY) and beneath a file (NOT_A_DIRECTORY)', () => {
    const log = new TreeLog();
    log.write('/a/file.txt');
    expect(log.refused({ op: 'write', path: '/a', content_hash: H1, size_bytes: 1, content_type: 'text/plain' })).to.equal('IS_A_DIRECTORY');
    expect(log.refused({ op: 'write', path: '/', content_hash: H1, size_bytes: 1, content_type: 'text/plain' })).to.equal('IS_A_DIRECTORY');
    expect(log.refused({ op: 'write', path: '/a/file.txt/x', content_hash: H1, size_bytes: 1, content_type: 'text/plain' })).to.equal('NOT_A_DIRECTORY');
    expect(log.refused({ op: 'write', path: '/a/file.txt/x/y', content_hash: H1, size_bytes: 1, content_type: 'text/plain' })).to.equal('NOT_A_DIRECTORY');
    expect(log.refused({ op: 'mkdir', path: '/a/file.txt' })).to.equal('PATH_EXISTS');
    expect(log.refused({ op: 'mkdir', path: '/a/file.txt/sub' })).to.equal('NOT_A_DIRECTORY');
  });

  it('saveTree → JSON → loadTree rebuilds the same tree, indexes and usage included', () => {
    const log = new TreeLog();
    log.write('/z/deep/er/file', H1, 100);
    log.write('/a.txt', H1, 100);
    log.write('/b/c.bin', H2, 7);
    log.apply({ op: 'mkdir', path: '/b/empty' });
    log.apply({ op: 'publish', path: '/b/c.bin', storage_class: 'durable' });
    log.apply({ op: 'move', from: '/z', to: '/b/z' });
    const loaded = loadTree(JSON.parse(JSON.stringify(saveTree(log.tree))) as DataNode[]);
    expect(treeSnapshot(loaded)).to.deep.equal(treeSnapshot(log.tree));
    // The loaded tree is its own: changing it leaves the original alone.
    const again = JSON.stringify(treeSnapshot(log.tree));
    applyChange(loaded, { op: 'remove', path: '/b', recursive: true }, log.meta());
    expect(JSON.stringify(treeSnapshot(log.tree))).to.equal(again);
    expect(usage(loaded)).to.deep.equal({ files: 1, directories: 0, logical_bytes: 100, stored_bytes: 100 });
  });

  it('childrenOf lists by name', () => {
    const log = new TreeLog();
    for (const name of ['b', 'a', 'C', 'é', 'a0']) log.write(`/dir/${name}`, H1, 1);
    expect(childrenOf(log.tree, '/dir').map((node) => node.path)).to.deep.equal(['/dir/C', '/dir/a', '/dir/a0', '/dir/b', '/dir/é']);
    expect(childrenOf(log.tree, '/missing')).to.deep.equal([]);
  });
});
