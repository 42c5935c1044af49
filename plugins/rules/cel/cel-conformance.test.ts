/**
 * CEL conformance: google/cel-spec's simple tests (plugins/rules/cel/vectors,
 * README.md there) run against `createPlainEnvironment()`, the environment
 * options our rules use. One `it` per case, named `file/section/test`.
 *
 * - `value`: the result must equal the expected cel.expr.Value, type included
 *   (int vs uint vs double, string vs bytes); maps are order-agnostic and a
 *   NaN matches a NaN.
 * - `eval_error`: parsing, checking or evaluating must fail.
 * - no matcher: the result must be `true`.
 *
 * Cases we do not run are in SKIPPED, each with its reason; they show as
 * pending. The final test holds the number of passing cases to a floor, so a
 * regression (or a case silently leaving the run) fails.
 */
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { UnsignedInt } from '@marcbachmann/cel-js/evaluator';
import { createPlainEnvironment } from './cel-environments.js';
import { parseTextProto, textBool, textBytes, textEnum, textFloat, textInteger, textString, type TextField, type TextMessage, type TextValue } from './textproto.js';

/** The repository root: the nearest directory above this file holding package.json (tests run from dist/). */
function repoRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) {
    const up = dirname(dir);
    if (up === dir) throw new Error('package.json not found above ' + fileURLToPath(import.meta.url));
    dir = up;
  }
  return dir;
}

const VECTORS = join(repoRoot(), 'plugins', 'rules', 'cel', 'vectors');
const FILES = ['basic', 'comparisons', 'fields', 'lists', 'logic', 'string'] as const;
const TOTAL_CASES = 629;

/**
 * Reviewed skips: `file/section/test` → why it does not run. Every reason
 * starts with its category. A deviation names what cel-js does instead; when
 * a cel-js upgrade fixes one, remove the entry and raise PASS_FLOOR.
 */
const PROTOBUF =
  'protobuf: needs protobuf messages (google.protobuf wrappers/Value/Any, or cel.expr.conformance TestAllTypes via container:); cel-js 8.0.0 has no message types or message construction syntax, and our rules bind no messages';
const unchecked = (error: string) =>
  `unchecked: the case sets disable_check, but cel-js 8.0.0 has no unchecked mode (Environment.evaluate always type-checks) and its checker refuses the expression: ${error}`;
const BYTES_LITERAL =
  "bytes-literal: cel-js 8.0.0 stores a non-ASCII character in b'...' as one byte, its UTF-16 code unit truncated to 8 bits (b'\u00ff' is [0xFF], not UTF-8 [0xC3, 0xBF])";
const BYTES_ORDER = 'bytes-order: cel-js 8.0.0 has no <, <=, >, >= overloads for bytes (no such overload: bytes < bytes)';
const INT_DOUBLE_ORDER =
  'int-double-order: cel-js 8.0.0 compares an int with a double by converting the int to a double, so 9223372036854775807 becomes 9223372036854775808.0; the spec compares exactly';
const BACKTICK = "syntax: cel-js 8.0.0 does not parse backtick-quoted field names (map.`content-type`): Unexpected character: `";
const HAS_LITERAL =
  "has-literal: cel-js 8.0.0 refuses has() over a field of a map literal (has() invalid argument); has(m.a) on a declared map variable works";
const qualified = (declared: string) =>
  `qualified-names: the case declares a variable with a dotted name (${declared}); cel-js 8.0.0 resolves a.b.c from its first segment only: Unknown variable: a`;

