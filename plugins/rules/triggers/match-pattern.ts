/**
 * The `match` grammar of event triggers (docs/decisions.md):
 *
 *   pattern := clause ("," clause)*            all clauses must hold
 *   clause  := path ("=" | "!=") value
 *   path    := "act" | "actor" | "thread" | "data_type" | "namespace" | "id"
 *            | "body." key ("." key)*
 *   value   := text without "," ; "*" means "present" (with "=") or "absent" (with "!=")
 *
 * Values compare as text: a body number or boolean matches its JSON spelling
 * (`body.priority=3`, `body.urgent=true`); objects and arrays never equal a
 * value. Whitespace around clauses, paths and values is ignored.
 * Example: `act=KNOW,body.topic=task_completion`.
 */
import type { LoomRecord } from '../../../core/records/record.js';

const TOP_LEVEL = new Set(['act', 'actor', 'thread', 'data_type', 'namespace', 'id']);
const KEY = /^[A-Za-z0-9_$-]+$/;

export interface MatchClause {
  readonly path: readonly string[];
  readonly negated: boolean;
  /** `null` is the wildcard `*`. */
  readonly value: string | null;
}

export type MatchPattern = readonly MatchClause[];

/** Parses a pattern, or returns the message that says what is wrong. */
export function parseMatchPattern(source: string): MatchPattern | string {
  if (source.trim().length === 0) return 'match pattern is empty';
  const clauses: MatchClause[] = [];
  for (const raw of source.split(',')) {
    const text = raw.trim();
    const at = text.indexOf('=');
    if (at <= 0) return `clause "${text}" must be path=value or path!=value`;
    const negated = text[at - 1] === '!';
    const pathText = text.slice(0, negated ? at - 1 : at).trim();
    const value = text.slice(at + 1).trim();
    if (value.length === 0) return `clause "${text}" has no value (use * to test presence)`;
    const path = pathText.split('.');
    if (path[0] === 'body') {
      if (path.length < 2 || !path.slice(1).every((key) => KEY.test(key))) return `path "${pathText}" must be body.<key>[.<key>…] with keys of letters, digits, _, $ or -`;
    } else if (path.length !== 1 || !TOP_LEVEL.has(path[0]!)) {
      return `path "${pathText}" is not one of ${[...TOP_LEVEL].join(', ')} or body.<key>`;
    }
    clauses.push({ path, negated, value: value === '*' ? null : value });
  }
  return clauses;
}

function lookup(record: LoomRecord, namespace: string, path: readonly string[]): unknown {
  const [head, ...rest] = path;
  if (head !== 'body') return head === 'namespace' ? namespace : (record as unknown as Record<string, unknown>)[head!];
  let value: unknown = record.body;
  for (const key of rest) {
    if (typeof value !== 'object' || value === null || Array.isArray(value) || !Object.hasOwn(value, key)) return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}

function asText(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return JSON.stringify(value);
  if (value === null) return 'null';
  return undefined;
}

export function matchesPattern(pattern: MatchPattern, record: LoomRecord, namespace: string): boolean {
  for (const clause of pattern) {
    const value = lookup(record, namespace, clause.path);
    const holds = clause.value === null ? value !== undefined : asText(value) === clause.value;
    if (holds === clause.negated) return false;
  }
  return true;
}
