/**
 * Records and random queries chosen to find where a SQL dialect and JS
 * disagree: reals SQLite parses an ulp off or reads alike, integers above
 * 2^53, U+0000 and astral characters in text, LIKE and GLOB specials,
 * non-ASCII case, mixed types, nested members. Used by the SQLite driver's
 * equivalence test and by the PostgreSQL-vs-SQLite one (test/storage).
 */
import fc from 'fast-check';
import { ACTS } from '../../core/records/acts.js';
import type { JsonObject, JsonValue } from '../../core/records/json.js';
import { ALICE, BOB, TH_A, TH_B, TH_C, prepare } from './sqlite-test-support.js';

/** SQLite reads the first an ulp off, the pairs alike, and the large integers exactly where JS rounds. */
const TRICKY = [4.997090258113285, 4.3860909439592906, 4.386090943959291, 6.783747286396276, 6.7837472863962756, 2 ** 53 + 2, 2 ** 60, 34829610437561600000];
const NUMBERS = [...TRICKY, ...TRICKY, 0, 1, -1, 2, 2.5, -2.5, 0.1, 0.3, 0.30000000000000004, 1e21, 1e-7, 5e-324, 1e300, -1e300];
const STRINGS = ['', 'a', 'A', 'a-b', 'ab', 'aB', 'abc', 'ABC', 'a%b', 'a_b', 'a*b', 'a?b', 'a[b]', 'a\\b', 'é', 'É', 'x\u0000y', '😀', 'ﬀ', 'z'];
const SCALARS: JsonValue[] = [...NUMBERS, ...STRINGS, true, false, null];
const MEMBERS: JsonValue[] = [...SCALARS, { k: 1 }, { k: 'a' }, [1, 2], [], {}];
const LIKE_PATTERNS = ['a-%', '%-%', '%b', 'a_b', '%\\%%', 'A%', '_', '%', 'a*b', 'a?b', 'a[b]', 'x%y', 'x_y', '\\', 'a\\', '%\\\\%', '\u0000', 'é', '_😀'];
const REGEXES = ['^a', 'b$', '[A-Z]', '\\d', '^.$', '^$', 'é', 'x\\u0000'];
const BODY_FIELDS = ['body.n', 'body.s', 'body.x', 'body.a-b', 'body.o.k', 'body.o.m-n', 'body.o', 'body.missing'];
const JUDGE = 'e'.repeat(64);

/** A deterministic dataset: every body member drawn from MEMBERS, some omitted. */
export function dataset(count: number): ReturnType<typeof prepare>[] {
  let state = 7;
  const next = () => ((state = (state * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!;
  return Array.from({ length: count }, (_, i) => {
    const body: JsonObject = {};
    for (const key of ['n', 's', 'x', 'a-b']) if (next() < 0.8) body[key] = pick(MEMBERS);
    if (next() < 0.7) body['o'] = { k: pick(MEMBERS), 'm-n': pick(SCALARS) };
    return prepare(
      {
        clock: i,
        thread: pick([TH_A, TH_B, TH_C]),
        actor: pick([ALICE, BOB]),
        act: pick(ACTS),
        judged_by: next() < 0.3 ? JUDGE : null,
        body,
      },
      1_700_000_000_000 + i * 1000,
    );
  });
}

const bodyOperand = fc.oneof(fc.constantFrom(...TRICKY), fc.constantFrom(...SCALARS));
const orderedBodyOperand = fc.oneof(fc.constantFrom(...TRICKY), fc.constantFrom(...SCALARS.filter((v) => v !== null)));
const operand = (ordered: boolean) => (ordered ? orderedBodyOperand : bodyOperand);

function condition(field: string, values: fc.Arbitrary<JsonValue>, ordered: fc.Arbitrary<JsonValue>, text: boolean): fc.Arbitrary<JsonObject> {
  const ops: fc.Arbitrary<JsonValue>[] = [
    values,
    values.map((v) => ({ $ne: v })),
    fc.tuple(fc.constantFrom('$gt', '$gte', '$lt', '$lte'), ordered).map(([op, v]) => ({ [op]: v })),
    fc.array(values, { maxLength: 3 }).map((vs) => ({ $in: vs })),
    fc.array(values, { maxLength: 3 }).map((vs) => ({ $nin: vs })),
    fc.boolean().map((b) => ({ $exists: b })),
  ];
  if (text) {
    ops.push(fc.tuple(fc.constantFrom('$like', '$ilike'), fc.constantFrom(...LIKE_PATTERNS)).map(([op, p]) => ({ [op]: p })));
    ops.push(fc.tuple(fc.constantFrom(...REGEXES), fc.constantFrom(undefined, 'i')).map(([r, o]): JsonValue => (o ? { $regex: r, $options: o } : { $regex: r })));
  }
  return fc.oneof(...ops).map((cond) => ({ [field]: cond }));
}

const leaf = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...BODY_FIELDS).chain((f) => condition(f, operand(false), operand(true), true)) },
  { weight: 1, arbitrary: condition('clock', fc.integer({ min: -1, max: 45 }), fc.constantFrom(3, 20.5, 44), false) },
  { weight: 1, arbitrary: condition('sequence', fc.integer({ min: 0, max: 45 }), fc.constantFrom(1, 22), false) },
  { weight: 1, arbitrary: condition('judged_by', fc.constantFrom(JUDGE, null, 'f'), fc.constantFrom(JUDGE, 'a'), true) },
  { weight: 1, arbitrary: condition('thread', fc.constantFrom(TH_A, TH_B), fc.constantFrom(TH_B), true) },
);

const { filter } = fc.letrec<{ filter: JsonObject }>((tie) => ({
  filter: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    leaf,
    fc.array(tie('filter'), { minLength: 1, maxLength: 3 }).map((nodes) => ({ $and: nodes })),
    fc.array(tie('filter'), { minLength: 1, maxLength: 3 }).map((nodes) => ({ $or: nodes })),
    tie('filter').map((node) => ({ $not: node })),
  ),
}));

export const rawQuery = fc.record({
  filter: fc.option(filter, { nil: undefined }),
  sort: fc.option(
    fc.tuple(fc.constantFrom(...BODY_FIELDS, 'judged_by', 'clock', 'thread', 'sequence'), fc.constantFrom(1, -1)).map(([f, d]) => ({ [f]: d })),
    { nil: undefined },
  ),
  limit: fc.integer({ min: 0, max: 12 }),
  offset: fc.integer({ min: 0, max: 15 }),
});

