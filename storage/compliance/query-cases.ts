/**
 * Hand-written query scenarios over eight labelled records, with answers
 * worked out by hand from the rules in evaluate-filter.ts and
 * compare-values.ts (not computed by them), so the reference is checked too.
 */
import type { PreparedRecord } from '../contract/stored-record.js';
import { actorDid, makePrepared, threadId } from './fixtures.js';

export const Q_BASE_MS = 1_700_000_000_000;
export const Q_THREAD_A = threadId('query-a');
export const Q_THREAD_B = threadId('query-b');
export const Q_ALICE = actorDid('alice');
export const Q_BOB = actorDid('bob');
const carol = actorDid('carol');
const dave = actorDid('dave');
const judge = 'did:sync:agent:judge';

export type Label = 'q0' | 'q1' | 'q2' | 'q3' | 'q4' | 'q5' | 'q6' | 'q7';

/** Appended in this order, so sequence order is q0..q7; createdAt is base + i seconds. */
export function queryDataset(): Record<Label, PreparedRecord> {
  const at = (i: number) => Q_BASE_MS + i * 1000;
  return {
    q0: makePrepared({ thread: Q_THREAD_A, actor: Q_ALICE, act: 'INTEND', clock: 1, createdAt: at(0), body: { _refs: { track: { id: 't-1' } }, kind: 'task', n: 5, tags: ['x', 'y'], title: 'Alpha' } }),
    q1: makePrepared({ thread: Q_THREAD_A, actor: Q_ALICE, act: 'DO', clock: 2, createdAt: at(1), judged_by: judge, body: { flag: true, kind: 'task', n: -2.5, title: 'alpha_1' } }),
    q2: makePrepared({ thread: Q_THREAD_A, actor: Q_BOB, act: 'KNOW', clock: 3, createdAt: at(2), data_type: 'FORMULA', body: { flag: false, kind: 'note', n: 10, namespace: 'research', title: '100%' } }),
    q3: makePrepared({ thread: Q_THREAD_A, actor: Q_BOB, act: 'LEARN', clock: 4, createdAt: at(3), body: { _refs: { track: { id: 't-2' } }, kind: 'Note', n: '10', title: 'beta😀' } }),
    q4: makePrepared({ thread: Q_THREAD_B, actor: carol, act: 'DO', clock: 1, createdAt: at(4), data_type: 'REFERENCE', body: { kind: null, n: true, title: 'Ωmega' } }),
    q5: makePrepared({ thread: Q_THREAD_B, actor: carol, act: 'DO', clock: 2, createdAt: at(5), judged_by: judge, body: { n: 0, nested: { kind: 'task', n: 3 }, title: 'a_b' } }),
    q6: makePrepared({ thread: Q_THREAD_B, actor: Q_ALICE, act: 'KNOW', clock: 7, createdAt: at(6), body: { _refs: { track: { id: 't-1', n: 1 } }, kind: 'task', n: 7, namespace: 'research', title: 'ALPHA' } }),
    q7: makePrepared({ thread: Q_THREAD_A, actor: dave, act: 'PUT', clock: 0, createdAt: at(7), data_type: 'VOID', body: {} }),
  };
}

export interface QueryCase {
  readonly name: string;
  /** Client JSON; `$id:<label>` strings and `$seq:<label>` markers are replaced before parsing. */
  readonly query: Record<string, unknown>;
  /** Expected ids in result order. */
  readonly expect: readonly Label[];
  /** Defaults to expect.length. */
  readonly matchedTotal?: number;
  readonly capped?: boolean;
}

const all: Label[] = ['q0', 'q1', 'q2', 'q3', 'q4', 'q5', 'q6', 'q7'];
const f = (filter: Record<string, unknown>, expect: Label[], name?: string): QueryCase => ({ name: name ?? JSON.stringify(filter), query: { filter }, expect });

