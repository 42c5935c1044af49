import { expect } from 'chai';
import { replayFold, type FoldInput } from '../../core/folds/fold.js';
import { ALICE, BOB, TestLog, TH_1 } from '../../test/helpers/test-log.js';
import type { JsonObject } from '../../core/records/json.js';
import type { LoomRecord } from '../../core/records/record.js';
import { DATA_FOLD, dataFold, readChange, treeOf, type DataState } from './data-fold.js';
import type { NamespaceTree } from './namespace-tree.js';
import { dataThreadId, NODE_KIND, nodeRecordBody, type NodeChange } from './node-records.js';
import { treeSnapshot } from '../../test/helpers/tree-snapshot.js';

const H1 = 'a1'.repeat(32);
const H2 = 'b2'.repeat(32);
const H3 = 'c3'.repeat(32);
const T0 = Date.UTC(2025, 0, 1);
const at = (sequence: number) => new Date(T0 + sequence * 1000).toISOString();

/** Node records as the data plane writes them: KNOW on the namespace's data thread, with receipt times. */
class DataLog {
  private readonly log = new TestLog();

  get inputs(): FoldInput[] {
    return this.log.inputs.map((input) => ({ ...input, createdAt: T0 + input.sequence * 1000 }));
  }

  change(change: NodeChange, options: { namespace?: string; actor?: string; thread?: string } = {}): LoomRecord {
    const namespace = options.namespace ?? 'default';
    return this.raw(nodeRecordBody(namespace, change) as JsonObject, { actor: options.actor, thread: options.thread ?? dataThreadId(namespace) });
  }

  write(path: string, hash = H1, size = 100, options: { namespace?: string; actor?: string } = {}): LoomRecord {
    return this.change({ op: 'write', path, content_hash: hash, size_bytes: size, content_type: 'text/plain' }, options);
  }

  /** Any body, on the default data thread unless told otherwise. */
  raw(body: JsonObject, options: { actor?: string; thread?: string } = {}): LoomRecord {
    return this.log.add(options.actor ?? ALICE, 'KNOW', body, { thread: options.thread ?? dataThreadId('default') });
  }
}

function fold(inputs: readonly FoldInput[], state: DataState = dataFold.initial(DATA_FOLD)): DataState {
  for (const input of inputs) state = dataFold.apply(state, input);
  return state;
}


/** The whole state, independent of insertion order. */
function snapshot(state: DataState) {
  return {
    namespaces: Object.fromEntries([...state.namespaces].sort(([a], [b]) => (a < b ? -1 : 1)).map(([name, tree]) => [name, treeSnapshot(tree)])),
    warnings: state.warnings,
  };
}

const paths = (state: DataState, namespace = 'default') => [...(treeOf(state, namespace)?.nodes.keys() ?? [])].sort();

