/**
 * Which text of a record search reads. A record's words are the top-level
 * string fields of its body, in key order, minus the structural ones
 * (`kind`, `topic`, `namespace`, `_`-prefixed keys: identifiers, not prose),
 * each at most MAX_FIELD_CHARS. Its title is the first of `title`, `name`,
 * `subject`, `goal`, `summary` that is a string (a thread's gist comes from
 * it). Nested objects and arrays are not read: they hold references and
 * structured values whose words mean little on their own.
 */
import type { LoomRecord } from '../../core/records/record.js';

export const TITLE_FIELDS = ['title', 'name', 'subject', 'goal', 'summary'] as const;
const STRUCTURAL = new Set(['kind', 'topic', 'namespace']);
export const MAX_FIELD_CHARS = 4_000;
/** What one record contributes to an embedding request, at most. */
export const MAX_EMBED_CHARS = 8_000;

export interface RecordText {
  readonly title: string;
  /** Every other field's words, one field per line. */
  readonly text: string;
}

export function recordText(record: LoomRecord): RecordText {
  const fields = record.body as Record<string, unknown>;
  const titleKey = TITLE_FIELDS.find((key) => typeof fields[key] === 'string' && (fields[key] as string).trim() !== '');
  const lines: string[] = [];
  for (const key of Object.keys(fields).sort()) {
    const value = fields[key];
    if (key === titleKey || STRUCTURAL.has(key) || key.startsWith('_') || typeof value !== 'string') continue;
    if (value.trim() !== '') lines.push(value.slice(0, MAX_FIELD_CHARS));
  }
  return { title: titleKey ? (fields[titleKey] as string).slice(0, MAX_FIELD_CHARS) : '', text: lines.join('\n') };
}

/** The string an embedding is made of: title, then the other fields; empty when the record has no words. */
export function embeddingText(record: LoomRecord): string {
  const { title, text } = recordText(record);
  return (title && text ? `${title}\n${text}` : title || text).slice(0, MAX_EMBED_CHARS);
}

/** `body.kind` when it is a string. */
export function bodyKind(record: LoomRecord): string | null {
  const kind = (record.body as Record<string, unknown>).kind;
  return typeof kind === 'string' ? kind : null;
}