export const FILTER_CASES: readonly QueryCase[] = [
  f({ 'body.kind': 'task' }, ['q0', 'q1', 'q6']),
  f({ 'body.kind': { $eq: 'task' } }, ['q0', 'q1', 'q6']),
  f({ 'body.kind': null }, ['q4']),
  f({ 'body.n': 10 }, ['q2']),
  f({ 'body.n': '10' }, ['q3']),
  f({ 'body.n': true }, ['q4']),
  f({ 'body.n': 1 }, []),
  f({ 'body.n': 0 }, ['q5']),
  f({ 'body.kind': { $ne: 'task' } }, ['q2', 'q3', 'q4', 'q5', 'q7']),
  f({ 'body.n': { $gt: 5 } }, ['q2', 'q6']),
  f({ 'body.n': { $gte: 5 } }, ['q0', 'q2', 'q6']),
  f({ 'body.n': { $lt: 0 } }, ['q1']),
  f({ 'body.n': { $lte: 0 } }, ['q1', 'q5']),
  f({ 'body.n': { $gt: -3, $lt: 6 } }, ['q0', 'q1', 'q5']),
  f({ 'body.title': { $gt: 'a' } }, ['q1', 'q3', 'q4', 'q5']),
  f({ 'body.title': { $lt: 'B' } }, ['q0', 'q2', 'q6']),
  f({ 'body.flag': { $lt: true } }, ['q2']),
  f({ 'body.flag': { $gte: false } }, ['q1', 'q2']),
  f({ 'body.n': { $in: [10, '10'] } }, ['q2', 'q3']),
  f({ 'body.kind': { $in: ['note', 'Note', null] } }, ['q2', 'q3', 'q4']),
  f({ 'body.kind': { $nin: ['task'] } }, ['q2', 'q3', 'q4', 'q5', 'q7']),
  f({ 'body.n': { $in: [] } }, []),
  f({ 'body.n': { $nin: [] } }, all),
  f({ act: { $in: ['DO', 'PUT'] } }, ['q1', 'q4', 'q5', 'q7']),
  f({ 'body.title': { $like: 'alpha%' } }, ['q1']),
  f({ 'body.title': { $like: 'a_b' } }, ['q5']),
  f({ 'body.title': { $like: 'a\\_%' } }, ['q5']),
  f({ 'body.title': { $like: '%\\%' } }, ['q2']),
  f({ 'body.title': { $like: '%' } }, ['q0', 'q1', 'q2', 'q3', 'q4', 'q5', 'q6']),
  f({ 'body.title': { $like: '_mega' } }, ['q4']),
  f({ 'body.n': { $like: '1%' } }, ['q3']),
  f({ 'body.title': { $ilike: 'alpha%' } }, ['q0', 'q1', 'q6']),
  f({ 'body.title': { $ilike: 'ωmega' } }, [], '$ilike folds ASCII letters only'),
  f({ 'body.title': { $ilike: 'ΩMEGA' } }, ['q4']),
  f({ 'body.title': { $regex: '^a' } }, ['q1', 'q5']),
  f({ 'body.title': { $regex: '^a', $options: 'i' } }, ['q0', 'q1', 'q5', 'q6']),
  f({ 'body.title': { $regex: '^.mega$' } }, ['q4']),
  f({ 'body.n': { $regex: '0' } }, ['q3']),
  f({ 'body.title': { $regex: '^beta.$' } }, ['q3'], '$regex: . matches one code point (u flag)'),
  f({ 'body.title': { $like: 'beta_' } }, ['q3'], '$like: _ matches one code point'),
  f({ 'body.title': { $gt: 'beta\uFB00' } }, ['q3', 'q4'], 'strings compare by code point, not UTF-16 unit'),
  f({ 'body.flag': { $exists: true } }, ['q1', 'q2']),
  f({ 'body.flag': { $exists: false } }, ['q0', 'q3', 'q4', 'q5', 'q6', 'q7']),
  f({ 'body.kind': { $exists: true } }, ['q0', 'q1', 'q2', 'q3', 'q4', 'q6']),
  f({ judged_by: { $exists: true } }, ['q1', 'q5']),
  f({ judged_by: { $exists: false } }, ['q0', 'q2', 'q3', 'q4', 'q6', 'q7']),
  f({ 'body.tags.0': { $exists: true } }, [], 'arrays are not traversed'),
  f({ 'body.tags': { $exists: true } }, ['q0']),
  f({ $and: [{ 'body.kind': 'task' }, { actor: Q_ALICE }] }, ['q0', 'q1', 'q6']),
  f({ $or: [{ 'body.n': { $gt: 6 } }, { act: 'LEARN' }] }, ['q2', 'q3', 'q6']),
  f({ $not: { 'body.kind': 'task' } }, ['q2', 'q3', 'q4', 'q5', 'q7']),
  f({ 'body.n': { $not: { $gt: 5 } } }, ['q0', 'q1', 'q3', 'q4', 'q5', 'q7']),
  f({ actor: Q_BOB, 'body.flag': false }, ['q2']),
  f({ $or: [{ $and: [{ thread: Q_THREAD_B }, { 'body.n': { $gte: 0 } }] }, { 'body.title': { $like: '1%' } }] }, ['q2', 'q5', 'q6']),
  f({}, all, 'an empty filter matches everything'),
  f({ 'body._refs.track.id': 't-1' }, ['q0', 'q6']),
  f({ 'body._refs.track.n': { $exists: true } }, ['q6']),
  f({ 'body._refs.track.id': { $like: 't-%' } }, ['q0', 'q3', 'q6'], '$like with a hyphen in the pattern'),
  f({ 'body.nested.kind': 'task' }, ['q5']),
  f({ 'body.nested.n': { $gte: 3 } }, ['q5']),
  f({ thread: Q_THREAD_B }, ['q4', 'q5', 'q6']),
  f({ actor: { $in: [Q_ALICE, carol] } }, ['q0', 'q1', 'q4', 'q5', 'q6']),
  f({ act: 'KNOW' }, ['q2', 'q6']),
  f({ clock: { $gte: 2, $lte: 4 } }, ['q1', 'q2', 'q3', 'q5']),
  f({ data_type: { $ne: 'SCALAR' } }, ['q2', 'q4', 'q7']),
  f({ judged_by: judge }, ['q1', 'q5']),
  f({ judged_by: { $like: 'did:sync:%' } }, ['q1', 'q5']),
  f({ namespace: 'research' }, ['q2', 'q6']),
  f({ namespace: 'default' }, ['q0', 'q1', 'q3', 'q4', 'q5', 'q7']),
  f({ created_at: { $gte: (Q_BASE_MS + 3000) / 1000 } }, ['q3', 'q4', 'q5', 'q6', 'q7'], 'created_at in Unix seconds'),
  f({ created_at: { $lt: new Date(Q_BASE_MS + 2000).toISOString() } }, ['q0', 'q1'], 'created_at as ISO 8601'),
  f({ sequence: { $gt: '$seq:q5' } }, ['q6', 'q7']),
  f({ id: '$id:q3' }, ['q3']),
  f({ id: { $in: ['$id:q7', '$id:q0'] } }, ['q0', 'q7']),
  { name: 'the thread key restricts to one thread', query: { thread: Q_THREAD_A, filter: { act: 'DO' } }, expect: ['q1'] },
];