const SKIPPED: Readonly<Record<string, string>> = {
  // cel-js has no protobuf messages (72 cases, as counted by the vectors' README).
  'comparisons/eq_literal/eq_dyn_json_null': PROTOBUF,
  'comparisons/eq_literal/not_eq_dyn_proto2_msg_null': PROTOBUF,
  'comparisons/eq_literal/not_eq_dyn_proto3_msg_null': PROTOBUF,
  'comparisons/eq_wrapper/eq_bool': PROTOBUF,
  'comparisons/eq_wrapper/eq_bool_empty': PROTOBUF,
  'comparisons/eq_wrapper/eq_bool_not_null': PROTOBUF,
  'comparisons/eq_wrapper/eq_bool_proto2_null': PROTOBUF,
  'comparisons/eq_wrapper/eq_bool_proto3_null': PROTOBUF,
  'comparisons/eq_wrapper/eq_bytes': PROTOBUF,
  'comparisons/eq_wrapper/eq_bytes_empty': PROTOBUF,
  'comparisons/eq_wrapper/eq_bytes_not_null': PROTOBUF,
  'comparisons/eq_wrapper/eq_bytes_proto2_null': PROTOBUF,
  'comparisons/eq_wrapper/eq_bytes_proto3_null': PROTOBUF,
  'comparisons/eq_wrapper/eq_double': PROTOBUF,
  'comparisons/eq_wrapper/eq_double_empty': PROTOBUF,
  'comparisons/eq_wrapper/eq_double_not_null': PROTOBUF,
  'comparisons/eq_wrapper/eq_double_proto2_null': PROTOBUF,
  'comparisons/eq_wrapper/eq_double_proto3_null': PROTOBUF,
  'comparisons/eq_wrapper/eq_float': PROTOBUF,
  'comparisons/eq_wrapper/eq_float_empty': PROTOBUF,
  'comparisons/eq_wrapper/eq_float_not_null': PROTOBUF,
  'comparisons/eq_wrapper/eq_float_proto2_null': PROTOBUF,
  'comparisons/eq_wrapper/eq_float_proto3_null': PROTOBUF,
  'comparisons/eq_wrapper/eq_int32': PROTOBUF,
  'comparisons/eq_wrapper/eq_int32_empty': PROTOBUF,
  'comparisons/eq_wrapper/eq_int32_not_null': PROTOBUF,
  'comparisons/eq_wrapper/eq_int32_proto2_null': PROTOBUF,
  'comparisons/eq_wrapper/eq_int32_proto3_null': PROTOBUF,
  'comparisons/eq_wrapper/eq_int64': PROTOBUF,
  'comparisons/eq_wrapper/eq_int64_empty': PROTOBUF,
  'comparisons/eq_wrapper/eq_int64_not_null': PROTOBUF,
  'comparisons/eq_wrapper/eq_int64_proto2_null': PROTOBUF,
  'comparisons/eq_wrapper/eq_int64_proto3_null': PROTOBUF,
  'comparisons/eq_wrapper/eq_string': PROTOBUF,
  'comparisons/eq_wrapper/eq_string_empty': PROTOBUF,
  'comparisons/eq_wrapper/eq_string_not_null': PROTOBUF,
  'comparisons/eq_wrapper/eq_string_proto2_null': PROTOBUF,
  'comparisons/eq_wrapper/eq_string_proto3_null': PROTOBUF,
  'comparisons/eq_wrapper/eq_uint32': PROTOBUF,
  'comparisons/eq_wrapper/eq_uint32_empty': PROTOBUF,
  'comparisons/eq_wrapper/eq_uint32_not_null': PROTOBUF,
  'comparisons/eq_wrapper/eq_uint32_proto2_null': PROTOBUF,
  'comparisons/eq_wrapper/eq_uint32_proto3_null': PROTOBUF,
  'comparisons/eq_wrapper/eq_uint64': PROTOBUF,
  'comparisons/eq_wrapper/eq_uint64_empty': PROTOBUF,
  'comparisons/eq_wrapper/eq_uint64_not_null': PROTOBUF,
  'comparisons/eq_wrapper/eq_uint64_proto2_null': PROTOBUF,
  'comparisons/eq_wrapper/eq_uint64_proto3_null': PROTOBUF,
  'comparisons/eq_wrapper/eq_proto2': PROTOBUF,
  'comparisons/eq_wrapper/eq_proto3': PROTOBUF,
  'comparisons/eq_wrapper/eq_proto2_missing_fields_neq': PROTOBUF,
  'comparisons/eq_wrapper/eq_proto3_missing_fields_neq': PROTOBUF,
  'comparisons/eq_wrapper/eq_proto_nan_equal': PROTOBUF,
  'comparisons/eq_wrapper/eq_proto_different_types': PROTOBUF,
  'comparisons/eq_wrapper/eq_proto2_any_unpack_equal': PROTOBUF,
  'comparisons/eq_wrapper/eq_proto2_any_unpack_not_equal': PROTOBUF,
  'comparisons/eq_wrapper/eq_proto2_any_unpack_bytewise_fallback_not_equal': PROTOBUF,
  'comparisons/eq_wrapper/eq_proto2_any_unpack_bytewise_fallback_equal': PROTOBUF,
  'comparisons/eq_wrapper/eq_proto3_any_unpack_equal': PROTOBUF,
  'comparisons/eq_wrapper/eq_proto3_any_unpack_not_equal': PROTOBUF,
  'comparisons/eq_wrapper/eq_proto3_any_unpack_bytewise_fallback_not_equal': PROTOBUF,
  'comparisons/eq_wrapper/eq_proto3_any_unpack_bytewise_fallback_equal': PROTOBUF,
  'comparisons/ne_literal/ne_proto2': PROTOBUF,
  'comparisons/ne_literal/ne_proto3': PROTOBUF,
  'comparisons/ne_literal/ne_proto2_missing_fields_neq': PROTOBUF,
  'comparisons/ne_literal/ne_proto3_missing_fields_neq': PROTOBUF,
  'comparisons/ne_literal/ne_proto_nan_not_equal': PROTOBUF,
  'comparisons/ne_literal/ne_proto_different_types': PROTOBUF,
  'comparisons/ne_literal/ne_proto2_any_unpack': PROTOBUF,
  'comparisons/ne_literal/ne_proto2_any_unpack_bytewise_fallback': PROTOBUF,
  'comparisons/ne_literal/ne_proto3_any_unpack': PROTOBUF,
  'comparisons/ne_literal/ne_proto3_any_unpack_bytewise_fallback': PROTOBUF,

  // disable_check cases refused by cel-js's always-on checker.
  'basic/variables/unbound_is_runtime_error': unchecked('x || true: Unknown variable: x'),
  'basic/functions/unbound_is_runtime_error': unchecked("f_unknown(17) || true: found no matching overload for 'f_unknown(int)'"),
  'comparisons/eq_literal/not_eq_list_length': unchecked("['one'] == [2, 3]: no such overload: list<string> == list<int>"),
  'comparisons/eq_literal/eq_mixed_types': unchecked('1.0 == 1: no such overload: double == int'),
  'comparisons/eq_literal/eq_list_elem_mixed_types': unchecked('[1] == [1.0]: no such overload: list<int> == list<double>'),
  'comparisons/ne_literal/ne_mixed_types': unchecked('2u != 2: no such overload: uint != int'),
  'logic/conditional/mixed_type': unchecked("true ? 'cows' : 17: Ternary branches must have the same type, got 'string' and 'int'"),
  'logic/AND/short_circuit_type_left': unchecked("false && 32: Logical operator requires bool operands, got 'int'"),
  'logic/AND/short_circuit_type_right': unchecked("'horses' && false: Logical operator requires bool operands, got 'string'"),
  'logic/OR/short_circuit_type_left': unchecked("true || 32: Logical operator requires bool operands, got 'int'"),
  'logic/OR/short_circuit_type_right': unchecked("'horses' || true: Logical operator requires bool operands, got 'string'"),

  // bytes
  'basic/self_eval_nonzeroish/self_eval_bytes_escape': `${BYTES_LITERAL}; b'\u00ff' evaluates to [0xFF]`,
  'comparisons/eq_literal/eq_bytes': `${BYTES_LITERAL}; b'\u00ff' == b'\\303\\277' is false`,
  'comparisons/ne_literal/not_ne_bytes': `${BYTES_LITERAL}; b'\\303\\277' != b'\u00ff' is true`,
  'comparisons/lt_literal/lt_bytes': BYTES_ORDER,
  'comparisons/lt_literal/not_lt_bytes_same': BYTES_ORDER,
  'comparisons/lt_literal/not_lt_bytes_width': BYTES_ORDER,
  'comparisons/gt_literal/gt_bytes_one': BYTES_ORDER,
  'comparisons/gt_literal/gt_bytes_one_to_empty': BYTES_ORDER,
  'comparisons/gt_literal/not_gt_bytes_sorting': BYTES_ORDER,
  'comparisons/lte_literal/lte_bytes_empty': BYTES_ORDER,
  'comparisons/lte_literal/not_lte_bytes_length': BYTES_ORDER,
  'comparisons/gte_literal/gte_bytes_to_empty': BYTES_ORDER,
  'comparisons/gte_literal/not_gte_bytes_empty_to_nonempty': BYTES_ORDER,
  'comparisons/gte_literal/gte_bytes_samelength': BYTES_ORDER,
  'comparisons/bound/bytes_gt_left_false': BYTES_ORDER,

  // numbers
  'comparisons/lt_literal/not_lt_dyn_int_big_lossy_double': `${INT_DOUBLE_ORDER}; dyn(9223372036854775807) < 9223372036854775808.0 is true`,
  'comparisons/gt_literal/not_gt_dyn_big_double_int': `${INT_DOUBLE_ORDER}; dyn(9223372036854775808.0) > 9223372036854775807 is true`,
  'comparisons/lte_literal/lte_dyn_big_double_int': `${INT_DOUBLE_ORDER}; dyn(9223372036854775808.0) <= 9223372036854775807 is false`,
  'comparisons/gte_literal/gte_dyn_int_big_lossy_double': `${INT_DOUBLE_ORDER}; dyn(9223372036854775807) >= 9223372036854775808.0 is false`,
  'comparisons/eq_literal/eq_list_mixed_type_numbers':
    'cross-numeric: cel-js 8.0.0 compares list elements of different numeric types as unequal: [1.0, 2.0, 3] == [1u, 2, 3u] is false (dyn(1u) == 1 alone is true)',
  'comparisons/eq_literal/eq_map_mixed_type_numbers':
    'cross-numeric: cel-js 8.0.0 compares map values of different numeric types as unequal: {1: 1.0, 2u: 3u} == {1u: 1, 2: 3.0} is false',
  'lists/in/uint_in_ints': 'cross-numeric: cel-js 8.0.0 `in` over a list matches the same numeric type only: dyn(3u) in [5, 4, 3, 2, 1] is false',
  'lists/in/uint_in_doubles': 'cross-numeric: cel-js 8.0.0 `in` over a list matches the same numeric type only: dyn(3u) in [5.0, 4.0, 3.0, 2.0, 1.0] is false',
  'lists/in/int_in_uints': 'cross-numeric: cel-js 8.0.0 `in` over a list matches the same numeric type only: dyn(3) in [5u, 4u, 3u, 2u, 1u] is false',
  'lists/in/double_in_uints': 'cross-numeric: cel-js 8.0.0 `in` over a list matches the same numeric type only: dyn(3.0) in [5u, 4u, 3u, 2u, 1u] is false',
  'lists/index/zero_based_uint':
    "cross-numeric: cel-js 8.0.0 indexes lists by int only: [7, 8, 9][dyn(0u)] fails with 'No such key: 0' (a static 0u fails the check: List index must be int, got 'uint')",

  // syntax
  'comparisons/gt_literal/not_gt_double': 'syntax: cel-js 8.0.0 does not parse a double literal with a leading dot (.99 > 9.9e-1): Unexpected token: DOT',
  'fields/quoted_map_fields/field_access_slash': BACKTICK,
  'fields/quoted_map_fields/field_access_dash': BACKTICK,
  'fields/quoted_map_fields/field_access_dot': BACKTICK,
  'fields/quoted_map_fields/has_field_slash': BACKTICK,
  'fields/quoted_map_fields/has_field_dash': BACKTICK,
  'fields/quoted_map_fields/has_field_dot': BACKTICK,

  // maps
  'fields/map_has/has': HAS_LITERAL,
  'fields/map_has/has_not': HAS_LITERAL,
  'fields/map_has/has_empty': HAS_LITERAL,
  'fields/qualified_identifier_resolution/qualified_ident': qualified('a.b.c'),
  'fields/qualified_identifier_resolution/map_field_select': qualified('a.b'),
  'fields/qualified_identifier_resolution/qualified_identifier_resolution_unchecked': qualified('a.b.c and a.b'),
  'fields/qualified_identifier_resolution/ident_with_longest_prefix_check': qualified('a.b.c and a.b'),
  'fields/qualified_identifier_resolution/map_key_float': 'map-literal-keys: cel-js 8.0.0 accepts a double map key; the spec requires an error: {3.3:15.15, 1.0: 5}[1.0] is 5',
  'fields/qualified_identifier_resolution/map_key_null': 'map-literal-keys: cel-js 8.0.0 accepts a null map key; the spec requires an error: {null:false}[null] is false',
  'fields/qualified_identifier_resolution/map_value_repeat_key':
    'map-literal-keys: cel-js 8.0.0 accepts a repeated map key (the last wins); the spec requires an error: {true:1,false:2,true:3}[true] is 3',
  'fields/qualified_identifier_resolution/map_value_repeat_key_heterogeneous':
    'map-literal-keys: cel-js 8.0.0 accepts 0 and 0u as the same map key (the last wins); the spec requires an error: {0: 1, 0u: 2}[0.0] is 2',
};