describe('data_fs fold', () => {
  it('is a global, checkpointed fold that skips system threads', () => {
    expect(dataFold.name).to.equal(DATA_FOLD);
    expect(DATA_FOLD).to.equal('data_fs');
    expect(dataFold.scope).to.equal('global');
    expect(dataFold.ignoresSystemThreads).to.equal(true);
    expect(dataFold.checkpoint?.version).to.equal(1);
  });

  it('folds a sequence of changes into the namespace tree', () => {
    const log = new DataLog();
    const write = log.change({ op: 'write', path: '/a/b/c.txt', content_hash: H1, size_bytes: 100, content_type: 'text/csv', provenance: { work_thread: TH_1, goal_summary: 'q3 numbers' } });
    log.change({ op: 'mkdir', path: '/a/d' });
    log.write('/a/d/e.txt', H1, 100, { actor: BOB });
    log.write('/a/d/f.txt', H2, 50);
    let state = fold(log.inputs);
    expect(paths(state)).to.deep.equal(['/a', '/a/b', '/a/b/c.txt', '/a/d', '/a/d/e.txt', '/a/d/f.txt']);
    expect(dataFold.value(state)).to.deep.equal({ namespaces: { default: { files: 3, directories: 3, logical_bytes: 250, stored_bytes: 150 } }, warnings: [] });
    expect(treeOf(state, 'default')!.nodes.get('/a/b/c.txt')).to.deep.include({
      kind: 'file',
      content_hash: H1,
      size_bytes: 100,
      content_type: 'text/csv',
      version: 1,
      record_id: write.id,
      sequence: 1,
      created_at: at(1),
      modified_at: at(1),
      provenance: { actor: ALICE, record_id: write.id, clock: write.clock, sequence: 1, content_hash: H1, work_thread: TH_1, goal_summary: 'q3 numbers' },
    });
    expect(treeOf(state, 'default')!.nodes.get('/a/d/e.txt')!.provenance!.actor).to.equal(BOB);

    const move = log.change({ op: 'move', from: '/a', to: '/m' });
    log.change({ op: 'publish', path: '/m/b/c.txt', storage_class: 'durable' });
    state = fold(log.inputs);
    expect(paths(state)).to.deep.equal(['/m', '/m/b', '/m/b/c.txt', '/m/d', '/m/d/e.txt', '/m/d/f.txt']);
    expect(treeOf(state, 'default')!.nodes.get('/m/d/f.txt')).to.deep.include({ record_id: move.id, sequence: 5 });
    expect(treeOf(state, 'default')!.nodes.get('/m/b/c.txt')).to.deep.include({ pin_state: 'pinned', storage_class: 'durable', modified_at: at(6) });

    log.change({ op: 'remove', path: '/m/d', recursive: true });
    log.write('/m/b/c.txt', H3, 10);
    state = fold(log.inputs);
    expect(paths(state)).to.deep.equal(['/m', '/m/b', '/m/b/c.txt']);
    expect(treeOf(state, 'default')!.nodes.get('/m/b/c.txt')).to.deep.include({ pin_state: 'unpinned', storage_class: null, version: 2, content_hash: H3, created_at: at(1), modified_at: at(8) });
    expect(dataFold.value(state)).to.deep.equal({ namespaces: { default: { files: 1, directories: 2, logical_bytes: 10, stored_bytes: 10 } }, warnings: [] });
  });

  it('receipt times are null when the input carries none', () => {
    const log = new TestLog();
    log.add(ALICE, 'KNOW', nodeRecordBody('default', { op: 'write', path: '/f', content_hash: H1, size_bytes: 1, content_type: 'text/plain' }) as JsonObject, { thread: dataThreadId('default') });
    const state = fold(log.inputs);
    expect(treeOf(state, 'default')!.nodes.get('/f')).to.deep.include({ created_at: null, modified_at: null });
  });

  describe('a record that breaks a rule changes nothing and leaves a warning', () => {
    const cases: Array<[string, NodeChange, RegExp]> = [
      ['a move into its own subtree (MOVE_INTO_ITSELF)', { op: 'move', from: '/a', to: '/a/d/x' }, /^move: cannot move \/a into its own subtree/],
      ['a remove of a non-empty directory without recursive (DIRECTORY_NOT_EMPTY)', { op: 'remove', path: '/a', recursive: false }, /^remove: \/a is not empty/],
      ['a write over a directory (IS_A_DIRECTORY)', { op: 'write', path: '/a/d', content_hash: H1, size_bytes: 1, content_type: 'text/plain' }, /^write: \/a\/d is a directory/],
      ['a write beneath a file (NOT_A_DIRECTORY)', { op: 'write', path: '/a/b/c.txt/x', content_hash: H1, size_bytes: 1, content_type: 'text/plain' }, /^write: \/a\/b\/c\.txt is a file/],
      ['a mkdir over a file (PATH_EXISTS)', { op: 'mkdir', path: '/a/b/c.txt' }, /^mkdir: .* is a file/],
      ['a move onto an existing node (PATH_EXISTS)', { op: 'move', from: '/a/b', to: '/a/d' }, /^move: \/a\/d exists/],
      ['a move of a missing node (PATH_NOT_FOUND)', { op: 'move', from: '/nope', to: '/x' }, /^move: \/nope does not exist/],
      ['a publish of a directory (IS_A_DIRECTORY)', { op: 'publish', path: '/a', storage_class: 'durable' }, /^publish: \/a is a directory/],
      ['a remove of the root', { op: 'remove', path: '/', recursive: true }, /^remove: the root/],
    ];
    for (const [name, change, why] of cases) {
      it(name, () => {
        const log = new DataLog();
        log.write('/a/b/c.txt');
        log.change({ op: 'mkdir', path: '/a/d' });
        const state = fold(log.inputs);
        const before = JSON.stringify(snapshot(state));
        const bad = log.change(change);
        const after = fold(log.inputs.slice(2), state);
        expect(after).to.equal(state);
        expect(after.warnings).to.have.length(1);
        expect(after.warnings[0]).to.deep.include({ record_id: bad.id, sequence: 3, namespace: 'default' });
        expect(after.warnings[0]!.message).to.match(why);
        expect(JSON.stringify({ ...snapshot(after), warnings: [] })).to.equal(before);
        // Later records still apply.
        log.write('/a/later.txt');
        expect(paths(fold(log.inputs.slice(3), after))).to.include('/a/later.txt');
      });
    }
  });

  it('passes over records that are not node records, without a warning', () => {
    const log = new DataLog();
    log.raw({ observation: 'on the data thread, but no kind' });
    log.raw({ kind: 'core.data.other.v1', op: 'write', path: '/x', content_hash: H1, size_bytes: 1 });
    log.raw({ kind: NODE_KIND.toUpperCase(), op: 'mkdir', path: '/x' });
    const state = fold(log.inputs);
    expect(state.namespaces.size).to.equal(0);
    expect(state.warnings).to.deep.equal([]);
  });

  it('a node record off its namespace data thread names nothing', () => {
    const log = new DataLog();
    const onTask = log.change({ op: 'mkdir', path: '/x' }, { thread: TH_1 });
    const onOther = log.change({ op: 'mkdir', path: '/y' }, { namespace: 'acme', thread: dataThreadId('default') });
    const onDefault = log.raw({ kind: NODE_KIND, op: 'mkdir', path: '/z' }, { thread: dataThreadId('acme') });
    const state = fold(log.inputs);
    expect(state.namespaces.size).to.equal(0);
    expect(state.warnings.map((warning) => [warning.record_id, warning.namespace])).to.deep.equal([
      [onTask.id, 'default'],
      [onOther.id, 'acme'],
      [onDefault.id, 'default'],
    ]);
    for (const warning of state.warnings) expect(warning.message).to.match(/not on the data thread of/);
  });

  describe('a body it cannot read leaves a warning and no tree', () => {
    const cases: Array<[string, JsonObject, RegExp]> = [
      ['an unknown op', { op: 'rename', path: '/a' }, /unknown op "rename"/],
      ['no op', { path: '/a' }, /unknown op/],
      ['a write without content_hash', { op: 'write', path: '/a', size_bytes: 1 }, /write needs content_hash/],
      ['an upper-case content_hash', { op: 'write', path: '/a', content_hash: H1.toUpperCase(), size_bytes: 1 }, /write needs content_hash/],
      ['a short content_hash', { op: 'write', path: '/a', content_hash: 'abc', size_bytes: 1 }, /write needs content_hash/],
      ['a negative size', { op: 'write', path: '/a', content_hash: H1, size_bytes: -1 }, /write needs size_bytes/],
      ['a fractional size', { op: 'write', path: '/a', content_hash: H1, size_bytes: 1.5 }, /write needs size_bytes/],
      ['a size as text', { op: 'write', path: '/a', content_hash: H1, size_bytes: '1' }, /write needs size_bytes/],
      ['a ".." path', { op: 'write', path: '/a/../b', content_hash: H1, size_bytes: 1 }, /path "\/a\/\.\.\/b" has a "\.\." segment/],
      ['a relative mkdir path', { op: 'mkdir', path: 'a' }, /must start with "\/"/],
      ['a move without to', { op: 'move', from: '/a' }, /^to must be a string/],
      ['a move with a bad from', { op: 'move', from: '/a//b', to: '/c' }, /^from .* empty segment/],
      ['a remove with a trailing slash', { op: 'remove', path: '/a/', recursive: true }, /ends with "\/"/],
      ['a publish without storage_class', { op: 'publish', path: '/a' }, /publish needs a storage_class/],
      ['a publish with a malformed storage_class', { op: 'publish', path: '/a', storage_class: 'Durable Class' }, /publish needs a storage_class/],
    ];
    for (const [name, body, why] of cases) {
      it(name, () => {
        const log = new DataLog();
        const record = log.raw({ kind: NODE_KIND, ...body });
        const state = fold(log.inputs);
        expect(state.namespaces.size).to.equal(0);
        expect(state.warnings).to.have.length(1);
        expect(state.warnings[0]).to.deep.include({ record_id: record.id, sequence: 1, namespace: 'default' });
        expect(state.warnings[0]!.message).to.match(why);
      });
    }
  });

  it('reads bodies the way the API writes them: NFC paths, a default content type, bounded provenance', () => {
    const log = new DataLog();
    log.raw({ kind: NODE_KIND, op: 'write', path: '/cafe\u0301.txt', content_hash: H1, size_bytes: 3 });
    log.raw({ kind: NODE_KIND, op: 'write', path: '/long.txt', content_hash: H1, size_bytes: 3, content_type: 'x'.repeat(256), provenance: { work_thread: 't'.repeat(81), goal_summary: 'kept' } });
    log.raw({ kind: NODE_KIND, op: 'remove', path: '/caf\u00e9.txt', recursive: 'yes' });
    let state = fold(log.inputs.slice(0, 2));
    expect(paths(state)).to.deep.equal(['/caf\u00e9.txt', '/long.txt']);
    const tree = treeOf(state, 'default')!;
    expect(tree.nodes.get('/caf\u00e9.txt')).to.deep.include({ content_type: 'application/octet-stream' });
    expect(tree.nodes.get('/caf\u00e9.txt')!.provenance).to.deep.include({ work_thread: null, goal_summary: null });
    expect(tree.nodes.get('/long.txt')).to.deep.include({ content_type: 'application/octet-stream' });
    expect(tree.nodes.get('/long.txt')!.provenance).to.deep.include({ work_thread: null, goal_summary: 'kept' });
    // recursive must be exactly true; the removed node is a file, so it goes anyway.
    expect(readChange({ op: 'remove', path: '/d', recursive: 'yes' })).to.deep.equal({ op: 'remove', path: '/d', recursive: false });
    state = fold(log.inputs.slice(2), state);
    expect(paths(state)).to.deep.equal(['/long.txt']);
  });

  it('keeps namespaces apart: each has its own tree and its own usage', () => {
    const log = new DataLog();
    log.write('/same.txt', H1, 100);
    log.write('/same.txt', H1, 100, { namespace: 'acme' });
    log.write('/other.txt', H1, 100, { namespace: 'acme' });
    log.change({ op: 'mkdir', path: '/only-acme' }, { namespace: 'acme' });
    log.write('/b.txt', H2, 5, { namespace: 'acme/web' });
    let state = fold(log.inputs);
    expect(dataFold.value(state).namespaces).to.deep.equal({
      acme: { files: 2, directories: 1, logical_bytes: 200, stored_bytes: 100 },
      'acme/web': { files: 1, directories: 0, logical_bytes: 5, stored_bytes: 5 },
      default: { files: 1, directories: 0, logical_bytes: 100, stored_bytes: 100 },
    });
    expect(Object.keys(dataFold.value(state).namespaces)).to.deep.equal(['acme', 'acme/web', 'default']);
    expect(paths(state, 'default')).to.deep.equal(['/same.txt']);

    log.change({ op: 'remove', path: '/same.txt', recursive: false }, { namespace: 'acme' });
    // A rule is checked against the record's own namespace: /only-acme does not exist in default.
    log.change({ op: 'remove', path: '/only-acme', recursive: false });
    state = fold(log.inputs);
    expect(paths(state, 'default')).to.deep.equal(['/same.txt']);
    expect(paths(state, 'acme')).to.deep.equal(['/only-acme', '/other.txt']);
    expect(state.warnings.map((warning) => warning.namespace)).to.deep.equal(['default']);
    expect(treeOf(state, 'nobody')).to.equal(undefined);
  });

  it('keeps the last 100 warnings', () => {
    const log = new DataLog();
    const records = Array.from({ length: 105 }, (_, i) => log.raw({ kind: NODE_KIND, op: `bad-${i}` }));
    const state = fold(log.inputs);
    expect(state.warnings).to.have.length(100);
    expect(state.warnings[0]!.record_id).to.equal(records[5]!.id);
    expect(state.warnings[99]!.record_id).to.equal(records[104]!.id);
  });

  describe('checkpoints', () => {
    /** A log with every op, refusals, two namespaces and a directory move with children. */
    function busyLog(): DataLog {
      const log = new DataLog();
      log.change({ op: 'write', path: '/a/b/c.txt', content_hash: H1, size_bytes: 100, content_type: 'text/csv', provenance: { goal_summary: 'numbers' } });
      log.change({ op: 'mkdir', path: '/z/y' });
      log.write('/a/d/e.txt', H1, 100);
      log.write('/a/d/f.txt', H2, 50, { namespace: 'acme' });
      log.change({ op: 'move', from: '/a', to: '/a/inside' });
      log.change({ op: 'publish', path: '/a/b/c.txt', storage_class: 'durable' });
      log.change({ op: 'move', from: '/a', to: '/z/y/a' });
      log.write('/top.txt', H3, 1);
      log.change({ op: 'remove', path: '/z', recursive: false });
      log.change({ op: 'mkdir', path: '/q' });
      log.change({ op: 'move', from: '/z/y/a/d', to: '/q/d' });
      log.write('/z/y/a/b/c.txt', H2, 50);
      log.change({ op: 'remove', path: '/q', recursive: true });
      log.write('/a/d/f.txt', H1, 100, { namespace: 'acme' });
      log.change({ op: 'publish', path: '/top.txt', storage_class: 'archive' });
      log.raw({ kind: NODE_KIND, op: 'nonsense' });
      log.write('/late/file', H3, 1);
      return log;
    }

    it('the busy log exercises applied and refused records alike', () => {
      const state = fold(busyLog().inputs);
      expect(state.warnings.map((warning) => warning.sequence)).to.deep.equal([5, 9, 16]);
      expect(paths(state)).to.deep.equal(['/late', '/late/file', '/top.txt', '/z', '/z/y', '/z/y/a', '/z/y/a/b', '/z/y/a/b/c.txt']);
    });

    it('save → JSON → load gives an equal state, and applying the rest matches incremental application and replay', () => {
      const inputs = busyLog().inputs;
      const incremental = fold(inputs);
      const whole = JSON.stringify(snapshot(incremental));
      for (let cut = 0; cut <= inputs.length; cut++) {
        const state = fold(inputs.slice(0, cut));
        const saved = JSON.stringify(dataFold.checkpoint!.save(state));
        const loaded = dataFold.checkpoint!.load(JSON.parse(saved));
        expect(snapshot(loaded), `loaded at ${cut}`).to.deep.equal(snapshot(state));
        expect(dataFold.value(loaded)).to.deep.equal(dataFold.value(state));
        const resumed = fold(inputs.slice(cut), loaded);
        expect(JSON.stringify(snapshot(resumed)), `resumed from ${cut}`).to.equal(whole);
        expect(dataFold.value(resumed)).to.deep.equal(replayFold(dataFold, DATA_FOLD, inputs));
      }
    });

    it('a loaded state does not share objects with the state it was saved from', () => {
      const log = busyLog();
      const state = fold(log.inputs);
      const before = JSON.stringify(snapshot(state));
      const loaded = dataFold.checkpoint!.load(dataFold.checkpoint!.save(state));
      log.change({ op: 'publish', path: '/z/y/a/b/c.txt', storage_class: 'durable' });
      fold(log.inputs.slice(-1), loaded);
      expect(treeOf(loaded, 'default')!.nodes.get('/z/y/a/b/c.txt')!.pin_state).to.equal('pinned');
      expect(JSON.stringify(snapshot(state))).to.equal(before);
    });
  });
});
