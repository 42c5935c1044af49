/**
 * fast-check arbitraries for the query property test: records over small
 * value domains (so filters hit, tie and straddle often) and raw client query
 * JSON that is always valid, so a parse failure is itself a finding.
 * Bodies are built with sorted keys, so an object's JSON text is the same
 * whether a driver keeps insertion order or canonical order.
 */
import fc from 'fast-check';
import { ACTS } from '../../core/records/acts.js';
import { DATA_TYPES } from '../../core/records/data-types.js';
import type { JsonObject, JsonValue } from '../../core/records/json.js';
import { TH_CONSENT } from '../../core/records/reserved-threads.js';
import type { PreparedRecord } from '../contract/stored-record.js';
import { actorDid, makePrepared, threadId } from './fixtures.js';

export const PROPERTY_BASE_MS = 1_700_000_000_000;
export const THREADS = [threadId('p-one'), threadId('p-two'), TH_CONSENT];
export const ACTORS = [actorDid('ann'), actorDid('Bea'), actorDid('cy')];
const JUDGES = ['j-a', 'J-b', 'j_c%'];
const NAMESPACES = ['alpha', 'Beta', 'x%y', 'default'];

// 'ﬀ' (U+FB00) sorts after '😀' by UTF-16 unit but before it by code point.
const letters = fc.constantFrom('a', 'b', 'A', 'B', '%', '_', '\\', 'é', 'É', '😀', 'ﬀ', ' ');
const text = fc.string({ unit: letters, maxLength: 3 });
const number = fc.oneof(fc.integer({ min: -4, max: 12 }), fc.constantFrom(-2.5, -0.5, 0.25, 1.5, 3.75, 100));
const scalar: fc.Arbitrary<string | number | boolean | null> = fc.oneof(text, number, fc.boolean(), fc.constant(null));
const orderedScalar = fc.oneof(text, number, fc.boolean());

function sortKeys(value: JsonValue): JsonValue {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(Object.keys(value).sort().map((k) => [k, sortKeys(value[k]!)]));
}

const member: fc.Arbitrary<JsonValue> = fc.oneof(
  { weight: 6, arbitrary: scalar },
  { weight: 1, arbitrary: fc.array(scalar, { maxLength: 2 }) },
  { weight: 1, arbitrary: fc.record({ kind: scalar, n: number }, { requiredKeys: [] }) },
);

const body: fc.Arbitrary<JsonObject> = fc
  .record(
    {
      _refs: fc.record({ track: fc.record({ id: fc.oneof(text, number, fc.constant(null)) }, { requiredKeys: [] }) }, { requiredKeys: [] }),
      arr: fc.array(scalar, { maxLength: 2 }),
      flag: fc.oneof(fc.boolean(), scalar),
      kind: member,
      n: fc.oneof(number, member),
      namespace: fc.oneof(fc.constantFrom(...NAMESPACES), scalar),
      nested: fc.oneof(fc.record({ deep: fc.record({ x: scalar }, { requiredKeys: [] }), kind: member, n: number }, { requiredKeys: [] }), scalar),
      s: text,
    },
    { requiredKeys: [] },
  )
  .map((value) => sortKeys(value as JsonValue) as JsonObject);

/** `count` records; clocks are small so sorts by clock tie, but each (actor, thread, clock) slot is used once. */
export function recordsArbitrary(count: number): fc.Arbitrary<PreparedRecord[]> {
  const one = fc.record({
    thread: fc.constantFrom(...THREADS),
    actor: fc.constantFrom(...ACTORS),
    act: fc.constantFrom(...ACTS.slice(0, 5)),
    data_type: fc.constantFrom(...DATA_TYPES.slice(0, 3)),
    judged_by: fc.oneof(fc.constant(null), fc.constantFrom(...JUDGES)),
    clock: fc.integer({ min: 0, max: 30 }),
    body,
  });
  return fc.array(one, { minLength: count, maxLength: count }).map((drafts) => {
    const used = new Set<string>();
    return drafts.map((draft, i) => {
      let clock = draft.clock;
      while (used.has(`${draft.actor} ${draft.thread} ${clock}`)) clock++;
      used.add(`${draft.actor} ${draft.thread} ${clock}`);
      return makePrepared({ ...draft, clock, createdAt: PROPERTY_BASE_MS + i * 700 });
    });
  });
}

// Paths that usually hold strings appear twice, so text operators hit often.
const BODY_PATHS = [
  'body.kind', 'body.kind', 'body.n', 'body.s', 'body.s', 'body.flag', 'body.arr', 'body.arr.0', 'body.nested',
  'body.nested.kind', 'body.nested.kind', 'body.nested.n', 'body.nested.deep.x', 'body._refs.track.id',
  'body._refs.track.id', 'body._refs', 'body.namespace', 'body.missing',
];

interface FieldDomain {
  readonly path: string;
  /** Operand for $eq/$in; `ordered` excludes null (refused by the parser for $gt etc.). */
  readonly value: (ordered: boolean) => fc.Arbitrary<unknown>;
  /** $like/$ilike/$regex apply (string-typed or body). */
  readonly textual: boolean;
}