/** The number of cases that must pass (the count reached; raise it when a skip is removed). */
const PASS_FLOOR = 502;

interface Case {
  readonly id: string;
  readonly test: TextMessage;
}

function loadCases(): Case[] {
  const present = readdirSync(VECTORS).filter((f) => f.endsWith('.textproto')).sort();
  expect(present).to.deep.equal(FILES.map((f) => `${f}.textproto`).sort());
  const cases: Case[] = [];
  for (const file of FILES) {
    const root = parseTextProto(readFileSync(join(VECTORS, `${file}.textproto`), 'utf8'));
    expect(root.string('name')).to.equal(file);
    for (const section of root.messages('section')) {
      for (const test of section.messages('test')) {
        cases.push({ id: `${file}/${section.string('name')}/${test.string('name')}`, test });
      }
    }
  }
  return cases;
}

/** A cel.expr.Type from a type_env ident, as a cel-js type name. */
function celTypeName(type: TextMessage): string {
  const primitive = type.get('primitive');
  if (primitive !== undefined) {
    const names: Record<string, string> = { BOOL: 'bool', INT64: 'int', UINT64: 'uint', DOUBLE: 'double', STRING: 'string', BYTES: 'bytes' };
    const name = names[String(textEnum(primitive))];
    if (name === undefined) throw new Error(`unsupported primitive type ${String(textEnum(primitive))}`);
    return name;
  }
  if (type.has('null')) return 'null';
  if (type.has('dyn')) return 'dyn';
  const list = type.message('list_type');
  if (list !== undefined) return `list<${celTypeName(list.message('elem_type')!)}>`;
  const map = type.message('map_type');
  if (map !== undefined) return `map<${celTypeName(map.message('key_type')!)}, ${celTypeName(map.message('value_type')!)}>`;
  throw new Error(`unsupported type ${type.fields.map((f) => f.name).join(', ')}`);
}