const s = (sort: Record<string, 1 | -1>, expect: Label[]): QueryCase => ({ name: `sort ${JSON.stringify(sort)}`, query: { sort }, expect });

export const SORT_CASES: readonly QueryCase[] = [
  s({ clock: 1 }, ['q7', 'q0', 'q4', 'q1', 'q5', 'q2', 'q3', 'q6']),
  s({ clock: -1 }, ['q6', 'q3', 'q2', 'q1', 'q5', 'q0', 'q4', 'q7']),
  s({ sequence: -1 }, ['q7', 'q6', 'q5', 'q4', 'q3', 'q2', 'q1', 'q0']),
  s({ actor: 1 }, ['q0', 'q1', 'q6', 'q2', 'q3', 'q4', 'q5', 'q7']),
  s({ judged_by: -1 }, ['q1', 'q5', 'q0', 'q2', 'q3', 'q4', 'q6', 'q7']),
  s({ 'body.n': 1 }, ['q7', 'q1', 'q5', 'q4', 'q0', 'q6', 'q2', 'q3']),
  s({ 'body.n': -1 }, ['q3', 'q2', 'q6', 'q0', 'q4', 'q5', 'q1', 'q7']),
  s({ 'body.kind': 1 }, ['q4', 'q5', 'q7', 'q3', 'q2', 'q0', 'q1', 'q6']),
  s({ 'body.kind': -1 }, ['q0', 'q1', 'q6', 'q2', 'q3', 'q4', 'q5', 'q7']),
  s({ 'body._refs': 1 }, ['q1', 'q2', 'q4', 'q5', 'q7', 'q6', 'q0', 'q3']),
  s({ 'body.title': 1 }, ['q7', 'q2', 'q6', 'q0', 'q5', 'q1', 'q3', 'q4']),
];

export const PAGE_CASES: readonly QueryCase[] = [
  { name: 'limit and offset cut a sorted page', query: { sort: { clock: 1 }, limit: 3, offset: 2 }, expect: ['q4', 'q1', 'q5'], matchedTotal: 8, capped: true },
  { name: 'the last page is not capped', query: { sort: { clock: 1 }, limit: 3, offset: 6 }, expect: ['q3', 'q6'], matchedTotal: 8, capped: false },
  { name: 'an offset past the end gives nothing', query: { offset: 10 }, expect: [], matchedTotal: 8, capped: false },
  { name: 'limit 0 still counts the matches', query: { limit: 0 }, expect: [], matchedTotal: 8, capped: true },
  { name: 'matchedTotal ignores the limit', query: { filter: { 'body.kind': 'task' }, limit: 2 }, expect: ['q0', 'q1'], matchedTotal: 3, capped: true },
  { name: 'a filtered, sorted, offset page', query: { filter: { 'body.n': { $exists: true } }, sort: { 'body.n': -1 }, limit: 2, offset: 1 }, expect: ['q2', 'q6'], matchedTotal: 7, capped: true },
];
