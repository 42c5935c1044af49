/**
 * Global folds reach only the records they declare (`threads`, `kinds`,
 * `ignoresSystemThreads`): live, at a start-up replay and after a
 * checkpoint, with every fold's watermark covering every record.
 */
import { expect } from 'chai';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Fold } from '../folds/fold.js';
import type { LoomRecord } from '../records/record.js';
import { SqliteRecordStore } from '../../storage/sqlite/index.js';
import { rec, TH_A, TH_B } from '../../test/helpers/test-engine.js';
import type { GlobalFoldSlot } from './global-fold-slot.js';
import { FoldRouter } from './fold-router.js';
import { ENGINE_WRITE } from './ingest.js';
import { LoomEngine } from './loom-engine.js';
import { SystemThreads } from './system-threads.js';

type Seen = { ids: string[] };

/** Remembers the ids of the records it was applied to. */
function seeing(name: string, declared: Pick<Fold<Seen, string[]>, 'threads' | 'kinds' | 'ignoresSystemThreads'>): Fold<Seen, string[]> {
  return {
    name,
    scope: 'global',
    description: name,
    ...declared,
    initial: () => ({ ids: [] }),
    apply: (state, { record }) => {
      state.ids.push(record.id);
      return state;
    },
    value: (state) => [...state.ids],
    checkpoint: { version: 1, save: (state) => state, load: (saved) => saved as Seen },
  };
}

const slot = (fold: Fold<Seen, string[]>): GlobalFoldSlot => ({ fold, state: null, watermark: 0, anchor: null, savedWatermark: 0, lastCheckpointAt: 0, serialiseMs: 0, watchers: new Set(), loaded: true });
const record = (thread: string, body: Record<string, unknown>): LoomRecord => ({ id: 'rec', thread, actor: 'did:sync:user:a', act: 'KNOW', body, clock: 0, data_type: 'SCALAR', parents: [], judged_by: null }) as unknown as LoomRecord;

describe('FoldRouter', () => {
  const SYSTEM = 'th_' + 'e'.repeat(64);
  const folds = {
    open: seeing('open', {}),
    coordination: seeing('coordination', { ignoresSystemThreads: true }),
    grades: seeing('grades', { kinds: ['grade.v1'], ignoresSystemThreads: true }),
    anyGrade: seeing('any_grade', { kinds: ['grade.v1'] }),
    registry: seeing('registry', { threads: [SYSTEM] }),
    definitions: seeing('definitions', { threads: [SYSTEM], kinds: ['definition.v1'] }),
  };
  const systemThreads = new SystemThreads();
  systemThreads.declare(SYSTEM);
  const router = new FoldRouter(Object.values(folds).map(slot), systemThreads);
  const reached = (r: LoomRecord) => {
    const names: string[] = [];
    router.route(r, (s) => names.push(s.fold.name));
    return names.sort();
  };

  it('a plain record reaches only the folds that see every kind', () => {
    expect(reached(record(TH_A, { text: 'hello' }))).to.deep.equal(['coordination', 'open']);
  });

  it('a record of a declared kind also reaches the folds of that kind, and no other', () => {
    expect(reached(record(TH_A, { kind: 'grade.v1' }))).to.deep.equal(['any_grade', 'coordination', 'grades', 'open']);
    expect(reached(record(TH_A, { kind: 'something.else' }))).to.deep.equal(['coordination', 'open']);
  });

  it('on a system thread: the thread folds (by kind when they name kinds), not the folds that ignore system threads', () => {
    expect(reached(record(SYSTEM, { kind: 'definition.v1' }))).to.deep.equal(['definitions', 'open', 'registry']);
    expect(reached(record(SYSTEM, { kind: 'grade.v1' }))).to.deep.equal(['any_grade', 'open', 'registry']);
    expect(reached(record(SYSTEM, {}))).to.deep.equal(['open', 'registry']);
  });
});

describe('fold engine: routing by kind, live and replayed', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'loom-fold-router-'));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  const start = async (checkpoints: boolean) => {
    const engine = new LoomEngine({ store: new SqliteRecordStore({ path: join(dir, 'loom.sqlite'), durability: 'normal' }), ...(checkpoints ? { foldCheckpointDir: join(dir, 'folds') } : {}) });
    engine.folds.register(seeing('grades', { kinds: ['grade.v1'], ignoresSystemThreads: true }));
    engine.folds.register(seeing('everything', { ignoresSystemThreads: true }));
    await engine.start();
    return engine;
  };

  it('a kind fold is applied to its records only, its watermark still covers the log, and a replay gives the same value', async () => {
    const engine = await start(false);
    const grades: string[] = [];
    const all: string[] = [];
    for (let clock = 0; clock < 40; clock++) {
      const body = clock % 4 === 0 ? { kind: 'grade.v1', score: clock } : { text: `plain ${clock}` };
      const answer = await engine.ingestor.ingest(ENGINE_WRITE, rec({ clock, thread: clock % 2 ? TH_A : TH_B, body }));
      const id = answer.stored.record.id;
      all.push(id);
      if (clock % 4 === 0) grades.push(id);
    }
    const live = engine.folds.global<string[]>('grades');
    expect(live.value).to.deep.equal(grades);
    expect(engine.folds.global<string[]>('everything').value).to.deep.equal(all);
    // The fold saw 10 of the 40 records, yet covers all of them.
    expect(live.watermark).to.equal(engine.folds.global('everything').watermark);
    await engine.stop();

    // No checkpoint: the start replays the log through the same rule.
    const replayed = await start(false);
    expect(replayed.folds.global<string[]>('grades').value).to.deep.equal(grades);
    expect(replayed.folds.global<string[]>('everything').value).to.deep.equal(all);
    await replayed.stop();
  });
});