/** The one field set in a cel.expr.Value (its kind). */
function kindOf(value: TextMessage): TextField {
  if (value.fields.length !== 1) throw new Error(`a cel.expr.Value has ${value.fields.length} fields`);
  return value.fields[0]!;
}

/** A cel.expr.Value as the JS value cel-js uses. */
function toJs(value: TextMessage): unknown {
  const { name, value: v } = kindOf(value);
  switch (name) {
    case 'null_value':
      return null;
    case 'bool_value':
      return textBool(v);
    case 'int64_value':
      return textInteger(v);
    case 'uint64_value':
      return new UnsignedInt(textInteger(v));
    case 'double_value':
      return textFloat(v);
    case 'string_value':
      return textString(v);
    case 'bytes_value':
      return textBytes(v);
    case 'list_value':
      return asMessage(v).messages('values').map(toJs);
    case 'map_value': {
      const entries = asMessage(v).messages('entries').map((e) => [toJs(e.message('key')!), toJs(e.message('value')!)] as const);
      if (entries.every(([k]) => typeof k === 'string')) return Object.fromEntries(entries);
      return new Map(entries);
    }
    default:
      throw new Error(`unsupported cel.expr.Value kind ${name}`);
  }
}

function asMessage(value: TextValue): TextMessage {
  if (value.kind !== 'message') throw new Error('expected a message');
  return value;
}