function domains(ids: readonly string[], count: number): FieldDomain[] {
  const nullable = (arb: fc.Arbitrary<unknown>) => (ordered: boolean) => (ordered ? arb : fc.oneof(arb, fc.constant(null)));
  const strings = (values: readonly string[]) => fc.oneof(fc.constantFrom(...values), text);
  const str = (path: string, values: readonly string[]): FieldDomain => ({ path, value: () => strings(values), textual: true });
  const seconds = fc.integer({ min: -2, max: count + 2 }).map((k) => (PROPERTY_BASE_MS + k * 700) / 1000);
  const iso = fc.integer({ min: -2, max: count + 2 }).map((k) => new Date(PROPERTY_BASE_MS + k * 700 + 1).toISOString());
  return [
    ...BODY_PATHS.map((path) => ({ path, value: (ordered: boolean) => (ordered ? orderedScalar : scalar), textual: true })),
    str('id', ids.slice(0, 8)),
    str('thread', THREADS),
    str('actor', ACTORS),
    { path: 'act', value: () => fc.constantFrom(...ACTS), textual: true },
    { path: 'data_type', value: () => fc.constantFrom(...DATA_TYPES), textual: true },
    { path: 'judged_by', value: nullable(strings(JUDGES)), textual: true },
    str('namespace', NAMESPACES),
    { path: 'clock', value: () => fc.oneof(fc.integer({ min: -1, max: 32 }), fc.constantFrom(2.5, 10.5)), textual: false },
    { path: 'sequence', value: () => fc.integer({ min: 0, max: count + 20 }), textual: false },
    { path: 'created_at', value: () => fc.oneof(seconds, iso), textual: false },
  ];
}

// Mostly anchored-or-wildcarded short cores, so patterns match some values and case decides often.
const likeCore = fc.string({ unit: fc.constantFrom('a', 'b', 'A', 'B', 'é', 'É', '😀', 'ﬀ', '_', '\\%', '\\_', '\\', ' '), maxLength: 2 });
const likePattern = fc.oneof(
  { weight: 4, arbitrary: fc.tuple(fc.constantFrom('', '%', '_'), likeCore, fc.constantFrom('', '%', '_')).map((parts) => parts.join('')) },
  { weight: 1, arbitrary: fc.string({ unit: fc.constantFrom('0', 'a', 'f', '%', '_', ':', 'did', 'j', '-', '.'), maxLength: 4 }) },
);
const regexSource = fc.constantFrom('^a', 'a$', '^[ab]+$', 'B', '%', '_', '^.$', '😀', 'é', '^$', '\\\\', '^.{2}', '[^a-z]', '^did:', '^[0-7]', 'p-|j');

function operatorDocument(domain: FieldDomain): fc.Arbitrary<unknown> {
  const v = domain.value(false);
  const ordered = domain.value(true);
  const op = (weight: number, arbitrary: fc.Arbitrary<unknown>) => ({ weight, arbitrary });
  const single = [
    op(2, fc.record({ $eq: v })), op(1, fc.record({ $ne: v })), op(1, fc.record({ $gt: ordered })), op(1, fc.record({ $gte: ordered })),
    op(1, fc.record({ $lt: ordered })), op(1, fc.record({ $lte: ordered })),
    op(1, fc.record({ $in: fc.array(v, { maxLength: 4 }) })), op(1, fc.record({ $nin: fc.array(v, { maxLength: 4 }) })),
    op(1, fc.record({ $exists: fc.boolean() })),
    op(1, fc.tuple(ordered, ordered).map(([low, high]) => ({ $gte: low, $lt: high }))),
    ...(domain.textual
      ? [
          op(3, fc.record({ $like: likePattern })), op(3, fc.record({ $ilike: likePattern })),
          op(2, fc.record({ $regex: regexSource, $options: fc.constantFrom('', 'i', 'm', 's', 'is') }, { requiredKeys: ['$regex'] })),
        ]
      : []),
  ];
  const plain = fc.oneof(...single);
  return fc.oneof({ weight: 1, arbitrary: v }, { weight: 8, arbitrary: plain }, { weight: 1, arbitrary: plain.map(($not) => ({ $not })) });
}

/** Raw client query JSON: filter, sort, limit, offset, thread, explain, each sometimes absent. */
export function queryArbitrary(ids: readonly string[], count: number): fc.Arbitrary<Record<string, unknown>> {
  const fields = domains(ids, count);
  const condition = fc.constantFrom(...fields).chain((domain) => operatorDocument(domain).map((doc) => ({ [domain.path]: doc })));
  const { filter } = fc.letrec<{ filter: Record<string, unknown> }>((tie) => ({
    filter: fc.oneof(
      { maxDepth: 3, depthSize: 'small', withCrossShrink: true },
      { weight: 6, arbitrary: condition },
      { weight: 1, arbitrary: fc.constant({}) },
      { weight: 2, arbitrary: fc.tuple(condition, condition).map(([a, b]) => ({ ...b, ...a })) },
      { weight: 2, arbitrary: fc.array(tie('filter'), { minLength: 1, maxLength: 3 }).map(($and) => ({ $and })) },
      { weight: 2, arbitrary: fc.array(tie('filter'), { minLength: 1, maxLength: 3 }).map(($or) => ({ $or })) },
      { weight: 1, arbitrary: tie('filter').map(($not) => ({ $not })) },
      { weight: 1, arbitrary: fc.tuple(condition, fc.array(tie('filter'), { minLength: 1, maxLength: 2 })).map(([c, $or]) => ({ ...c, $or })) },
    ),
  }));
  const sort = fc.tuple(fc.constantFrom(...fields.map((f) => f.path).filter((p) => p !== 'body.missing')), fc.constantFrom(1, -1)).map(([path, direction]) => ({ [path]: direction }));
  return fc.record(
    {
      filter,
      sort,
      limit: fc.oneof(fc.integer({ min: 0, max: 25 }), fc.constant(200)),
      offset: fc.oneof(fc.integer({ min: 0, max: 30 }), fc.constant(0)),
      thread: fc.constantFrom(...THREADS),
      explain: fc.boolean(),
    },
    { requiredKeys: ['filter'] },
  );
}