function show(value: unknown): string {
  if (value instanceof UnsignedInt) return `${value.value}u`;
  if (typeof value === 'bigint') return `${value}`;
  if (value instanceof Uint8Array) return `b[${[...value].join(',')}]`;
  if (typeof value === 'number') return Number.isInteger(value) ? `${value}.0` : `${value}`;
  if (Array.isArray(value)) return `[${value.map(show).join(', ')}]`;
  if (value instanceof Map) return `{${[...value].map(([k, v]) => `${show(k)}: ${show(v)}`).join(', ')}}`;
  if (value !== null && typeof value === 'object' && value.constructor === Object) {
    return `{${Object.entries(value).map(([k, v]) => `${JSON.stringify(k)}: ${show(v)}`).join(', ')}}`;
  }
  if (typeof value === 'string') return JSON.stringify(value);
  return String(value);
}

/**
 * Whether `actual` (a cel-js result) equals the expected cel.expr.Value,
 * type included. A plain object is a map whose keys cel-js turned into
 * property names, so its keys are compared by that spelling.
 */
function equalsValue(actual: unknown, expected: TextMessage): boolean {
  const { name, value: v } = kindOf(expected);
  switch (name) {
    case 'null_value':
      return actual === null;
    case 'bool_value':
      return actual === textBool(v);
    case 'int64_value':
      return typeof actual === 'bigint' && actual === textInteger(v);
    case 'uint64_value':
      return actual instanceof UnsignedInt && actual.value === textInteger(v);
    case 'double_value': {
      const d = textFloat(v);
      return typeof actual === 'number' && (Number.isNaN(d) ? Number.isNaN(actual) : actual === d);
    }
    case 'string_value':
      return typeof actual === 'string' && actual === textString(v);
    case 'bytes_value': {
      const b = textBytes(v);
      return actual instanceof Uint8Array && actual.length === b.length && actual.every((x, i) => x === b[i]);
    }
    case 'list_value': {
      const values = asMessage(v).messages('values');
      return Array.isArray(actual) && actual.length === values.length && values.every((e, i) => equalsValue(actual[i], e));
    }
    case 'map_value': {
      const entries = asMessage(v).messages('entries');
      if (actual instanceof Map) {
        return actual.size === entries.length && entries.every((e) => [...actual].some(([k, x]) => equalsValue(k, e.message('key')!) && equalsValue(x, e.message('value')!)));
      }
      if (actual === null || typeof actual !== 'object' || actual.constructor !== Object) return false;
      const record = actual as Record<string, unknown>;
      return Object.keys(record).length === entries.length && entries.every((e) => {
        const key = propertyKey(toJs(e.message('key')!));
        return Object.hasOwn(record, key) && equalsValue(record[key], e.message('value')!);
      });
    }
    default:
      throw new Error(`unsupported cel.expr.Value kind ${name}`);
  }
}

/** How cel-js spells a map key as a property name. */
function propertyKey(key: unknown): string {
  if (key instanceof UnsignedInt) return key.value.toString();
  return String(key);
}

type Outcome = { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly error: unknown };

/**
 * Declares the case's variables, converts its bindings and evaluates it. Only
 * cel-js's own parse, check and evaluation errors become a failed outcome: a
 * declaration or binding this harness cannot convert throws, so it can never
 * pass as an expected eval_error.
 */
function run(test: TextMessage): Outcome {
  const env = createPlainEnvironment();
  for (const decl of test.messages('type_env')) {
    const type = decl.message('ident')?.message('type');
    if (type === undefined) throw new Error(`type_env '${decl.string('name')}' is not an ident declaration`);
    env.registerVariable(decl.string('name')!, celTypeName(type));
  }
  const context: Record<string, unknown> = {};
  for (const binding of test.messages('bindings')) {
    const value = binding.message('value')?.message('value');
    if (value === undefined) throw new Error(`binding '${binding.string('key')}' has no value`);
    context[binding.string('key')!] = toJs(value);
  }
  const expr = test.string('expr');
  if (expr === undefined) throw new Error('the case has no expr');
  try {
    return { ok: true, value: env.evaluate(expr, context) };
  } catch (error) {
    return { ok: false, error };
  }
}

function check(test: TextMessage, outcome: Outcome): void {
  const expected = test.message('value');
  if (test.has('eval_error')) {
    if (outcome.ok) expect.fail(`expected an error, got ${show(outcome.value)}`);
    return;
  }
  if (!outcome.ok) throw outcome.error;
  if (expected === undefined) {
    expect(outcome.value, 'no matcher: the result must be true').to.equal(true);
    return;
  }
  if (!equalsValue(outcome.value, expected)) expect.fail(`got ${show(outcome.value)}, expected ${show(toJs(expected))}`);
}

const isProtobufCase = (test: TextMessage): boolean => test.has('container') || /google\.protobuf\.|TestAllTypes/.test(test.string('expr') ?? '');

describe('CEL conformance (google/cel-spec simple tests)', () => {
  const cases = loadCases();
  const toRun = cases.filter((c) => SKIPPED[c.id] === undefined).length;
  let ran = 0;
  let passed = 0;

  it('reads every case from the six files, and every skip names one', () => {
    expect(cases).to.have.length(TOTAL_CASES);
    expect(new Set(cases.map((c) => c.id)).size, 'case names are unique').to.equal(cases.length);
    const ids = new Set(cases.map((c) => c.id));
    expect(Object.keys(SKIPPED).filter((name) => !ids.has(name)), 'skip-list entries naming no case').to.deep.equal([]);
  });

  it('skips exactly the protobuf-dependent cases as protobuf', () => {
    const protobuf = cases.filter((c) => isProtobufCase(c.test)).map((c) => c.id);
    const skipped = Object.keys(SKIPPED).filter((name) => SKIPPED[name] === PROTOBUF);
    expect(protobuf).to.have.length(72);
    expect([...skipped].sort()).to.deep.equal([...protobuf].sort());
  });

  it('compares values by type as well as value', () => {
    const value = (source: string) => parseTextProto(source);
    expect(equalsValue(1n, value('int64_value: 1'))).to.equal(true);
    expect(equalsValue(new UnsignedInt(1n), value('int64_value: 1'))).to.equal(false);
    expect(equalsValue(1, value('int64_value: 1'))).to.equal(false);
    expect(equalsValue(1n, value('uint64_value: 1'))).to.equal(false);
    expect(equalsValue(new UnsignedInt(1n), value('uint64_value: 1'))).to.equal(true);
    expect(equalsValue(1n, value('double_value: 1'))).to.equal(false);
    expect(equalsValue(NaN, value('double_value: nan'))).to.equal(true);
    expect(equalsValue('a', value('bytes_value: "a"'))).to.equal(false);
    expect(equalsValue(new Uint8Array([97]), value('string_value: "a"'))).to.equal(false);
    expect(equalsValue(new Uint8Array([0, 255]), value('bytes_value: "\\000\\377"'))).to.equal(true);
    expect(equalsValue(null, value('bool_value: false'))).to.equal(false);
    expect(equalsValue([1n, 'x'], value('list_value { values { int64_value: 1 } values { string_value: "x" } }'))).to.equal(true);
    expect(equalsValue([1n], value('list_value { values { double_value: 1 } }'))).to.equal(false);
    const map = 'map_value { entries { key { string_value: "c" } value { int64_value: 1 } } entries { key { int64_value: 2 } value { bool_value: true } } }';
    expect(equalsValue({ 2: true, c: 1n }, value(map)), 'maps are order-agnostic').to.equal(true);
    expect(equalsValue(new Map<unknown, unknown>([[2n, true], ['c', 1n]]), value(map))).to.equal(true);
    expect(equalsValue({ c: 1n }, value(map))).to.equal(false);
    expect(equalsValue({ c: 1n, 2: true, d: 0n }, value(map))).to.equal(false);
  });

  for (const { id, test } of cases) {
    if (SKIPPED[id] !== undefined) {
      it.skip(id);
      continue;
    }
    it(id, () => {
      ran++;
      check(test, run(test));
      passed++;
    });
  }

  it('passes at least the recorded floor', function () {
    if (ran < toRun) this.skip(); // a filtered run (--grep) proves nothing about the floor
    expect(passed + Object.keys(SKIPPED).length).to.equal(TOTAL_CASES);
    expect(passed).to.be.at.least(PASS_FLOOR);
  });
});
